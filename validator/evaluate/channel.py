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
import struct
from collections.abc import Sequence
from dataclasses import dataclass
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


def send(stream: IO[bytes], header: dict[str, Any], tensors: Sequence[torch.Tensor] = ()) -> None:
    """Write one message: the header (with a `tensors` list added) and each tensor's bytes, host-side."""
    header = {**header, "tensors": [describe(t) for t in tensors]}
    raw = json.dumps(header).encode()
    stream.write(_LENGTH.pack(len(raw)) + raw)
    for t in tensors:
        host = t.detach().contiguous().cpu().reshape(-1)  # 1-D: a 0-dim tensor cannot be viewed as bytes
        if host.numel():
            stream.write(memoryview(host.view(torch.uint8).numpy()))
    stream.flush()


def _read_exactly(stream: IO[bytes], count: int) -> bytearray:
    """`count` bytes into one buffer allocated once (outputs can be gigabytes: no chunk list, no copies)."""
    data = bytearray(count)
    view, done = memoryview(data), 0
    while done < count:
        got = stream.readinto(view[done:])  # type: ignore[attr-defined]
        if not got:
            raise ChannelError("the other side closed the channel mid-message" if done else "channel closed")
        done += got
    return data


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


def read_tensors(stream: IO[bytes], described: Sequence[Described], budget: int) -> list[torch.Tensor]:
    """The announced tensors' bytes as CPU tensors; more than `budget` bytes in all is a ChannelError."""
    total = sum(d.nbytes for d in described)
    if total > budget:
        raise ChannelError(f"{total} bytes of tensors announced; at most {budget} expected")
    out = []
    for d in described:
        if not d.nbytes:
            out.append(torch.empty(d.shape, dtype=DTYPES[d.dtype]))
            continue
        raw = _read_exactly(stream, d.nbytes)
        out.append(torch.frombuffer(raw, dtype=torch.uint8).view(DTYPES[d.dtype]).reshape(d.shape))
    return out


def receive(stream: IO[bytes], budget: int) -> tuple[dict[str, Any], list[torch.Tensor]]:
    header, described = read_header(stream)
    return header, read_tensors(stream, described, budget)
