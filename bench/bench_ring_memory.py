"""Where the ring's bytes go: the same 4 GiB GPU-to-GPU reply between two processes, as the judge and its runner
exchange one, through a Ring file in /tmp (the job directory's disk, each side copying with pwrite and pread),
through one on tmpfs (/dev/shm) copied the same way, and through one on tmpfs that both sides pin
(`channel.Ring.pin`: one DMA per chunk on each side, no CPU copy). Interleaved in one run, with the ratios.

    python bench/bench_ring_memory.py [--gib 4] [--repeat 3]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validator.evaluate import channel
from validator.evaluate.judge import launch
from validator.evaluate.judge.remote import _widen_pipes

WAYS = (("copied, disk", "disk", False), ("copied, tmpfs", "tmpfs", False), ("pinned, tmpfs", "tmpfs", True))
"""(name, where the ring file is, whether both sides pin it), in the order each repeat runs them."""


def pattern(nbytes: int) -> torch.Tensor:
    """The bytes the child sends, which the parent makes again to check what arrived."""
    generator = torch.Generator(device="cuda").manual_seed(20261127)
    return torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device="cuda", generator=generator)


def child(nbytes: int, paths: list[str], repeat: int) -> None:
    data = pattern(nbytes)
    requests, replies = sys.stdin.buffer.raw, sys.stdout.buffer
    rings = {}
    for (name, _place, pinned), path in zip(WAYS, paths, strict=True):
        rings[name] = channel.Ring.open(path)
        if pinned and not rings[name].pin():
            raise SystemExit("the sender could not pin its ring")
    for _ in range(repeat):
        for name, _place, _pinned in WAYS:
            channel.send(replies, {"ok": True}, [data], ring=rings[name], acks=requests)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=1 + len(WAYS), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), args.child[1:], args.repeat)
        return 0
    nbytes, device = int(args.gib * (1 << 30)), torch.device("cuda")
    with contextlib.ExitStack() as hold:
        places = {"disk": Path(hold.enter_context(tempfile.TemporaryDirectory())), "tmpfs": launch.ring_dir(hold)}
        if places["tmpfs"] is None:
            raise SystemExit(f"no writable {launch.SHARED_MEMORY} here")
        paths = [places[place] / f"ring-{i}" for i, (_n, place, _p) in enumerate(WAYS)]
        rings = {name: channel.Ring.create(path) for (name, _place, _pinned), path in zip(WAYS, paths, strict=True)}
        for name, _place, pinned in WAYS:
            if pinned and not rings[name].pin():
                raise SystemExit("the reader could not pin its ring")
        proc = subprocess.Popen([sys.executable, __file__, "--repeat", str(args.repeat), "--child", str(nbytes),
                                 *map(str, paths)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _widen_pipes(proc)
        rates: dict[str, list[float]] = {name: [] for name, _, _ in WAYS}
        intact: dict[str, bool] = {}
        for _ in range(args.repeat):
            for name, _place, _pinned in WAYS:
                started = time.perf_counter()
                _, described = channel.read_header(proc.stdout)
                got = channel.read_tensors(proc.stdout, described, nbytes, device, ring=rings[name],
                                           acks=proc.stdin)[0]
                rates[name].append(nbytes / (time.perf_counter() - started) / 1e9)
                if name not in intact:
                    intact[name] = bool(torch.equal(got, pattern(nbytes)))
                del got
                torch.cuda.empty_cache()
        proc.wait()
        for ring in rings.values():
            ring.close()
    print(f"{args.gib:g} GiB reply GPU to GPU between two processes, {args.repeat} of each way, interleaved")
    for name, got in rates.items():
        print(f"{name:<14} {statistics.median(got):6.2f} GB/s (runs: {', '.join(f'{r:.2f}' for r in got)})"
              f"{'' if intact[name] else '  BYTES DIFFER'}")
    base = statistics.median(rates[WAYS[0][0]])
    for name, got in list(rates.items())[1:]:
        print(f"throughput ratio, {name} / {WAYS[0][0]}: {statistics.median(got) / base:.2f}")
    return 0 if all(intact.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
