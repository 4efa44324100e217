"""Where a worker's seconds go: each phase of `validator.worker.Evaluation` timed, for a few committed kernels.

The evaluation stage costs about 3.3 s per problem on the H200 (100 full-size ReLU kernels in 326 s), and
issue 4's warm-cache target needs under 3. This runs the real worker code in this process, one fresh
Evaluation per kernel, wrapping each phase method with a timer; phases are timed as the worker runs them,
so nothing here changes what is measured. Process start-up is not included (see bench_spawn.py), nor the
imports a forked worker finds done (the zygote's preloads are imported first).

    python bench/bench_worker_phases.py [--kernels level1_19_relu_cuda.py ...] [--out FILE.json]
    python bench/bench_worker_phases.py --interpret     # on a CPU, reduced sizes, no GPU phases

The CUDA example compiles its extension inside `import_kernel` (a fresh extensions directory each run), so
read that phase of it as build time.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.catalogue import load_catalogue  # noqa: E402
from validator.jobs import Job  # noqa: E402
from validator.kernel_names import own_kernel_names  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402
from validator.submission import submission_from_document  # noqa: E402
from validator.worker import Evaluation, Stop, protocol_from_dict  # noqa: E402
from validator.zygote import OPTIONAL_PRELOAD, PRELOAD  # noqa: E402

SUBMISSION = REPO / "submissions" / "kernelbench-team-examples.json"
PHASES = ("setup", "compute_references", "guard", "import_kernel", "build_kernel_model", "check_correctness",
          "check_precision", "attribute", "time")


def job_for(entry, problem, options: dict, scratch: Path) -> Job:
    source = entry.file.read_text(encoding="utf-8")
    return Job(key=problem.key, level=problem.level, problem_id=problem.problem_id, problem_path=str(problem.path),
               problem_sha256=problem.sha256, kernel_path=str(entry.file.resolve()),
               kernel_sha256=hashlib.sha256(source.encode()).hexdigest(), backend=entry.backend,
               extensions_dir=str(scratch / "ext"), seed=20261122, protocol=PROTOCOL.to_dict(),
               own_kernel_names=own_kernel_names(source), options=options)


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
    return seconds, ending


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="*", help="kernel file names of the example submission (default: all)")
    parser.add_argument("--interpret", action="store_true", help="CPU interpret mode at reduced sizes")
    parser.add_argument("--out", type=Path, help="also write the timings as JSON here")
    args = parser.parse_args()
    submission = submission_from_document(json.loads(SUBMISSION.read_text(encoding="utf-8")), SUBMISSION)
    catalogue = load_catalogue()
    options = {"interpret": True} if args.interpret else {}
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
            seconds, ending = timed_run(job_for(entry, problem, options, Path(scratch)))
            rows.append({"kernel": entry.path, "problem": problem.key, "seconds": seconds, "ending": ending})
    print(f"{'kernel':36} " + " ".join(f"{p[:11]:>11}" for p in PHASES) + f" {'total':>7}")
    for row in rows:
        cells = " ".join(f"{row['seconds'].get(p, float('nan')):>11.3f}" for p in PHASES)
        print(f"{row['kernel'][:36]:36} {cells} {sum(row['seconds'].values()):>7.2f}  {row['ending'][:60]}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
