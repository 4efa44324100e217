"""The judge <-> runner wire format: a length-prefixed JSON header, then the raw bytes of its tensors.

No pickle crosses the boundary: the judge parses a header of plain JSON and builds each tensor itself
from a dtype it looks up in a fixed table, a shape of non-negative integers and exactly the bytes that
dtype and shape need. A header larger than HEADER_CAP, an unknown dtype or a payload beyond the reader's
byte budget is a `ChannelError` (the judge turns it into a status), never an exception from deep inside
torch. Tensors travel through host memory, so this works between processes of different uids and
namespaces, on the CPU and on a GPU alike (see the threat-model page for why not CUDA IPC).
"""

from __future__ import annotations

import json
import math
import os
import struct
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import torch

HEADER_CAP = 1 << 20
"""Bytes a header may take; a longer one is a protocol error."""
DTYPES = {
    str(d).removeprefix("torch."): d for d in (
        torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.complex64, torch.complex128,
        torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.bool,
    )
}  # fmt: skip
"""The dtypes a tensor may have on the wire, by name."""
_LENGTH = struct.Struct("<I")
STAGE = 32 << 20
"""Bytes per chunk of a GPU tensor's transfer (two pinned buffers of this size per process)."""
COPY_THREADS = max(1, min(4, os.cpu_count() or 1))
"""Threads that copy one chunk into or out of a Ring's slot, each a contiguous part of it. One thread's pwrite or
pread moves about 5-7 GB/s between a process's buffer and the page cache, and that copy was the ring's limit."""
PART_MIN = 1 << 20
"""No part of a chunk smaller than this: below it a thread costs more than it copies."""


class ChannelError(Exception):
    """The other side broke the wire format, sent too much, or closed the channel."""


@dataclass(frozen=True)
class Described:
    """One tensor as a header describes it, before its bytes are read."""

    dtype: str
    shape: tuple[int, ...]
    kind: str = "Tensor"
    """The exact class name the sender saw (a subclass is reported, never sent)."""

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * DTYPES[self.dtype].itemsize


def describe(t: torch.Tensor) -> dict[str, Any]:
    return {"dtype": str(t.dtype).removeprefix("torch."), "shape": list(t.shape), "kind": type(t).__name__}


def send(stream: IO[bytes], header: dict[str, Any], tensors: Sequence[torch.Tensor] = (), *,
         ring: Ring | None = None, acks: IO[bytes] | None = None) -> None:  # fmt: skip
    """Write one message: the header (with a `tensors` list added) and each tensor's bytes, host-side: on the
    stream itself, or through `ring`'s slots when given (then `acks` is the stream the reader acknowledges on)."""
    header = {**header, "tensors": [describe(t) for t in tensors]}
    raw = json.dumps(header).encode()
    stream.write(_LENGTH.pack(len(raw)) + raw)
    slots = _RingWriter(stream, ring, acks) if ring is not None and acks is not None else None
    for t in tensors:
        flat = t.detach().contiguous().reshape(-1)  # 1-D: a 0-dim tensor cannot be viewed as bytes
        for piece in _host_pieces(flat.view(torch.uint8)):
            if slots is not None:
                slots.put(piece)
            else:
                stream.write(piece)
    stream.flush()
    if slots is not None:
        slots.finish()


_LOCAL = threading.local()


def _staging() -> tuple[torch.Tensor, torch.Tensor]:
    """Two pinned host buffers per thread: a GPU tensor crosses in STAGE-byte chunks, the copy of one chunk
    overlapping the transfer of the other, on both sides (per thread, so a sender and a reader in one process
    never share one). Measured on the H200 (level1/5, ten 4 GiB replies through the pipe): 78 s as one pageable
    copy, one write and a copy back; 54 s staged on the judge's side only; 27 s staged on both."""
    if not hasattr(_LOCAL, "buffers"):
        _LOCAL.buffers = tuple(torch.empty(STAGE, dtype=torch.uint8, pin_memory=True) for _ in range(2))
    return _LOCAL.buffers


