"""Peak memory of a runner's correctness call while a hidden input variant is made: the trial's input
buffers, the draw, and the variant made from it, by copy or in place (`make_variant(..., consume=True)`).

    python bench/variant_memory.py [--gib 1] [--device cuda]

Each way runs in a fresh process (on the CPU the peak is the process's maximum resident set; on a GPU,
torch's peak allocation). Prints the peak of each way in GiB and their ratio.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validator.evaluate.input_variants import make_variant

VARIANTS = ("negated", "standard-normal", "scaled-x3")


def one(gib: float, device: str, consume: bool) -> float:
    """Peak GiB of: buffers kept from the last trial, a fresh draw, then each variant of it in turn."""
    n = int(gib * (1 << 30)) // 4
    buffers = torch.zeros(n, device=device)
    base = _peak(device)
    for k, variant in enumerate(VARIANTS):
        torch.manual_seed(k)
        drawn = [torch.rand(n, device=device)]
        made = make_variant(drawn, variant, seed=k, consume=consume)
        buffers.copy_(made[0])
        del drawn, made
    return (_peak(device) - base) / (1 << 30) + gib  # the buffers' own GiB counted once


def _peak(device: str) -> float:
    if device == "cuda":
        torch.cuda.synchronize()
        return float(torch.cuda.max_memory_allocated())
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=1.0)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--one", choices=("copy", "consume"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(args.gib, args.device, args.one == "consume")))
        return 0
    peaks = {}
    for way in ("copy", "consume"):
        run = subprocess.run([sys.executable, __file__, "--gib", str(args.gib), "--device", args.device, "--one", way],
                             capture_output=True, text=True, check=True)
        peaks[way] = json.loads(run.stdout.strip().splitlines()[-1])
    print(f"device {args.device}, input {args.gib:g} GiB: peak copy {peaks['copy']:.2f} GiB, in place "
          f"{peaks['consume']:.2f} GiB, ratio {peaks['copy'] / peaks['consume']:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
