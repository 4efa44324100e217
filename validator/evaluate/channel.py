"""The judge <-> runner wire format: a length-prefixed JSON header, then the raw bytes of its tensors.

No pickle crosses the boundary: the judge parses a header of plain JSON and builds each tensor itself
from a dtype it looks up in a fixed table, a shape of non-negative integers and exactly the bytes that
dtype and shape need. A header larger than HEADER_CAP, an unknown dtype or a payload beyond the reader's
byte budget is a `ChannelError` (the judge turns it into a status), never an exception from deep inside
torch. Tensors travel through host memory, so this works between processes of different uids and
namespaces, on the CPU and on a GPU alike (see the threat-model page for why not CUDA IPC).
"""

from __future__ import annotations

import ctypes
import functools
import json
import math
import mmap
import os
import struct
import threading
from collections.abc import Iterator, Sequence
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
        data = flat.view(torch.uint8)
        direct = slots is not None and slots.ring.host is not None and data.is_cuda
        for piece in _device_pieces(data) if direct else _host_pieces(data):
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


def _device_pieces(data: torch.Tensor) -> Iterator[torch.Tensor]:
    """A 1-D uint8 GPU tensor STAGE bytes at a time, for a DMA straight into a pinned Ring slot."""
    for start in range(0, data.numel(), STAGE):
        yield data[start: start + STAGE]


TOKEN = b"\x01"
"""One byte on a pipe: a chunk is in its slot (runner to judge), or the judge has read it out (judge to runner)."""