def _host_pieces(data: torch.Tensor) -> Iterator[memoryview]:
    """A 1-D uint8 tensor's bytes as host memory, STAGE bytes at a time. A GPU tensor's next chunk is copied
    into the other pinned buffer while the consumer writes this one out (it has finished with that buffer's
    previous chunk when it asks for the next)."""
    if not data.numel():
        return
    if not data.is_cuda:
        view = memoryview(data.numpy())
        for start in range(0, len(view), STAGE):
            yield view[start: start + STAGE]
        return
    buffers, events = _staging(), [torch.cuda.Event(), torch.cuda.Event()]
    starts = range(0, data.numel(), STAGE)

    def stage(i: int) -> None:
        part = data[starts[i]: starts[i] + STAGE]
        buffers[i % 2][: part.numel()].copy_(part, non_blocking=True)
        events[i % 2].record()

    stage(0)
    for i, start in enumerate(starts):
        if i + 1 < len(starts):
            stage(i + 1)
        events[i % 2].synchronize()
        yield memoryview(buffers[i % 2].numpy())[: min(STAGE, data.numel() - start)]


TOKEN = b"\x01"
"""One byte on a pipe: a chunk is in its slot (runner to judge), or the judge has read it out (judge to runner)."""


class Ring:
    """Two STAGE-byte slots in a file the judge creates in the runner's job directory before any submitted code
    runs. A reply's tensor bytes cross it chunk by chunk, each announced by a TOKEN on the reply pipe and released
    by a TOKEN on the request pipe: one copy into the file and one out on each side, instead of a pipe's 1 MiB
    round trips. The judge only ever reads the file with pread into its own buffers, so a runner that truncates,
    replaces or rewrites it makes its own reply short or wrong (a ChannelError, or outputs that fail), and
    nothing it does to the file can fault the judge. Measured on the H200 (`bench/bench_channel.py`, a 4 GiB
    reply from the GPU to the GPU, two processes): 6.1 GB/s through the ring, 1.7 GB/s through the pipe."""

    SIZE = 2 * STAGE

    def __init__(self, fd: int) -> None:
        self.fd = fd

    @classmethod
    def create(cls, path: Path) -> Ring:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.ftruncate(fd, cls.SIZE)
        return cls(fd)

    @classmethod
    def open(cls, path: str) -> Ring:
        return cls(os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC))

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


class _RingWriter:
    """The sending side of one message through a Ring."""

    def __init__(self, stream: IO[bytes], ring: Ring, acks: IO[bytes]) -> None:
        self.stream, self.ring, self.acks, self.chunks = stream, ring, acks, 0

    def put(self, piece: memoryview) -> None:
        if self.chunks >= 2:
            _token(self.acks)  # the reader is done with this slot's previous chunk
        _in_parts(piece, (self.chunks % 2) * STAGE, self._write)
        self.stream.write(TOKEN)
        self.stream.flush()
        self.chunks += 1

    def _write(self, part: memoryview, offset: int) -> None:
        done = 0
        while done < len(part):
            done += os.pwrite(self.ring.fd, part[done:], offset + done)

    def finish(self) -> None:
        for _ in range(min(self.chunks, 2)):  # every acknowledgement read: none is left to be taken for a request
            _token(self.acks)


def _token(stream: IO[bytes]) -> None:
    got = bytearray(1)
    _fill(stream, memoryview(got), mid_message=True)
    if bytes(got) != TOKEN:
        raise ChannelError("a byte other than a chunk token between a message's chunks")


class _Source:
    """Where the reader's chunks of one message come from: the stream itself, or a Ring's slots."""

    def __init__(self, stream: IO[bytes], ring: Ring | None, acks: IO[bytes] | None) -> None:
        self.stream, self.ring, self.acks, self.chunks = stream, ring, acks, 0

    def fill(self, view: memoryview) -> None:
        if self.ring is None or self.acks is None:
            _fill(self.stream, view, mid_message=True)
            return
        _token(self.stream)
        _in_parts(view, (self.chunks % 2) * STAGE, self._read)
        try:
            self.acks.write(TOKEN)
            self.acks.flush()
        except OSError as exc:
            raise ChannelError(f"the other side stopped reading ({exc})") from None
        self.chunks += 1

    def _read(self, part: memoryview, offset: int) -> None:
        assert self.ring is not None
        done = 0
        while done < len(part):
            got = os.preadv(self.ring.fd, [part[done:]], offset + done)
            if not got:
                raise ChannelError("the shared buffer ended inside a chunk (the runner truncated it)")
            done += got


_POOL: list[ThreadPoolExecutor] = []
"""This process's copy threads, made on first use (never in a zygote, which forks before any transfer)."""
os.register_at_fork(after_in_child=_POOL.clear)  # a forked child has none of its parent's threads


