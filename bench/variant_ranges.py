"""Where each problem's outputs leave float32's range: the hidden variants the judge leaves out (protocol 24,
`TrialInputs.out_of_range`: the reference's own output holds ±Inf there while on upstream's draw it holds none), and
with --subnormal the kinds of input on which the float64 reference has outputs below float32's smallest normal number,
which the comparisons against float64 leave out (protocol 25, `precision.normwise_error`). Reduced sizes on the CPU
by default (a reduction over fewer terms leaves the range less often: a lower bound of what the GPU run sees), or full
size on a GPU:

    python bench/variant_ranges.py [--root problems | problems/tracks/91bfc2c] [--device cuda:0] [--full]
                                   [--subnormal] [KEY ...]

Prints one line per problem that loses a variant (or has subnormal outputs: the largest share of positions, by kind),
then the counts; a problem whose reference fails is named, not fatal.
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
from validator.evaluate.correctness import float64_inputs, output_tensors  # noqa: E402
from validator.evaluate.judge.precision import Float64  # noqa: E402
from validator.evaluate.judge.trial_inputs import TrialInputs  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402


class Probe(TrialInputs):
    def __init__(self, module: object, device: torch.device) -> None:
        self.job, self.protocol, self.problem = SimpleNamespace(seed=20261207), PROTOCOL, module
        self.device, self.gpu = device, device.type == "cuda"
        self.reference = make_model(module, self.seed("model"), device)

    def subnormal(self) -> dict[str, float]:
        """Per kind of input, the share of the float64 reference's floating outputs that are non-zero below float32's
        smallest normal number, on one draw; only the kinds that have any."""
        # as the judge makes it (`Evaluation.load_float64`): a fresh instance, everything floating upcast
        model = Float64(make_model(self.problem, self.seed("model"), self.device), 1).model
        tiny, shares = torch.finfo(torch.float32).tiny, {}
        for n, kind in enumerate(self.allowed_kinds()):
            wide = float64_inputs(self.inputs({**self.spec(n, "range"), "variant": kind}))
            with torch.no_grad():
                outs = [o for o in output_tensors(model(*wide))[0] if o.is_floating_point() and o.numel()]
            share = max((float(((o != 0) & (o.abs() < tiny)).double().mean()) for o in outs), default=0.0)
            if share:
                shares[kind] = share
        return shares


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("keys", nargs="*", help="levelL/<stem> (default: every problem under --root)")
    parser.add_argument("--root", type=Path, default=REPO / "problems")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--full", action="store_true", help="upstream's sizes (default: the overlay's reduced ones)")
    parser.add_argument("--subnormal", action="store_true", help="also the float64 reference's subnormal outputs")
    args = parser.parse_args()
    paths = [args.root / f"{key}.py" for key in args.keys] or sorted(args.root.glob("level[123]/*.py"))
    device, losing, tiny, failed = torch.device(args.device), 0, 0, 0
    for path in paths:
        key = f"{path.parent.name}/{path.stem}"
        try:
            probe = Probe(load_problem_module(path, reduced=not args.full), device)
            dropped, shares = probe.out_of_range, probe.subnormal() if args.subnormal else {}
        except Exception as exc:  # a problem this machine cannot run (memory, a CUDA-only op): named, not fatal
            failed += 1
            print(f"{key}: not probed ({type(exc).__name__}: {str(exc)[:120]})", flush=True)
            continue
        losing, tiny = losing + bool(dropped), tiny + bool(shares)
        if dropped:
            print(f"{key}: {', '.join(dropped)}", flush=True)
        if shares:
            print(f"{key}: subnormal {', '.join(f'{kind} {share:.3g}' for kind, share in shares.items())}", flush=True)
    print(f"{losing} of {len(paths)} problems lose a variant; "
          + (f"{tiny} have subnormal float64 outputs; " if args.subnormal else "") + f"{failed} not probed")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
