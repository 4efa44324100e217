"""Where a timed round's milliseconds go: every request to the runner (by op), the pauses and resumes, reading
outputs back, and the judge's own steps of a round (the reference's outputs, poisoning, digests, comparisons), for
the example kernels, through the real judge (bench/bench_worker_phases.py's run, these timers added).

A problem's `time` phase costs tens of milliseconds per round on the H200 where the calls themselves take about
one; this splits that. Each step's count, sum, median and maximum, per kernel and run.

    python bench/round_costs.py [--kernels FILE ...] [--repeat 1] [--out F.json]   # on the GPU machine
    python bench/round_costs.py --interpret --kernels level1_23_softmax_triton.py    # on a CPU
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.util
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.evaluate.judge import judge_timing, precision, remote, run, verdicts  # noqa: E402

Timings = dict[str, list[float]]


CURRENT = [""]
"""The kernel file being judged: each step is recorded under it, so kernels of different sizes stay apart."""


def timed(record: Timings, name: str, original: Callable[..., Any],
          key: Callable[[tuple], str] | None = None) -> Callable[..., Any]:  # fmt: skip
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            record[f"{CURRENT[0]} {name}" + (key(args) if key else "")].append(time.perf_counter() - started)

    return wrapper


def op_of(args: tuple) -> str:
    header = args[1] if len(args) > 1 else None
    return f":{header.get('op')}" if isinstance(header, dict) else ""


@contextlib.contextmanager
def round_timers() -> Iterator[Timings]:
    """Wrap the runner's and the judge's round steps for the duration; restored afterwards."""
    record: Timings = collections.defaultdict(list)
    targets: list[tuple[Any, str, Callable[[tuple], str] | None]] = [
        (remote.Runner, "request", op_of), (remote.Runner, "pause", None), (remote.Runner, "resume", None),
        (remote.Runner, "outputs", None),
        (judge_timing.JudgeSide, "round", None), (judge_timing.JudgeSide, "time_reference", None),
        (judge_timing.JudgeSide, "time_kernel", None), (judge_timing.JudgeSide, "fresh_allocations", None),
        (run.Evaluation, "judge_call", None), (judge_timing, "output_digest", None),
        (judge_timing.timing, "converged", None),
        (judge_timing.JudgeSide, "bound", None), (verdicts.Verdicts, "judge", None),
        (precision.Float64, "errors", None),
    ]
    saved = [(run, "evaluate_job", run.evaluate_job)]

    def labelled(job: Any, *args: Any, **kwargs: Any) -> Any:
        CURRENT[0] = Path(job.kernel_path).name.removesuffix(".py")
        return saved[0][2](job, *args, **kwargs)

    run.evaluate_job = labelled
    for owner, name, key in targets:
        original = getattr(owner, name)
        saved.append((owner, name, original))
        setattr(owner, name, timed(record, name, original, key))
    try:
        yield record
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def table(record: Timings) -> list[dict[str, Any]]:
    rows = [{"step": k, "n": len(v), "sum_ms": 1e3 * sum(v), "median_ms": 1e3 * statistics.median(v),
             "max_ms": 1e3 * max(v)} for k, v in record.items() if v]
    return sorted(rows, key=lambda r: (r["step"].split()[0], -r["sum_ms"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], epilog="Every other argument goes to "
                                     "bench/bench_worker_phases.py (see its --help): --kernels, --repeat, --interpret.")
    parser.add_argument("--out", type=Path, help="write the table as JSON here")
    args, rest = parser.parse_known_args()
    spec = importlib.util.spec_from_file_location("bench_worker_phases", REPO / "bench" / "bench_worker_phases.py")
    phases = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(phases)
    sys.argv[1:] = rest
    with round_timers() as record:
        code = phases.main()
    rows = table(record)
    print(f"\n{'step':<56} {'n':>5} {'sum ms':>10} {'median ms':>10} {'max ms':>9}")
    for r in rows:
        print(f"{r['step']:<56} {r['n']:>5} {r['sum_ms']:>10.1f} {r['median_ms']:>10.3f} {r['max_ms']:>9.1f}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return code


if __name__ == "__main__":
    sys.exit(main())