def _in_parts(view: memoryview, offset: int, copy: Callable[[memoryview, int], None]) -> None:
    """`copy(part, offset of part)` over `view` split into up to COPY_THREADS contiguous parts, run at once; the
    first part's exception (a ChannelError, say) is raised once every part has ended."""
    parts = max(1, min(COPY_THREADS, len(view) // PART_MIN))
    if parts == 1:
        copy(view, offset)
        return
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(COPY_THREADS, thread_name_prefix="ring-copy"))
    step = -(-len(view) // parts)
    futures = [_POOL[0].submit(copy, view[start: start + step], offset + start)
               for start in range(0, len(view), step)]
    for future in futures:
        future.exception()  # wait for all: no part may still be writing into `view` once this returns
    for future in futures:
        future.result()


def _read_exactly(stream: IO[bytes], count: int) -> bytearray:
    """`count` bytes into one buffer allocated once (outputs can be gigabytes: no chunk list, no copies)."""
    data = bytearray(count)
    _fill(stream, memoryview(data), mid_message=False)
    return data


def _fill(stream: IO[bytes], view: memoryview, *, mid_message: bool) -> None:
    """Read until `view` is full; the channel closing first is a ChannelError."""
    done = 0
    while done < len(view):
        got = stream.readinto(view[done:])  # type: ignore[attr-defined]
        if not got:
            raise ChannelError("the other side closed the channel mid-message" if done or mid_message
                               else "channel closed")
        done += got


def read_header(stream: IO[bytes]) -> tuple[dict[str, Any], list[Described]]:
    """The next message's header and the tensors it announces (their bytes are still unread)."""
    (length,) = _LENGTH.unpack(_read_exactly(stream, _LENGTH.size))
    if length > HEADER_CAP:
        raise ChannelError(f"a message header of {length} bytes (at most {HEADER_CAP})")
    try:
        header = json.loads(_read_exactly(stream, length))
        items = header.pop("tensors")
        described = [Described(str(d["dtype"]), tuple(int(n) for n in d["shape"]), str(d.get("kind", "Tensor")))
                     for d in items]
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ChannelError(f"an unreadable message header ({type(exc).__name__})") from exc
    if not isinstance(header, dict):
        raise ChannelError("a message header that is not an object")
    for d in described:
        if d.dtype not in DTYPES or any(n < 0 for n in d.shape):
            raise ChannelError(f"a tensor of dtype {d.dtype!r} and shape {d.shape}")
    return header, described


def read_tensors(stream: IO[bytes], described: Sequence[Described], budget: int, device: torch.device | None = None,
                 *, ring: Ring | None = None, acks: IO[bytes] | None = None) -> list[torch.Tensor]:  # fmt: skip
    """The announced tensors' bytes as tensors on `device` (the CPU when None), from the stream or through `ring`
    (acknowledged on `acks`); more than `budget` bytes in all is a ChannelError."""
    total = sum(d.nbytes for d in described)
    if total > budget:
        raise ChannelError(f"{total} bytes of tensors announced; at most {budget} expected")
    source, out = _Source(stream, ring, acks), []
    for d in described:
        if device is not None and device.type == "cuda" and d.nbytes:
            raw = _read_staged(source, d.nbytes, device)
        else:
            data = bytearray(d.nbytes)
            for start in range(0, d.nbytes, STAGE):
                source.fill(memoryview(data)[start: start + STAGE])
            raw = torch.frombuffer(data, dtype=torch.uint8) if d.nbytes else torch.empty(0, dtype=torch.uint8)
            raw = raw.to(device) if device is not None else raw
        out.append(raw.view(DTYPES[d.dtype]).reshape(d.shape))
    return out


def _read_staged(source: _Source, count: int, device: torch.device) -> torch.Tensor:
    """`count` bytes straight into a new GPU tensor through the pinned buffers: the read of one chunk overlaps
    the device copy of the other, and no host buffer of the tensor's size is ever made."""
    data = torch.empty(count, dtype=torch.uint8, device=device)
    buffers, events = _staging(), [torch.cuda.Event(), torch.cuda.Event()]
    for i, start in enumerate(range(0, count, STAGE)):
        size = min(STAGE, count - start)
        if i >= 2:
            events[i % 2].synchronize()  # the device copy out of this buffer two chunks ago has finished
        source.fill(memoryview(buffers[i % 2].numpy())[:size])
        data[start: start + size].copy_(buffers[i % 2][:size], non_blocking=True)
        events[i % 2].record()
    torch.cuda.current_stream(device).synchronize()
    return data


def receive(stream: IO[bytes], budget: int) -> tuple[dict[str, Any], list[torch.Tensor]]:
    header, described = read_header(stream)
    return header, read_tensors(stream, described, budget)
