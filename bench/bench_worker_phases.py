"""Where a worker's seconds go: each phase of `validator.evaluate.worker.run.Evaluation` timed, for a few
committed kernels.

The evaluation stage costs about 3.3 s per problem on the H200 (100 full-size ReLU kernels in 326 s), and
issue 4's warm-cache target needs under 3. This runs the real worker code in this process, one fresh
Evaluation per kernel, wrapping each phase method with a timer; phases are timed as the worker runs them,
so nothing here changes what is measured. Process start-up is not included (see bench_spawn.py), nor the
imports a forked worker finds done (the zygote's preloads are imported first).

    python bench/bench_worker_phases.py [--kernels level1_19_relu_cuda.py ...] [--out FILE.json]
    python bench/bench_worker_phases.py --interpret     # on a CPU, reduced sizes, no GPU phases
    python bench/bench_worker_phases.py --repeat 2 --cprofile DIR --process

Each kernel runs `--repeat` times (the first run pays one-off costs: the CUDA context, the profiler's
start-up, a cold extension build). Inside the phases, the harness's helpers (input generation, the
value comparisons, the profiler pass, the timing rounds) are timed too, as seconds and calls. `--cprofile`
writes each kernel's last run as a cProfile listing; `--process` measures what a fresh worker process
costs outside `Evaluation`: importing torch, creating the CUDA context, and exiting with memory held.

The CUDA example compiles its extension inside `import_kernel` (a fresh extensions directory each run), so
read that phase of it as build time.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import hashlib
import importlib
import io
import json
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.catalogue.problems import load_catalogue  # noqa: E402
from validator.evaluate.jobs import Job  # noqa: E402
from validator.evaluate.worker.run import Evaluation  # noqa: E402
from validator.evaluate.worker.stops import Stop  # noqa: E402
from validator.isolation.zygote import OPTIONAL_PRELOAD, PRELOAD  # noqa: E402
from validator.protocol import PROTOCOL, protocol_from_dict  # noqa: E402
from validator.submission.kernel_names import own_kernel_names  # noqa: E402
from validator.submission.records import submission_from_document  # noqa: E402

SUBMISSION = REPO / "submissions" / "kernelbench-team-examples.json"
HELPERS = (
    ("validator.catalogue.problem_module", "make_inputs"),
    ("validator.catalogue.problem_module", "make_model"),
    ("validator.evaluate.worker.correctness", "reference_outputs"),
    ("validator.evaluate.worker.precision", "precision_references"),
    ("validator.evaluate.worker.correctness", "compare_values"),
    ("validator.evaluate.worker.correctness", "output_scale"),
    ("validator.evaluate.worker.correctness", "inputs_unchanged"),
    ("validator.evaluate.worker.precision", "normwise_error"),
    ("validator.evaluate.worker.integrity", "attribute_gpu_time"),
    ("validator.evaluate.worker.timing", "run_rounds"),
)
"""Helpers looked up by module attribute at call time, so wrapping the attribute times every call."""
PHASES = (
    "setup",
    "compute_references",
    "guard",
    "import_kernel",
    "build_kernel_model",
    "check_correctness",
    "check_precision",
    "attribute",
    "time",
)


def job_for(entry, problem, interpret: bool, scratch: Path) -> Job:
    source = entry.file.read_text(encoding="utf-8")
    return Job(
        key=problem.key,
        level=problem.level,
        problem_id=problem.problem_id,
        problem_path=str(problem.path),
        problem_sha256=problem.sha256,
        kernel_path=str(entry.file.resolve()),
        kernel_sha256=hashlib.sha256(source.encode()).hexdigest(),
        backend=entry.backend,
        extensions_dir=str(scratch / "ext"),
        seed=20261122,
        protocol=PROTOCOL.to_dict(),
        own_kernel_names=own_kernel_names(source),
        interpret=interpret,
    )


@contextlib.contextmanager
def helper_timers() -> Iterator[dict[str, list[float]]]:
    """Wrap every HELPERS function; yields {name: [seconds, calls]} filled as they run."""
    totals: dict[str, list[float]] = {}
    saved = []
    for module_name, name in HELPERS:
        module = importlib.import_module(module_name)
        original = getattr(module, name)
        saved.append((module, name, original))

        def wrapper(*args, _original=original, _name=name, **kwargs):
            started = time.perf_counter()
            try:
                return _original(*args, **kwargs)
            finally:
                entry = totals.setdefault(_name, [0.0, 0])
                entry[0] += time.perf_counter() - started
                entry[1] += 1

        setattr(module, name, wrapper)
    try:
        yield totals
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


def timed_run(job: Job) -> tuple[dict[str, float], str]:
    """Seconds per phase of one evaluation, and how it ended."""
    evaluation = Evaluation(job, protocol_from_dict(job.protocol))
    seconds: dict[str, float] = {}
    for name in PHASES:
        method = getattr(evaluation, name)

        def timed(method=method, name=name) -> object:
            started = time.perf_counter()
            try:
                return method()
            finally:
                seconds[name] = time.perf_counter() - started

        setattr(evaluation, name, timed)
    try:
        evaluation.run()
        ending = "ran every phase"
    except Stop as stop:
        ending = f"stopped: {stop.code}: {stop.message[:120]}"
    if evaluation.series is not None:
        ending += f"; {len(evaluation.series.ref_ms)} timing rounds ({evaluation.series.stop})"
    return seconds, ending


PROCESS_PROBE = """
import sys, time
t0 = time.perf_counter()
import torch
t1 = time.perf_counter()
torch.cuda.init(); torch.empty(1, device="cuda"); torch.cuda.synchronize()
t2 = time.perf_counter()
held = [torch.empty(int(sys.argv[1]) << 28, device="cuda") for _ in range(int(sys.argv[2]))]
torch.cuda.synchronize()
t3 = time.perf_counter()
print(f"{t1 - t0:.3f} {t2 - t1:.3f} {t3 - t2:.3f}", flush=True)
if sys.argv[3] == "os._exit":  # how a zygote-forked worker ends: no interpreter shutdown
    import os
    os._exit(0)
