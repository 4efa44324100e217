"""What the five upstream-draw trials cost: the judge's correctness phase at upstream_trials 1 and 5.

    python bench/upstream_trials_cost.py --out $OUT          # GPU, full sizes, the team's example kernels
    python bench/upstream_trials_cost.py --out /tmp/x --interpret   # CPU, reduced sizes (a check of the script)

Each example kernel of submissions/kernelbench-team-examples.json is judged by the real judge
(`worker.run.evaluate_job`, runner sandboxed as on the board) once per setting, with a 2 s timing budget;
the seconds of `compute_references` + `check_correctness` (the phases the extra trials lengthen) and of the
whole evaluation are recorded. Writes $OUT/upstream_trials_cost.json and prints a table last. About a
minute per kernel on the H200, the CUDA example's build included.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.evaluate.jobs import Job  # noqa: E402
from validator.evaluate.worker import run as worker  # noqa: E402
from validator.isolation.bwrap import machine_isolation  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402
from validator.submission.kernel_names import own_kernel_names  # noqa: E402

EXAMPLES = REPO / "submissions" / "kernelbench-team-examples"
KERNELS = [("level1/19_ReLU", "level1_19_relu_cuda.py"), ("level1/23_Softmax", "level1_23_softmax_triton.py"),
           ("level1/40_LayerNorm", "level1_40_layernorm_triton.py"),
           ("level2/76_Gemm_Add_ReLU", "level2_76_gemm_add_relu_triton.py")]
TIMED = ("compute_references", "check_correctness")


def job(problem: str, kernel: Path, scratch: Path, upstream_trials: int, interpret: bool) -> Job:
    path = REPO / "problems" / f"{problem}.py"
    source = kernel.read_text(encoding="utf-8")
    protocol = PROTOCOL.to_dict() | {"upstream_trials": upstream_trials, "time_budget_s": 2.0}
    level, rest = problem.split("/")
    return Job(key=problem, level=int(level.removeprefix("level")), problem_id=int(rest.split("_", 1)[0]),
               problem_path=str(path), problem_sha256=hashlib.sha256(path.read_bytes()).hexdigest(),
               kernel_path=str(kernel), kernel_sha256=hashlib.sha256(source.encode()).hexdigest(),
               backend="cuda" if "cuda" in kernel.name else "triton", extensions_dir=str(scratch / "ext"),
               seed=20261124, protocol=protocol, own_kernel_names=own_kernel_names(source), interpret=interpret,
               sandbox=machine_isolation().sandbox)


def timed_phases() -> dict[str, float]:
    """Wrap the phases the extra trials lengthen; returns the dict they add their seconds to."""
    spent: dict[str, float] = {}
    for name in TIMED:
        original = getattr(worker.Evaluation, name)

        def wrapped(self, _original=original, _name=name):
            t0 = time.perf_counter()
            try:
                return _original(self)
            finally:
                spent[_name] = spent.get(_name, 0.0) + time.perf_counter() - t0

        setattr(worker.Evaluation, name, wrapped)
    return spent


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--interpret", action="store_true")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    spent = timed_phases()
    rows = []
    for problem, name in KERNELS:
        for trials in (1, 5, 1, 5):  # twice each, interleaved: the first run of a kernel pays one-off costs
            spent.clear()
            with tempfile.TemporaryDirectory(prefix="kb-trials-") as scratch:
                result = worker.evaluate_job(job(problem, EXAMPLES / name, Path(scratch), trials, args.interpret))
            rows.append({"problem": problem, "upstream_trials": trials, "status": result.status.value,
                         "upstream": result.upstream.correct if result.upstream else None,
                         "correctness_s": round(sum(spent.values()), 4), "total_s": result.seconds})
            print(json.dumps(rows[-1]), flush=True)
    (args.out / "upstream_trials_cost.json").write_text(json.dumps(rows, indent=1), encoding="utf-8")
    print(f"\n{'problem':26} {'trials':>6} {'status':10} {'correctness s':>13} {'total s':>8}")
    for r in rows:
        print(f"{r['problem']:26} {r['upstream_trials']:6} {r['status']:10} {r['correctness_s']:13.3f} "
              f"{r['total_s']:8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
