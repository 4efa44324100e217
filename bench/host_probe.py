"""How fast this machine's host is, in the three ways that reach a small problem's timings:

    python3 bench/host_probe.py [--calls N] [--json FILE]

- `import_s`: a fresh interpreter's `import torch` (the zygote's and every runner's start pay it);
- `python_ms`: a fixed pure-Python loop (the judge's and the runner's own bookkeeping);
- `event_ms`: CUDA events around one tiny op after a synchronize, as a runner times a call, median of N: on an idle
  GPU this is almost all the host's launch of the op, so it is the floor under a 20-us kernel's reported time.
Without a GPU `event_ms` is null. One line of JSON on stdout (and in FILE).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path


def import_seconds() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return time.perf_counter() - started


def python_ms() -> float:
    started = time.perf_counter()
    total = 0
    for i in range(2_000_000):
        total += i % 7
    return (time.perf_counter() - started) * 1e3


def event_ms(calls: int) -> float | None:
    import torch

    if not torch.cuda.is_available():
        return None
    x = torch.ones(1024, device="cuda")
    times = []
    for _ in range(calls):
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        x.relu()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times[calls // 10:])  # the first calls load the op's kernel


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--json", help="also write the line here")
    args = parser.parse_args()
    found = {"import_s": round(import_seconds(), 2), "python_ms": round(python_ms(), 1),
             "event_ms": event_ms(args.calls)}
    line = json.dumps(found)
    print(line)
    if args.json:
        Path(args.json).write_text(line + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