"""


def process_costs(gib: int = 2, tensors: int = 10) -> dict[str, float]:
    """A fresh process's import, CUDA context and allocation seconds, and how long its exit takes after it
    prints (the exit frees `tensors` tensors of `gib` GiB), ending normally and by os._exit."""
    import subprocess

    costs: dict[str, float] = {}
    for ending in ("return", "os._exit"):
        started = time.perf_counter()
        argv = [sys.executable, "-c", PROCESS_PROBE, str(gib), str(tensors), ending]
        child = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        line = child.stdout.readline() if child.stdout else ""
        printed = time.perf_counter()
        child.wait()
        ended = time.perf_counter()
        import_s, context_s, alloc_s = (float(x) for x in line.split())
        costs.update({"import_torch": import_s, "cuda_context": context_s, f"alloc_{gib * tensors}_gib": alloc_s,
                      f"spawn_to_exit ({ending})": ended - started, f"exit_after_print ({ending})": ended - printed})
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="*", help="kernel file names of the example submission (default: all)")
    parser.add_argument("--interpret", action="store_true", help="CPU interpret mode at reduced sizes")
    parser.add_argument("--out", type=Path, help="also write the timings as JSON here")
    parser.add_argument("--repeat", type=int, default=1, help="runs per kernel (the first pays one-off costs)")
    parser.add_argument("--cprofile", type=Path, help="directory for a cProfile listing of each kernel's last run")
    parser.add_argument("--process", action="store_true", help="also measure a fresh process's fixed costs")
    args = parser.parse_args()
    process = process_costs() if args.process else {}
    submission = submission_from_document(json.loads(SUBMISSION.read_text(encoding="utf-8")), SUBMISSION)
    catalogue = load_catalogue()
    if args.interpret:
        os.environ["TRITON_INTERPRET"] = "1"  # as evaluate_job does; read when kernels are launched
    for name in (*PRELOAD, *OPTIONAL_PRELOAD):  # what a forked worker finds imported already
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    rows = []
    with tempfile.TemporaryDirectory(prefix="kb-phases-") as scratch:
        for entry in submission.kernels:
            if args.kernels and entry.path not in args.kernels:
                continue
            problem = catalogue.get(entry.level, entry.problem_id)
            for run in range(1, args.repeat + 1):
                job = job_for(entry, problem, args.interpret, Path(scratch))
                profiler = cProfile.Profile() if args.cprofile and run == args.repeat else None
                with helper_timers() as helpers:
                    if profiler:
                        profiler.enable()
                    seconds, ending = timed_run(job)
                    if profiler:
                        profiler.disable()
                if profiler:
                    args.cprofile.mkdir(parents=True, exist_ok=True)
                    listing = io.StringIO()
                    pstats.Stats(profiler, stream=listing).sort_stats("cumulative").print_stats(45)
                    (args.cprofile / f"{Path(entry.path).stem}.txt").write_text(listing.getvalue())
                rows.append(
                    {
                        "kernel": entry.path,
                        "run": run,
                        "problem": problem.key,
                        "seconds": seconds,
                        "helpers": helpers,
                        "ending": ending,
                    }
                )
    print(f"{'kernel':34} {'run':>3} " + " ".join(f"{p[:11]:>11}" for p in PHASES) + f" {'total':>7}")
    for row in rows:
        cells = " ".join(f"{row['seconds'].get(p, float('nan')):>11.3f}" for p in PHASES)
        print(
            f"{row['kernel'][:34]:34} {row['run']:>3} {cells} {sum(row['seconds'].values()):>7.2f}  "
            f"{row['ending'][:90]}"
        )
    print("helpers (seconds/calls), inside the phases above:")
    for row in rows:
        cells = ", ".join(f"{name} {s:.3f}/{int(n)}" for name, (s, n) in sorted(row["helpers"].items()))
        print(f"  {row['kernel'][:34]} run {row['run']}: {cells}")
    if process:
        print("fresh process: " + ", ".join(f"{k} {v:.3f} s" for k, v in process.items()))
    if args.out:
        args.out.write_text(json.dumps({"rows": rows, "process": process}, indent=1))


if __name__ == "__main__":
    main()
