"""Throughput of the judge <-> runner channel for one reply of GPU tensors: through the pipe alone, and through
the shared ring (`channel.Ring`), in two processes as the judge and its runner are, interleaved in one run.

    python bench/bench_channel.py [--gib 4] [--repeat 3]

The sender is a child process (this file with --send) writing replies on its stdout; the parent reads them
onto its GPU as the judge reads outputs and prints GB/s per way, then the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validator.evaluate import channel
from validator.evaluate.judge.remote import _widen_pipes


def send(nbytes: int, ring_path: str, repeat: int, device: str) -> None:
    """The child: the same tensor `repeat` times per way, as the runner would send an output."""
    data = torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device=device)
    requests, replies = sys.stdin.buffer.raw, sys.stdout.buffer
    ring = channel.Ring.open(ring_path)
    for _ in range(repeat):
        for through in (None, ring):
            channel.send(replies, {"ok": True}, [data], ring=through, acks=requests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--device", default="cuda", help="cuda, or cpu for a dry run")
    parser.add_argument("--send", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.send:
        send(int(args.send[0]), args.send[1], args.repeat, args.device)
        return 0
    nbytes, device = int(args.gib * (1 << 30)), torch.device(args.device)
    with tempfile.TemporaryDirectory() as scratch:
        ring = channel.Ring.create(Path(scratch) / "ring")
        child = subprocess.Popen([sys.executable, __file__, "--repeat", str(args.repeat), "--device", args.device,
                                  "--send", str(nbytes),
                                  str(Path(scratch) / "ring")], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _widen_pipes(child)  # as the judge does for its runner
        rates: dict[str, list[float]] = {"pipe": [], "ring": []}
        for _ in range(args.repeat):
            for way, through in (("pipe", None), ("ring", ring)):
                started = time.perf_counter()
                _, described = channel.read_header(child.stdout)
                channel.read_tensors(child.stdout, described, nbytes, device, ring=through, acks=child.stdin)
                rates[way].append(nbytes / (time.perf_counter() - started) / 1e9)
                if device.type == "cuda":
                    torch.cuda.empty_cache()
        child.wait()
    print(f"{args.gib:g} GiB reply, {args.repeat} of each way, interleaved")
    for way, got in rates.items():
        print(f"{way:<5} {statistics.median(got):6.2f} GB/s (runs: {', '.join(f'{r:.2f}' for r in got)})")
    print(f"ring/pipe throughput ratio: {statistics.median(rates['ring']) / statistics.median(rates['pipe']):.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
