"""Timing precision: the same kernels measured twice in one run, problem by problem.

    python bench/bench_timing_precision.py [--identity 1_Square_matrix_multiplication_ ...] [--out DIR]

Runs the example submission's kernels, plus "identity" kernels (ModelNew = the reference Model) for a few
more problems, through real workers (`python -m validator.evaluate.judge.run`, full sizes, the protocol in force), in
two passes over the list. For each problem it reports both speedups and |ln(s1/s2)|, then the median and
95th percentile across problems. Targets (issue 4): median <= 1%, p95 <= 3%. GPU only.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = [
    ("level1/19_ReLU", "submissions/kernelbench-team-examples/level1_19_relu_cuda.py"),
    ("level1/23_Softmax", "submissions/kernelbench-team-examples/level1_23_softmax_triton.py"),
    ("level1/40_LayerNorm", "submissions/kernelbench-team-examples/level1_40_layernorm_triton.py"),
    ("level2/76_Gemm_Add_ReLU", "submissions/kernelbench-team-examples/level2_76_gemm_add_relu_triton.py"),
]
IDENTITY = ["level1/1_Square_matrix_multiplication_", "level1/26_GELU_", "level1/33_BatchNorm", "level3/1_MLP"]


def identity_kernel(problem: str, workdir: Path) -> Path:
    """A kernel file whose ModelNew is the reference Model itself (speedup 1 by construction)."""
    source = (REPO / "problems" / f"{problem}.py").read_text(encoding="utf-8")
    path = workdir / f"identity_{problem.replace('/', '_')}.py"
    path.write_text(source + "\n\nModelNew = Model\n", encoding="utf-8")
    return path


def run_worker(problem: str, kernel: Path, workdir: Path, seed: int, extensions: Path) -> dict:
    sys.path.insert(0, str(REPO))
    from validator.evaluate.jobs import Job, write_job
    from validator.protocol import PROTOCOL
    from validator.submission.kernel_names import own_kernel_names

    level, rest = problem.split("/")
    problem_path = REPO / "problems" / f"{problem}.py"
    source = kernel.read_text(encoding="utf-8")
    job = Job(
        key=problem, level=int(level.removeprefix("level")), problem_id=int(rest.split("_")[0]),
        problem_path=str(problem_path), problem_sha256=hashlib.sha256(problem_path.read_bytes()).hexdigest(),
        kernel_path=str(kernel), kernel_sha256=hashlib.sha256(source.encode()).hexdigest(), backend="triton",
        extensions_dir=str(extensions), seed=seed, protocol=PROTOCOL.to_dict(),
        own_kernel_names=own_kernel_names(source),
    )  # fmt: skip
    job_path, out = workdir / f"job-{seed}.json", workdir / f"out-{seed}.json"
    write_job(job, job_path)
    env = {**os.environ, "PYTHONPATH": str(REPO), "TORCH_EXTENSIONS_DIR": job.extensions_dir}
    done = subprocess.run([sys.executable, "-m", "validator.evaluate.judge.run", str(job_path), str(out)], env=env,
                          cwd=workdir, capture_output=True, text=True, timeout=900, check=False)  # fmt: skip
    if not out.exists():
        return {"status": "no-result", "error": done.stderr[-500:], "speedup": None, "seconds": 0.0}
    return json.loads(out.read_text(encoding="utf-8"))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    rank = q / 100 * (len(ordered) - 1)
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--identity", nargs="*", default=IDENTITY, help="problems measured with ModelNew = Model")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", tempfile.gettempdir())))
    parser.add_argument("--extensions-dir", type=Path, default=None, help="prebuilt TORCH_EXTENSIONS_DIR")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="kb-precision-"))
    items = [(p, REPO / k) for p, k in EXAMPLES] + [(p, identity_kernel(p, workdir)) for p in args.identity]
    passes: list[list[dict]] = [[], []]
    for index, results in enumerate(passes):
        for number, (problem, kernel) in enumerate(items):
            started = time.perf_counter()
            extensions = args.extensions_dir or workdir / "ext"
            results.append(run_worker(problem, kernel, workdir, seed=1000 * index + number + 1, extensions=extensions))
            print(f"pass {index + 1} {problem:40} {results[-1]['status']:12} speedup {results[-1].get('speedup')} "
                  f"({time.perf_counter() - started:.1f} s)", flush=True)  # fmt: skip
    rows, deviations = [], []
    for (problem, _), first, second in zip(items, *passes, strict=True):
        s1, s2 = first.get("speedup"), second.get("speedup")
        deviation = abs(math.log(s1 / s2)) if s1 and s2 else None
        if deviation is not None:
            deviations.append(deviation)
        rows.append({"problem": problem, "s1": s1, "s2": s2, "abs_ln_ratio": deviation,
                     "rounds": (first.get("rounds"), second.get("rounds")),
                     "status": (first["status"], second["status"])})  # fmt: skip
    summary = {"median": percentile(deviations, 50), "p95": percentile(deviations, 95)} if deviations else {}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "timing_precision.json").write_text(json.dumps({"rows": rows, "summary": summary, "passes": passes},
                                                               indent=1, default=str))  # fmt: skip
    print(f"\n{'problem':40} {'speedup 1':>10} {'speedup 2':>10} {'|ln s1/s2|':>11} rounds")
    for row in rows:
        s1, s2 = row["s1"] or float("nan"), row["s2"] or float("nan")
        dev = row["abs_ln_ratio"] if row["abs_ln_ratio"] is not None else float("nan")
        print(f"{row['problem']:40} {s1:10.4f} {s2:10.4f} {dev:11.4%} {row['rounds']} {row['status']}")
    if summary:
        print(f"median |ln(s1/s2)| = {summary['median']:.3%}   p95 = {summary['p95']:.3%}   "
              f"over {len(deviations)} problems")
    return 0


if __name__ == "__main__":
    sys.exit(main())
