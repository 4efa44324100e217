"""How far a problem's fp32 reference is from the same Model run in float64, on upstream's own inputs.

The evidence behind an overlay's tolerances or input scales (validator/catalogue/overlay.py): a kernel as
accurate as the reference but rounded differently can only be judged fairly where this distance is well
inside the tolerance. Runs at full size on the CPU or on cuda:0 (slow on a CPU for level-3 networks):

    python bench/conditioning.py level3/45_UNetSoftmax [--device cuda:0] [--scales 1 0.01 100] [--seed 0]
"""

from __future__ import annotations

import argparse
import copy
import sys
from pathlib import Path

import torch

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.catalogue.problem_module import load_problem_module, make_inputs, make_model  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("key", help="levelL/<id>_<Name>")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--scales", type=float, nargs="+", default=[1.0])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    module = load_problem_module(REPO / "problems" / f"{args.key}.py", reduced=False)
    model = make_model(module, args.seed, args.device)
    wide = copy.deepcopy(model).double()
    for scale in args.scales:
        inputs = make_inputs(module, args.seed, args.device)
        inputs = [x * scale if torch.is_tensor(x) and x.is_floating_point() else x for x in inputs]
        with torch.no_grad():
            torch.manual_seed(args.seed)
            out = model(*inputs)
            torch.manual_seed(args.seed)
            ref = wide(*[x.double() if torch.is_tensor(x) and x.is_floating_point() else x for x in inputs])
        err = (out.double() - ref).abs()
        # the smallest tolerance t (atol = rtol = t) at which the fp32 output is within t of float64
        needed = (err / (1 + ref.abs())).max().item()
        print(f"{args.key} x{scale:g}: max |fp32 - fp64| {err.max().item():.3g}, "
              f"norm-wise {(err.norm() / ref.norm()).item():.3g}, needs atol = rtol >= {needed:.3g}")


if __name__ == "__main__":
    main()
