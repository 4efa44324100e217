"""The runner's host time per timed call, with the harness's seeding and with `torch.manual_seed` in its place.

Inside the judge's span the runner makes each call's inputs from the judge's seed (`Runner.make`), so whatever the
seeding costs is host time on both sides of the timing bound, and its jitter is noise the bound must allow for. This
runs `Runner._span` in this process (no judge, no sandbox; on the CPU, or with --gpu on CUDA device 0, the runner's
flush before each call) over a small problem, alternating the two seedings span by span, and prints each one's
median per call, its spread over the spans (MAD: the bound's noise is a spread) and their ratio: one run, one
machine, so the ratio holds where the machine is shared.

    python bench/span_seed_cost.py [PROBLEM.py] [--spans N] [--calls K] [--gpu] [--profile N]

--profile N then profiles N more spans with the harness's seeding (cProfile, by own time): where the rest of a call's
host time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import torch  # noqa: E402
import torch._dynamo  # noqa: E402  (the runner imports the compilers first; dynamo wraps torch.manual_seed)

from validator.catalogue import problem_module  # noqa: E402
from validator.evaluate.runner import integrity  # noqa: E402
from validator.evaluate.runner.serve import Runner  # noqa: E402

SMALL = REPO / "problems/tracks/91bfc2c/level2/56_Matmul_Sigmoid_Sum.py"
VARIANTS = ("upstream", "negated", "scaled-x3", "standard-normal")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problem", nargs="?", type=Path, default=SMALL)
    parser.add_argument("--spans", type=int, default=60)
    parser.add_argument("--calls", type=int, default=32)
    parser.add_argument("--gpu", action="store_true", help="CUDA device 0, as the runner times there")
    parser.add_argument("--profile", type=int, default=0, metavar="N", help="then profile N spans")
    args = parser.parse_args()
    module = problem_module.load_problem_module(args.problem, reduced=False)
    runner = Runner()
    runner._start_device(interpret=not args.gpu)
    runner._flush_buffer(1 << 28)
    runner.problem, runner.guard = module, integrity.Guard(None)
    model = module.Model(*module.get_init_inputs()).to(runner.device)
    specs = [{"seed": i, "variant": VARIANTS[i % 4], "variant_seed": 3} for i in range(args.calls)]
    harness = problem_module.seed_generators
    ways = {"seed_generators": harness, "torch.manual_seed": torch.manual_seed}
    per_call: dict[str, list[float]] = {name: [] for name in ways}
    for span in range(args.spans + 2):
        for name, seed in ways.items():
            problem_module.seed_generators = seed
            started = time.perf_counter()
            runner._span(model, specs)
            if span >= 2:  # the first two spans of each warm up
                per_call[name].append((time.perf_counter() - started) / args.calls * 1e6)
    problem_module.seed_generators = harness
    print(f"{args.problem.name} on {runner.device}: {args.calls} calls a span, {args.spans} spans each, alternating; "
          "per call, us")
    medians = {name: statistics.median(values) for name, values in per_call.items()}
    for name, values in per_call.items():
        mad = statistics.median(abs(v - medians[name]) for v in values)
        print(f"  {name:18s} median {medians[name]:8.1f}  MAD {mad:6.1f}  min {min(values):8.1f}  "
              f"max {max(values):8.1f}")
    ratio = medians["torch.manual_seed"] / medians["seed_generators"]
    print(f"  ratio torch.manual_seed / seed_generators: {ratio:.2f}")
    if args.profile:
        profile = cProfile.Profile()
        profile.runcall(lambda: [runner._span(model, specs) for _ in range(args.profile)])
        pstats.Stats(profile, stream=sys.stdout).sort_stats("tottime").print_stats(18)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
