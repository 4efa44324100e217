"""What the judge's pause of its runner costs per timed round: the tree pause (`validator/isolation/process_tree.py`,
every process under the runner stopped, those outside its group by pidfd) against the group pause it replaced
(one SIGSTOP and SIGCONT of the group, then a scan of /proc for members left stopped), on one runner in the
sandbox, in the same run. A round of the timing phase pauses once; a problem has at most about 250 rounds.

    python bench/bench_pause_cost.py --cycles 300

Rows: the runner alone, and the runner with a detached helper outside its group (the fixture kernel of
tests/isolation/test_process_tree.py); milliseconds per pause-and-resume, median and 90th percentile.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from tests.evaluate.judge.test_run import make_job  # noqa: E402
from tests.isolation.test_process_tree import HELPER_KERNEL, _load  # noqa: E402
from validator.evaluate.judge.remote import Runner  # noqa: E402
from validator.isolation import process_tree  # noqa: E402

RELU = REPO / "tests" / "redteam" / "control" / "relu_triton.py"


def group_pause(root: int) -> None:
    """The judge's pause before the tree (commit 1be6722): the group only."""
    os.killpg(root, signal.SIGSTOP)
    os.killpg(root, signal.SIGCONT)
    for _ in range(200):
        if not _group_stopped(root):
            return
        os.killpg(root, signal.SIGCONT)
        time.sleep(0.001)


def _group_stopped(pgid: int) -> bool:
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 2 and fields[2] == str(pgid) and fields[0] in ("T", "t"):
            return True
    return False


def measure(kernel: Path, cycles: int) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory() as tmp:
        job = make_job("level1/19_ReLU", kernel, Path(tmp), interpret=True)
        runner = Runner(job, Path(tmp), job.sandbox)
        try:
            assert _load(runner, job)["ok"] is True
            runner.pause()
            runner.resume()
            times: dict[str, list[float]] = {"group": [], "tree": [], "tree (scan)": []}
            for _ in range(cycles):  # interleaved, so load on the machine falls on all alike
                t0 = time.perf_counter()
                group_pause(runner.process.pid)
                t1 = time.perf_counter()
                runner.pause()
                runner.resume()
                t2 = time.perf_counter()
                times["group"].append((t1 - t0) * 1e3)
                times["tree"].append((t2 - t1) * 1e3)
                if process_tree.CHILDREN_FILES:
                    process_tree.CHILDREN_FILES = False
                    t3 = time.perf_counter()
                    runner.pause()
                    runner.resume()
                    times["tree (scan)"].append((time.perf_counter() - t3) * 1e3)
                    process_tree.CHILDREN_FILES = True
            return {name: values for name, values in times.items() if values}
        finally:
            runner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cycles", type=int, default=300)
    args = parser.parse_args()
    processes = sum(1 for entry in os.scandir("/proc") if entry.name.isdigit())
    print(f"{processes} processes on this machine; /proc children files: {process_tree.CHILDREN_FILES}")
    print(f"\n{'runner':<16} {'pause':<12} {'median ms':>9} {'p90 ms':>7} {'ratio':>6}")
    for label, kernel in (("alone", RELU), ("with a helper", HELPER_KERNEL)):
        times = measure(kernel, args.cycles)
        base = statistics.median(times["group"])
        for name, values in times.items():
            p90 = statistics.quantiles(values, n=10)[-1]
            print(f"{label:<16} {name:<12} {statistics.median(values):>9.3f} {p90:>7.3f} "
                  f"{statistics.median(values) / base:>6.2f}")


if __name__ == "__main__":
    main()
