"""Where one problem's seconds and GPU memory go: each phase of the judge (`judge/run.py`'s
`Evaluation.phases`) timed, with the device's peak memory in use during it (judge and runner together).

Issue 21's bar is a one-problem run in 10 s from a warm cache, and issue 18 found upstream's full sizes
running out of memory; this says which phase costs what, at the sizes a kernel is judged at. It runs the
real judge in this process (the runner is its usual child, sandboxed when the machine can), one fresh
judge per kernel and run, so nothing here changes what is measured.

    python bench/bench_worker_phases.py [SUBMISSION.json] [--kernels FILE ...] [--repeat 2] [--out F.json]
    python bench/bench_worker_phases.py --interpret      # on a CPU, reduced sizes, no GPU phases

Helpers inside the phases (input generation, references, comparisons, the timing rounds) are timed too,
as seconds and calls. The first run of a kernel pays one-off costs (the CUDA context, Triton's compile).
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import json
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.catalogue.problems import load_catalogue  # noqa: E402
from validator.evaluate.jobs import Job  # noqa: E402
from validator.evaluate.judge import launch  # noqa: E402
from validator.evaluate.judge import run as judge  # noqa: E402
from validator.isolation.bwrap import machine_isolation  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402
from validator.submission.kernel_names import own_kernel_names  # noqa: E402

EXAMPLES = REPO / "submissions" / "kernelbench-team-examples.json"
HELPERS = (
    ("validator.catalogue.problem_module", "make_inputs"),
    ("validator.evaluate.correctness", "reference_output"),
    ("validator.evaluate.judge.precision", "normwise_error"),
    ("validator.evaluate.correctness", "compare_values"),
    ("validator.evaluate.digest", "output_digest"),
)
"""Looked up by module attribute at call time, so wrapping the attribute times every call; a name that no
longer exists is skipped (and listed), not an error."""


class PeakMemory:
    """The device's memory in use, sampled every 5 ms through NVML (so the runner's share counts too)."""

    def __init__(self, index: int = 0) -> None:
        import pynvml

        pynvml.nvmlInit()
        self.nvml, self.handle = pynvml, pynvml.nvmlDeviceGetHandleByIndex(index)
        self.peak = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.sample, daemon=True)
        self.thread.start()

    def used(self) -> int:
        return int(self.nvml.nvmlDeviceGetMemoryInfo(self.handle).used)

    def sample(self) -> None:
        while not self.stop.wait(0.005):
            self.peak = max(self.peak, self.used())

    def take(self) -> float:
        """The peak since the last take, in GiB; the next interval starts from what is in use now."""
        peak, self.peak = max(self.peak, self.used()), self.used()
        return peak / 2**30


@contextlib.contextmanager
def helper_timers() -> Iterator[tuple[dict[str, list[float]], list[str]]]:
    totals: dict[str, list[float]] = {}
    missing, saved = [], []
    for module_name, name in HELPERS:
        module = importlib.import_module(module_name)
        original = getattr(module, name, None)
        if original is None:
            missing.append(f"{module_name}.{name}")
            continue
        saved.append((module, name, original))

        def wrapper(*args: Any, _original: Any = original, _name: str = name, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                entry = totals.setdefault(_name, [0.0, 0])
                entry[0] += time.perf_counter() - started
                entry[1] += 1

        setattr(module, name, wrapper)
    try:
        yield totals, missing
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


def measured_judge(seconds: dict[str, float], gib: dict[str, float], memory: PeakMemory | None) -> type:
    class Measured(judge.Evaluation):
        def run(self) -> None:  # the judge's own loop, with the device's peak memory taken after each phase
            if memory:
                memory.take()
            try:
                super().run()
            finally:
                seconds.update(self.phase_seconds)

        def phases(self) -> list[Any]:
            def watched(phase: Any) -> Any:
                def call() -> None:
                    try:
                        phase()
                    finally:
                        if memory:
                            gib[phase.__name__] = memory.take()
                call.__name__ = phase.__name__
                return call
            return [watched(phase) for phase in super().phases()]

    return Measured


def job_for(entry: dict, problem: Any, kernel: Path, scratch: Path, *, interpret: bool, sandbox: str,
            ring_dir: Path | None = None) -> Job:  # fmt: skip
    source = kernel.read_bytes()
    return Job(key=problem.key, level=problem.level, problem_id=problem.problem_id, problem_path=str(problem.path),
               problem_sha256=problem.sha256, kernel_path=str(kernel), kernel_sha256=hashlib.sha256(source).hexdigest(),
               backend=entry["backend"], extensions_dir=str(scratch / "ext"), seed=time.time_ns() % (1 << 62),
               protocol=PROTOCOL.to_dict(), own_kernel_names=own_kernel_names(source.decode()),
               interpret=interpret, sandbox=sandbox, ring_dir=str(ring_dir or ""))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", type=Path, nargs="?", default=EXAMPLES)
    parser.add_argument("--kernels", nargs="*", help="kernel file names of the submission (default: all)")
    parser.add_argument("--interpret", action="store_true", help="CPU interpret mode at reduced sizes")
    parser.add_argument("--repeat", type=int, default=1, help="runs per kernel (the first pays one-off costs)")
    parser.add_argument("--out", type=Path, help="also write the rows as JSON here")
    args = parser.parse_args()
    document = json.loads(args.submission.read_text(encoding="utf-8"))
    catalogue = load_catalogue(REPO / "problems")
    sandbox = "none" if args.interpret else machine_isolation().sandbox
    memory = None if args.interpret else PeakMemory()
    if args.interpret:
        os.environ["TRITON_INTERPRET"] = "1"
    harness = Path(tempfile.mkdtemp(prefix="kb-phases-harness-"))  # the judges' Triton cache, as the stage sets it
    os.environ["TRITON_CACHE_DIR"] = os.environ["KB_HARNESS_TRITON_CACHE"] = str(harness)
    rows = []
    for entry in document["kernels"]:
        if args.kernels and entry["path"] not in args.kernels:
            continue
        problem = catalogue.resolve(entry["level"], entry["problem_id"], entry["problem_sha256"])
        kernel = args.submission.parent / args.submission.stem / entry["path"]
        for run in range(1, args.repeat + 1):
            seconds: dict[str, float] = {}
            gib: dict[str, float] = {}
            original = judge.Evaluation
            judge.Evaluation = measured_judge(seconds, gib, memory)
            try:
                with tempfile.TemporaryDirectory(prefix="kb-phases-") as tmp, helper_timers() as (helpers, missing), \
                        contextlib.ExitStack() as hold:
                    # the ring on tmpfs, pinned, as the scheduler gives a confined runner (else it lies in the job
                    # directory and every output is copied through pread: 4 GB/s instead of 40 on the H200)
                    ring = launch.ring_dir(hold) if sandbox == "bubblewrap" else None
                    started = time.perf_counter()
                    job = job_for(entry, problem, kernel, Path(tmp), interpret=args.interpret, sandbox=sandbox,
                                  ring_dir=ring)
                    result = judge.evaluate_job(job, Path(tmp))
                    total = time.perf_counter() - started
            finally:
                judge.Evaluation = original
            rows.append({"kernel": entry["path"], "problem": problem.key, "run": run, "total_s": total,
                         "seconds": seconds, "peak_gib": gib, "helpers": helpers, "status": result.status,
                         "speedup": result.speedup, "error": result.error[:300], "sandbox": sandbox})
            print(f"{entry['path']} run {run}: {total:.2f} s, {result.status}"
                  + (f" {result.speedup:.2f}x" if result.speedup else "") + f" {result.error[:160]}", flush=True)
            for name, spent in seconds.items():
                peak = f"  peak {gib[name]:6.1f} GiB" if name in gib else ""
                print(f"    {name:<28} {spent:8.3f} s{peak}")
            print("    helpers: " + ", ".join(f"{n} {s:.3f}/{int(c)}" for n, (s, c) in sorted(helpers.items())))
    if missing:
        print(f"helpers no longer found (not timed): {', '.join(missing)}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    shutil.rmtree(harness, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
