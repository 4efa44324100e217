"""Fault isolation on a GPU: a segfault, a hang and an illegal memory access placed among good kernels.

Builds and evaluates one submission mixing the example Triton kernels with the fault fixtures of
tests/fixtures/engine/kernels through the build and evaluate stages themselves (the static policy is
left out on purpose: it would reject the fixtures before they run). Prints one row per problem.

    python bench/bench_faults.py [--timeout-scale 0.1] [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "tests"))

from engine_kit import EXAMPLES, FIXTURES, context, make_submission  # noqa: E402

from validator.compile import stage as build  # noqa: E402
from validator.evaluate import stage as engine  # noqa: E402
from validator.findings import StageOutcome, StageStatus  # noqa: E402
from validator.results import records as results  # noqa: E402
from validator.run_context import BuildOptions, EvaluateOptions, RunOptions  # noqa: E402

KERNELS = {
    "softmax.py": (1, 23, "triton", EXAMPLES / "level1_23_softmax_triton.py"),
    "segfault.py": (1, 19, "pytorch", FIXTURES / "kernels" / "segfault_relu.py"),
    "hang.py": (1, 1, "pytorch", FIXTURES / "kernels" / "hang_matmul.py"),
    "illegal.py": (1, 40, "triton", FIXTURES / "kernels" / "illegal_access_layernorm.py"),
    "gemm.py": (2, 76, "triton", EXAMPLES / "level2_76_gemm_add_relu_triton.py"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timeout-scale", type=float, default=0.1)
    parser.add_argument("--out", type=Path, help="results directory (default: a temporary one)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="kb-faults-"))
    kernels = {name: (level, pid, backend, path.read_text()) for name, (level, pid, backend, path) in KERNELS.items()}
    document = make_submission(root, kernels, slug="fault-isolation")
    options = RunOptions(build=BuildOptions(timeout_scale=args.timeout_scale),
                         evaluate=EvaluateOptions(results_dir=args.out or root / "results",
                                                  timeout_scale=args.timeout_scale))
    started = time.perf_counter()
    built = build.run_stage(context(document, options, builds={}))
    earlier = (StageOutcome("build", StageStatus.PASSED, findings=built.findings),)
    findings = engine.run_stage(context(document, options, earlier, {r.build.key: r for r in built.builds})).findings
    path = next(Path(options.evaluate.results_dir).rglob("fault-isolation*.json"))
    final = results.load(path)
    print(f"fault isolation: {len(final.problems)} problems in {time.perf_counter() - started:.0f} s; "
          f"unhealthy GPUs: {final.environment.extra.get('unhealthy_gpus')}; {findings[-1].message}")
    for p in final.problems:
        error = p.error.splitlines()[0][:70] if p.error else ""
        print(f"  {p.key:40} {p.status.value:14} speedup {p.speedup or 0:6.3f} {p.seconds:6.1f} s  {error}")


if __name__ == "__main__":
    main()
