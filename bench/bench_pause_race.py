"""How often a runner stopped and continued at once after its start is left stopped, and whether the judge's two
rules (`validator/isolation/process_tree.py`) keep every start answering. CPU only; run it on a busy
machine (the race needs load), e.g. beside `yes > /dev/null` x3 on 2 cores:

    python bench/bench_pause_race.py --trials 30

Modes, each `--trials` fresh runners (bubblewrap when present, as the judge starts them):
  bare       SIGSTOP then SIGCONT the group at once, then wait for "started" with nothing else (the old judge)
  unsticker  the same stop and continue, then wait under the watchdog's check (`process_tree.Tree.tick`)
  pause      the judge's own `Runner.pause()` and `resume()` (waits for "started" first)
A start is "stuck" when its first message has not come in STUCK_S seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import tempfile
import threading
import time
from pathlib import Path

from validator.evaluate.jobs import Job
from validator.evaluate.judge.remote import Runner
from validator.isolation.bwrap import machine_isolation
from validator.protocol import PROTOCOL

REPO = Path(__file__).resolve().parents[1]
STUCK_S = 20.0


def _job(tmp: Path) -> Job:
    kernel = REPO / "tests" / "redteam" / "control" / "relu_triton.py"
    problem = REPO / "problems" / "level1" / "19_ReLU.py"
    return Job(key="level1/19_ReLU", level=1, problem_id=19, problem_path=str(problem),
               problem_sha256=hashlib.sha256(problem.read_bytes()).hexdigest(), kernel_path=str(kernel),
               kernel_sha256=hashlib.sha256(kernel.read_bytes()).hexdigest(), backend="triton",
               extensions_dir=str(tmp / "ext"), seed=1, protocol=PROTOCOL.to_dict(), own_kernel_names=(),
               interpret=True, sandbox=machine_isolation().sandbox)  # fmt: skip


def trial(mode: str, tmp: Path) -> tuple[bool, bool]:
    """(stuck, continued by the watchdog) for one fresh runner."""
    runner = Runner(_job(tmp), tmp, machine_isolation().sandbox)
    done = threading.Event()
    try:
        if mode == "pause":
            work = lambda: (runner.pause(), runner.resume())  # noqa: E731
        else:
            runner.tree.pause()  # the old judge's pause: at once, not waiting for "started"
            runner.tree.resume()
            if mode == "unsticker":
                runner.watchdog.arm(None, "start")
            work = runner._await_ready
        thread = threading.Thread(target=lambda: (work(), done.set()), daemon=True)
        thread.start()
        thread.join(STUCK_S)
        return not done.is_set(), bool(runner.tree.continued)
    finally:
        runner.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--modes", default="bare,unsticker,pause")
    args = parser.parse_args()
    rows = []
    for mode in args.modes.split(","):
        stuck = continued = 0
        started = time.monotonic()
        for i in range(args.trials):
            with tempfile.TemporaryDirectory() as tmp:
                was_stuck, was_continued = trial(mode, Path(tmp))
            stuck += was_stuck
            continued += was_continued
            print(f"{mode} {i + 1}/{args.trials}: {'STUCK' if was_stuck else 'ok'}"
                  f"{' (continued)' if was_continued else ''}", flush=True)
        rows.append((mode, args.trials, stuck, continued, time.monotonic() - started))
    print(f"\n{'mode':<10} {'starts':>6} {'stuck':>6} {'continued':>9} {'seconds':>8}")
    for mode, n, stuck, continued, seconds in rows:
        print(f"{mode:<10} {n:>6} {stuck:>6} {continued:>9} {seconds:>8.1f}")


if __name__ == "__main__":
    main()