class Ring:
    """Two STAGE-byte slots in a file the judge creates before any submitted code runs. A reply's tensor bytes
    cross it chunk by chunk, each announced by a TOKEN on the reply pipe and released by a TOKEN on the request
    pipe, instead of a pipe's 1 MiB round trips.

    On tmpfs (`launch.SHARED_MEMORY`, bound into the runner's sandbox at RING_MOUNT) each side maps the file and
    registers the mapping with the CUDA driver as pinned memory (`pin`): a chunk is then one DMA out of the
    runner's GPU into the slot and one DMA out of the slot into the judge's, with no CPU copy. Elsewhere, or where
    pinning fails, a side copies with pwrite and pread; the other side is unaffected, since both name the same
    pages. Measured on an H200 (`bench/bench_ring_memory.py`, a 4 GiB reply GPU to GPU between two processes):
    4.2 GB/s copying through a file on disk, 3.4 GB/s copying through tmpfs, 41.6 GB/s pinned on tmpfs.

    The judge never touches a mapping with its CPU after pinning it: the runner can truncate, replace or rewrite
    the file, which makes its own reply short (a ChannelError: the judge checks the file's size at every chunk)
    or wrong (outputs that fail), and nothing it does can fault the judge. A truncated file's pinned pages stay
    the judge's until it unpins them, so even a truncation during a DMA only reads stale bytes."""

    SIZE = 2 * STAGE

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.host: torch.Tensor | None = None
        """The pinned mapping's bytes, once `pin` succeeded; None: this side copies with pwrite or pread."""
        self._mapping: mmap.mmap | None = None

    @classmethod
    def create(cls, path: Path) -> Ring:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        os.ftruncate(fd, cls.SIZE)
        return cls(fd)

    @classmethod
    def open(cls, path: str) -> Ring:
        return cls(os.open(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC))

    def pin(self) -> bool:
        """Map the file and register the mapping as pinned memory with this process's CUDA context (made current
        here); whether it worked. Only a tmpfs file can be pinned for long (the kernel refuses long-term pins of a
        disk file's page cache), so elsewhere this is not tried."""
        if self.host is not None:
            return True
        driver = _cuda_driver()
        if driver is None or not torch.cuda.is_available() or not _on_tmpfs(self.fd):
            return False
        torch.cuda.current_stream().synchronize()  # the primary context is current on this thread
        mapping = mmap.mmap(self.fd, self.SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        host = torch.frombuffer(mapping, dtype=torch.uint8)
        host.fill_(0)  # every page present before it is pinned
        if driver.cuMemHostRegister_v2(ctypes.c_void_p(host.data_ptr()), ctypes.c_size_t(self.SIZE), 0) != 0:
            del host
            mapping.close()
            return False
        self.host, self._mapping = host, mapping
        return True

    def slot(self, chunk: int, size: int) -> torch.Tensor:
        assert self.host is not None
        start = (chunk % 2) * STAGE
        return self.host[start: start + size]

    def intact(self) -> bool:
        """Whether the file still has both slots (a runner may have truncated it)."""
        return os.fstat(self.fd).st_size >= self.SIZE

    def close(self) -> None:
        if self.host is not None:
            driver = _cuda_driver()
            if driver is not None:
                driver.cuMemHostUnregister(ctypes.c_void_p(self.host.data_ptr()))
            self.host = None
        if self._mapping is not None:
            self._mapping.close()
            self._mapping = None
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


def _on_tmpfs(fd: int) -> bool:
    """Whether the open file `fd` lies on tmpfs, by its device number among /proc/self/mountinfo's mounts."""
    device = os.fstat(fd).st_dev
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return False
    for line in lines:
        fields = line.split()
        if " - " not in line or len(fields) < 3:
            continue
        major, _, minor = fields[2].partition(":")
        fstype = line.split(" - ", 1)[1].split()[0]
        if minor and os.makedev(int(major), int(minor)) == device:
            return fstype == "tmpfs"
    return False


@functools.cache
def _cuda_driver() -> ctypes.CDLL | None:
    """The CUDA driver library, for registering host memory: its calls leave the runtime's last-error state
    alone (a failed cudaHostRegister would surface later as the error of an unrelated torch call)."""
    try:
        return ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None


class _RingWriter:
    """The sending side of one message through a Ring."""

    def __init__(self, stream: IO[bytes], ring: Ring, acks: IO[bytes]) -> None:
        self.stream, self.ring, self.acks, self.chunks = stream, ring, acks, 0

    def put(self, piece: memoryview | torch.Tensor) -> None:
        """One chunk into the next slot: host bytes by pwrite, a GPU tensor's by one DMA into the pinned slot."""
        if self.chunks >= 2:
            _token(self.acks)  # the reader is done with this slot's previous chunk
        if isinstance(piece, torch.Tensor):
            self.ring.slot(self.chunks, piece.numel()).copy_(piece, non_blocking=True)
            torch.cuda.current_stream(piece.device).synchronize()
        else:
            offset, done = (self.chunks % 2) * STAGE, 0
            while done < len(piece):
                done += os.pwrite(self.ring.fd, piece[done:], offset + done)
        self.stream.write(TOKEN)
        self.stream.flush()
        self.chunks += 1

    def finish(self) -> None:
        for _ in range(min(self.chunks, 2)):  # every acknowledgement read: none is left to be taken for a request
            _token(self.acks)


def _token(stream: IO[bytes]) -> None:
    got = bytearray(1)
    _fill(stream, memoryview(got), mid_message=True)
    if bytes(got) != TOKEN:
        raise ChannelError("a byte other than a chunk token between a message's chunks")


_TRUNCATED = "the shared buffer ended inside a chunk (the runner truncated it)"


class _Source:
    """Where the reader's chunks of one message come from: the stream itself, or a Ring's slots (read with
    pread into host memory, or, where this side pinned the ring, by a DMA straight onto the GPU)."""

    def __init__(self, stream: IO[bytes], ring: Ring | None, acks: IO[bytes] | None) -> None:
        self.stream, self.ring, self.acks, self.chunks = stream, ring, acks, 0

    @property
    def pinned(self) -> bool:
        return self.ring is not None and self.ring.host is not None and self.acks is not None

    def fill(self, view: memoryview) -> None:
        if self.ring is None or self.acks is None:
            _fill(self.stream, view, mid_message=True)
            return
        _token(self.stream)
        offset, done = (self.chunks % 2) * STAGE, 0
        while done < len(view):
            got = os.preadv(self.ring.fd, [view[done:]], offset + done)
            if not got:
                raise ChannelError(_TRUNCATED)
            done += got
        self.release()

    def fill_device(self, target: torch.Tensor) -> None:
        """The next chunk into the GPU tensor `target` by one DMA out of its pinned slot (`pinned` only); the
        slot is released once the DMA has ended."""
        assert self.ring is not None
        _token(self.stream)
        if not self.ring.intact():
            raise ChannelError(_TRUNCATED)
        target.copy_(self.ring.slot(self.chunks, target.numel()), non_blocking=True)
        torch.cuda.current_stream(target.device).synchronize()
        self.release()

    def release(self) -> None:
        """Tell the writer this chunk's slot is free again."""
        assert self.acks is not None
        try:
            self.acks.write(TOKEN)
            self.acks.flush()
        except OSError as exc:
            raise ChannelError(f"the other side stopped reading ({exc})") from None
        self.chunks += 1


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
        if device is not None and device.type == "cuda" and d.nbytes and source.pinned:
            raw = _read_pinned(source, d.nbytes, device)
        elif device is not None and device.type == "cuda" and d.nbytes:
            raw = _read_staged(source, d.nbytes, device)
        else:
            data = bytearray(d.nbytes)
            for start in range(0, d.nbytes, STAGE):
                source.fill(memoryview(data)[start: start + STAGE])
            raw = torch.frombuffer(data, dtype=torch.uint8) if d.nbytes else torch.empty(0, dtype=torch.uint8)
            raw = raw.to(device) if device is not None else raw
        out.append(raw.view(DTYPES[d.dtype]).reshape(d.shape))
    return out


def _read_pinned(source: _Source, count: int, device: torch.device) -> torch.Tensor:
    """`count` bytes into a new GPU tensor by one DMA per chunk out of the ring's pinned slots."""
    data = torch.empty(count, dtype=torch.uint8, device=device)
    for start in range(0, count, STAGE):
        source.fill_device(data[start: start + STAGE])
    return data


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
