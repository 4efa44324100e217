"""A commitment to a timed call's outputs, made inside the judge's span of that call.

The runner sends `output_digest(outputs)` with its reply to `go`; when the judge later fetches that call's
outputs (on rounds the runner cannot predict), it digests what it received and requires the same value.
Without it, a runner patched by its kernel could return anything quickly while timed and compute the right
outputs only when asked to fetch them, outside any span.

The digest is a sum, modulo a prime, of a nonlinear function of every 32-bit word of the outputs and of its
position: there is no way to the digest of the right outputs except through the outputs themselves (a plain
sum would have one: the sum of a matrix product is cheap to get from the inputs). It is a commitment against
a kernel that does not know the right answer in time, not a cryptographic hash: integer arithmetic only, so
the judge and the runner get the same value on the same kind of device.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

CHUNK_WORDS = 1 << 25
"""Words digested at a time: bounds the temporary memory (a few int64 copies of a chunk) on huge outputs."""
MODULUS = (1 << 61) - 1
_POSITION, _SALT, _HIGH, _CROSS = 0x2545F491, 0x5851F42D, 0x9E3779, 0x7FEB35


def output_digest(tensors: Sequence[torch.Tensor]) -> int:
    total = 0
    for k, tensor in enumerate(tensors):
        words = _words(tensor)
        for start in range(0, words.numel(), CHUNK_WORDS):
            total = (total + _chunk(words[start:start + CHUNK_WORDS], start, k)) % MODULUS
    return total


def _words(tensor: torch.Tensor) -> torch.Tensor:
    raw = tensor.detach().contiguous().reshape(-1).view(torch.uint8)
    if raw.numel() % 4:
        raw = torch.cat([raw, raw.new_zeros(4 - raw.numel() % 4)])
    return raw.view(torch.int32)


def _chunk(words: torch.Tensor, start: int, k: int) -> int:
    x = words.to(torch.int64) & 0xFFFFFFFF
    position = torch.arange(start, start + words.numel(), device=words.device, dtype=torch.int64)
    x = x ^ ((position * _POSITION + k * _SALT) & 0xFFFFFFFF)
    high, low = x >> 16, x & 0xFFFF
    mixed = (high * high * _HIGH + low * low + high * low * _CROSS + x) & 0x7FFFFFFF  # each term below 2**56
    return int(mixed.sum().item())  # at most 2**25 terms below 2**31: no overflow
