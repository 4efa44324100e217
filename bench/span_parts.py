"""Where an honest timed span's time goes, per call, for the reference and for a kernel, in one process.

Builds two runners' serving objects (`validator.evaluate.runner.serve.Runner`) in this process, one holding the
problem's reference (as the judge's twin does) and one the kernel, and times spans of their `go` in turn on the
same seeds, with no judge, no pipes and no second CUDA context. Per call it splits the span into the inputs'
making, the timed call (flush, events, call, synchronize) and the digest; the excess is the span less the events'
device time. If the two sides' excess differs here, the difference is the harness's own work around the calls
(not the crossing between processes), and the twin cannot pair it away.

With --attribute, the same spans again after the kernel's runner ran the judge's profiler pass (`attribute`, as
it does before timing): a profiler leaves CUPTI's callbacks in the process, and only the kernel's runner runs one.

    python bench/span_parts.py PROBLEM_KEY KERNEL.py [--calls K] [--spans N] [--reduced] [--attribute] [--json OUT]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def runners(problem_key: str, kernel_path: Path, reduced: bool, interpret: bool = False):
    """The twin's and the kernel's serving objects, loaded as the judge loads them, each with its parts recorded."""
    from validator.catalogue.problem_module import load_problem_module, reduced_sizes
    from validator.catalogue.problems import load_catalogue
    from validator.evaluate import correctness
    from validator.evaluate.runner import serve as runner_module

    catalogue = load_catalogue(REPO / "problems")
    (problem,) = [p for p in catalogue.every_version if p.key == problem_key]
    module = load_problem_module(problem.path, reduced=reduced)
    base = {"interpret": interpret, "backend": "triton", "model_seed": 3, "problem": str(problem.path),
            "problem_sha256": problem.sha256, "reduced": reduced,
            "reduced_sizes": reduced_sizes(module) if reduced else None}
    twin, kernel = runner_module.Runner(), runner_module.Runner()
    twin.load({**base, "reference": True})
    kernel.load({**base, "kernel": str(kernel_path), "kernel_sha256": hashlib.sha256(kernel_path.read_bytes())
                 .hexdigest()})
    for served in (twin, kernel):
        # Two guards in one process each see the other's thread-start hook as a patch; the guards run in `prepare`,
        # outside the spans measured here, so this bench leaves them out.
        served.guard = SimpleNamespace(before=lambda: None, after=lambda where: correctness.PASSED,
                                       ledger=served.guard.ledger)
        served.record = {}
        served.make = _recorded("make", served.make, served.record)
        served._timed = _recorded("timed", served._timed, served.record)
    return twin, kernel


def _recorded(name: str, fn, record: dict[str, list[float]]):
    def timed(*args):
        t0 = time.perf_counter()
        value = fn(*args)
        record.setdefault(name, []).append((time.perf_counter() - t0) * 1e3)
        return value
    return timed


def measure(twin, kernel, calls: int, spans: int, interpret: bool = False) -> dict[str, dict[str, list[float]]]:
    """Spans of both sides in turn (the order alternating), two warm-up spans each; per call, each part."""
    import torch

    from validator.evaluate.judge import timing
    from validator.evaluate.runner import serve as runner_module
    from validator.protocol import PROTOCOL

    flush_bytes = 0 if interpret else timing.flush_bytes(torch.device("cuda", 0), PROTOCOL.l2_flush_factor)
    parts = {side: {k: [] for k in ("make", "timed", "device", "digest", "excess")} for side in ("reference",
                                                                                                 "kernel")}
    digest_times: list[float] = []
    runner_module.output_digest = _recorded("digest", runner_module.output_digest, {"digest": digest_times})
    seed = 1000
    for s in range(spans + 2):
        pair = (("reference", twin), ("kernel", kernel))
        for side, served in pair if s % 2 else pair[::-1]:
            served.prepare({"fresh": s == 0, "flush_bytes": flush_bytes})
            served.record.clear()
            digest_times.clear()
            t0 = time.perf_counter()
            reply = served.go({"inputs": [{"seed": seed + j, "variant": "upstream", "variant_seed": 0}
                                          for j in range(calls)]})
            span = (time.perf_counter() - t0) * 1e3
            if s < 2:
                continue
            device = sum(reply["device_ms"])
            for key, value in (("make", sum(served.record["make"])), ("timed", sum(served.record["timed"])),
                               ("device", device), ("digest", sum(digest_times)), ("excess", span - device)):
                parts[side][key].append(value / calls)
        seed += calls
    return parts


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problem", help="a catalogue key of any track, e.g. level1/19_ReLU or level1/19_ReLU@91bfc2c")
    parser.add_argument("kernel", type=Path)
    parser.add_argument("--calls", type=int, default=29)
    parser.add_argument("--spans", type=int, default=40)
    parser.add_argument("--reduced", action="store_true", help="the problem's reduced sizes (the red-team's)")
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--interpret", action="store_true", help="a dry run on the CPU (sets TRITON_INTERPRET=1)")
    parser.add_argument("--attribute", action="store_true",
                        help="measure again after a profiler pass over the kernel's calls (GPU only)")
    args = parser.parse_args()
    if args.interpret:  # read by Triton when a kernel is decorated, so before the kernel's module loads
        os.environ["TRITON_INTERPRET"] = "1"
    twin, kernel = runners(args.problem, args.kernel, args.reduced, args.interpret)
    print(f"{args.problem} ({'reduced' if args.reduced else 'full'} sizes), {args.kernel.name}, {args.calls} calls "
          f"per span, {args.spans} spans per side; per call, median ms:")
    print(f"{'side':<22} {'make':>8} {'timed':>8} {'device':>8} {'digest':>8} {'excess':>8}")
    stages = ["before"] + (["after-profiler"] if args.attribute and not args.interpret else [])
    record: dict[str, object] = {"problem": args.problem, "kernel": args.kernel.name, "calls": args.calls}
    for stage in stages:
        if stage == "after-profiler":
            kernel.attribute({"inputs": [{"seed": 99_000 + j, "variant": "upstream", "variant_seed": 0}
                                         for j in range(3)], "own": []})
        parts = measure(twin, kernel, args.calls, args.spans, args.interpret)
        summary = {side: {k: statistics.median(v) for k, v in row.items()} for side, row in parts.items()}
        for side, row in summary.items():
            print(f"{side + ' ' + stage:<22} " + " ".join(f"{row[k]:>8.4f}" for k in row))
        record[stage] = {"summary": summary, "parts": parts}
    if args.json:
        args.json.write_text(json.dumps(record, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
