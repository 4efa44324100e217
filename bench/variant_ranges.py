"""Which hidden variants the judge leaves out of each problem (protocol 24, `TrialInputs.out_of_range`): those on
which the reference's own output holds ±Inf while on upstream's draw it holds none. Reduced sizes on the CPU by
default (a reduction over fewer terms overflows less often: a lower bound of what the GPU run leaves out), or full
size on a GPU:

    python bench/variant_ranges.py [--root problems | problems/tracks/91bfc2c] [--device cuda:0] [--full] [KEY ...]

Prints one line per problem that loses a variant, then the count; a problem whose reference fails is named, not fatal.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import SimpleNamespace

import torch

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.catalogue.problem_module import load_problem_module, make_model  # noqa: E402
from validator.evaluate.judge.trial_inputs import TrialInputs  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402


class Probe(TrialInputs):
    def __init__(self, module: object, device: torch.device) -> None:
        self.job, self.protocol, self.problem = SimpleNamespace(seed=20261207), PROTOCOL, module
        self.device, self.gpu = device, device.type == "cuda"
        self.reference = make_model(module, self.seed("model"), device)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="*", help="levelL/<stem> (default: every problem under --root)")
    parser.add_argument("--root", type=Path, default=REPO / "problems")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--full", action="store_true", help="upstream's sizes (default: the overlay's reduced ones)")
    args = parser.parse_args()
    paths = [args.root / f"{key}.py" for key in args.keys] or sorted(args.root.glob("level[123]/*.py"))
    device, losing, failed = torch.device(args.device), 0, 0
    for path in paths:
        key = f"{path.parent.name}/{path.stem}"
        try:
            dropped = Probe(load_problem_module(path, reduced=not args.full), device).out_of_range
        except Exception as exc:  # a problem this machine cannot run (memory, a CUDA-only op): named, not fatal
            failed += 1
            print(f"{key}: not probed ({type(exc).__name__}: {str(exc)[:120]})", flush=True)
            continue
        if dropped:
            losing += 1
            print(f"{key}: {', '.join(dropped)}", flush=True)
    print(f"{losing} of {len(paths)} problems lose a variant; {failed} not probed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
