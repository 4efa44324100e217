"""Where the ring's ~5 GB/s goes: the same 4 GiB GPU-to-GPU reply between two processes, through a Ring file on
the job directory's filesystem (/tmp) and on tmpfs (/dev/shm), with one and with several copy threads per side,
and through a mapping of the tmpfs file that both sides register as pinned memory (`cudaHostRegister`), so each
chunk is one DMA out of the sender's GPU and one DMA into the reader's, with no CPU copy.

    python bench/bench_ring_memory.py [--gib 4] [--repeat 3]

The mapped way is a prototype written here, not the channel's code: it answers whether the channel should take
it. It also reports whether registering a mapping of a file on /tmp works (long-term pins of page-cache pages of
a disk filesystem are refused by recent kernels; tmpfs pages are not).
"""

from __future__ import annotations

import argparse
import mmap
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from validator.evaluate import channel
from validator.evaluate.worker.remote import _widen_pipes

THREADS = channel.COPY_THREADS
PLACES = {"tmp": Path("/tmp"), "shm": Path("/dev/shm")}
WAYS = [(f"ring {place} x{n}", place, n) for place in PLACES for n in (1, THREADS)] + [("mapped shm", "shm", 0)]
"""(name, where the file is, copy threads; 0: the registered mapping)."""


def registered(fd: int) -> tuple[mmap.mmap, torch.Tensor, int]:
    """The ring file mapped shared and registered with the CUDA driver: (mapping, a tensor over it, error code)."""
    mapping = mmap.mmap(fd, channel.Ring.SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    host = torch.frombuffer(mapping, dtype=torch.uint8)
    host.fill_(0)  # every page present before the pin
    code = torch.cuda.cudart().cudaHostRegister(host.data_ptr(), channel.Ring.SIZE, 0)
    return mapping, host, int(code)


def send_mapped(replies, requests, host: torch.Tensor, data: torch.Tensor) -> None:
    channel.send(replies, {"ok": True, "mapped": True})  # a header alone: the bytes follow through the mapping
    for i, start in enumerate(range(0, data.numel(), channel.STAGE)):
        size = min(channel.STAGE, data.numel() - start)
        if i >= 2:
            channel._token(requests)
        slot = host[(i % 2) * channel.STAGE:][:size]
        slot.copy_(data[start: start + size], non_blocking=True)
        torch.cuda.current_stream().synchronize()
        replies.write(channel.TOKEN)
        replies.flush()
    for _ in range(min(i + 1, 2)):
        channel._token(requests)


def read_mapped(stream, acks, host: torch.Tensor, count: int, device: torch.device) -> torch.Tensor:
    channel.read_header(stream)
    data = torch.empty(count, dtype=torch.uint8, device=device)
    for i, start in enumerate(range(0, count, channel.STAGE)):
        size = min(channel.STAGE, count - start)
        channel._token(stream)
        data[start: start + size].copy_(host[(i % 2) * channel.STAGE:][:size], non_blocking=True)
        torch.cuda.current_stream(device).synchronize()  # the slot is free once its DMA has ended
        acks.write(channel.TOKEN)
        acks.flush()
    return data


def pattern(nbytes: int) -> torch.Tensor:
    """The bytes the child sends, which the parent can make again to check what arrived."""
    generator = torch.Generator(device="cuda").manual_seed(20261127)
    return torch.randint(0, 255, (nbytes,), dtype=torch.uint8, device="cuda", generator=generator)


def child(nbytes: int, paths: dict[str, str], repeat: int) -> None:
    data = pattern(nbytes)
    requests, replies = sys.stdin.buffer.raw, sys.stdout.buffer
    rings = {place: channel.Ring.open(path) for place, path in paths.items()}
    _, host, _ = registered(rings["shm"].fd)
    for _ in range(repeat):
        for _name, place, threads in WAYS:
            if threads:
                channel.COPY_THREADS = threads
                channel.send(replies, {"ok": True}, [data], ring=rings[place], acks=requests)
            else:
                send_mapped(replies, requests, host, data)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gib", type=float, default=4.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(int(args.child[0]), {"tmp": args.child[1], "shm": args.child[2]}, args.repeat)
        return 0
    nbytes, device = int(args.gib * (1 << 30)), torch.device("cuda")
    paths = {place: root / f"kb-ring-bench-{os.getpid()}" for place, root in PLACES.items()}
    rings = {place: channel.Ring.create(path) for place, path in paths.items()}
    try:
        _, host, code = registered(rings["shm"].fd)
        print(f"cudaHostRegister of the /dev/shm mapping -> {code} (0: success)")
        proc = subprocess.Popen([sys.executable, __file__, "--repeat", str(args.repeat), "--child", str(nbytes),
                                 str(paths["tmp"]), str(paths["shm"])], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        _widen_pipes(proc)
        rates: dict[str, list[float]] = {name: [] for name, _, _ in WAYS}
        intact: dict[str, bool] = {}
        for _ in range(args.repeat):
            for name, place, threads in WAYS:
                started = time.perf_counter()
                if threads:
                    channel.COPY_THREADS = threads
                    _, described = channel.read_header(proc.stdout)
                    got = channel.read_tensors(proc.stdout, described, nbytes, device, ring=rings[place],
                                               acks=proc.stdin)[0]
                else:
                    got = read_mapped(proc.stdout, proc.stdin, host, nbytes, device)
                rates[name].append(nbytes / (time.perf_counter() - started) / 1e9)
                if name not in intact:
                    intact[name] = bool(torch.equal(got, pattern(nbytes)))
                del got
                torch.cuda.empty_cache()
        proc.wait()
        _, _, disk_code = registered(rings["tmp"].fd)  # last: a failed registration leaves a CUDA error set
        print(f"cudaHostRegister of a /tmp mapping -> {disk_code} (0: success)")
    finally:
        for path in paths.values():
            path.unlink(missing_ok=True)
    print(f"{args.gib:g} GiB reply GPU to GPU, {args.repeat} of each way, interleaved; {THREADS} threads where xN")
    for name, got in rates.items():
        print(f"{name:<16} {statistics.median(got):6.2f} GB/s (runs: {', '.join(f'{r:.2f}' for r in got)})"
              f"{'' if intact[name] else '  BYTES DIFFER'}")
    base = statistics.median(rates["ring tmp x1"])
    for name, got in rates.items():
        print(f"ratio {name} / ring tmp x1: {statistics.median(got) / base:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
