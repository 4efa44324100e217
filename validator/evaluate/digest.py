"""A commitment to a timed call's outputs, made inside the judge's span of that call.

The runner sends `output_digest(outputs)` with its reply to `go`; when the judge later fetches that call's
outputs (on rounds the runner cannot predict), it digests what it received and requires the same value.
Without it, a runner patched by its kernel could return anything quickly while timed and compute the right
outputs only when asked to fetch them, outside any span. A runner that skips the digest to save its time
is caught on every round that turns out to be fetched.

The digest is a sum of a bijective nonlinear mix (lowbias32) of every 32-bit word of the outputs with its
position: there is no way to the digest of the right outputs except through the outputs themselves (a plain
sum would have one: the sum of a matrix product is cheap to get from the inputs). On a GPU it is one Triton
pass over the outputs, near the cost of reading them once, because its time is part of the bound's
allowance: a digest the harness computed slowly would leave room for a faster private copy of it to hide
under-reported time. Integer arithmetic only, so the judge and the runner get the same value on the same
kind of device; CPU tensors (--interpret) take a torch version of the same sum.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import torch

BLOCK = 4096
CHUNK_WORDS = 1 << 24
"""CPU only: words digested at a time, bounding the temporary copies."""
_POSITION, _SALT, _M1, _M2 = 0x2545F491, 0x5851F42D, 0x7FEB352D, 0x846CA68B
_U32 = 0xFFFFFFFF


def warm(device: torch.device) -> None:
    """Compile the digest where later digests will reuse it, before any measured one. Triton compiles a variant
    per specialisation of the arguments (an int divisible by 16 or not, one of 32 or 64 bits), so the warm-up
    digests a word count divisible by 16 and under 2**31, as most outputs' are: a 4-element warm-up compiled a
    variant no output used, and every runner, whose Triton cache starts empty, compiled the real one again in
    its first timed call."""
    output_digest([torch.zeros(WARM_WORDS, dtype=torch.int32, device=device)])


WARM_WORDS = 1024


def output_digest(tensors: Sequence[torch.Tensor]) -> int:
    total = 0
    for k, tensor in enumerate(tensors):
        words = _words(tensor)
        if words.numel():
            part = _gpu_sum(words, k) if words.is_cuda else _cpu_sum(words, k)
            total = (total + part) & ((1 << 64) - 1)
    return total


def _words(tensor: torch.Tensor) -> torch.Tensor:
    raw = tensor.detach().contiguous().reshape(-1).view(torch.uint8)
    if raw.numel() % 4:
        raw = torch.cat([raw, raw.new_zeros(4 - raw.numel() % 4)])
    return raw.view(torch.int32)


def _cpu_sum(words: torch.Tensor, k: int) -> int:
    """The same sum in numpy: single-threaded (torch's CPU threads crawl on a loaded machine) and uint32
    arithmetic wraps as the GPU's does."""
    flat = words.numpy().view(np.uint32)
    salt = np.uint32((k * _SALT) & _U32)
    total = 0
    for start in range(0, flat.size, CHUNK_WORDS):
        x = flat[start:start + CHUNK_WORDS]
        position = np.arange(start, start + x.size, dtype=np.uint64).astype(np.uint32)
        x = x ^ (position * np.uint32(_POSITION) + salt)
        x = x ^ (x >> np.uint32(16))
        x = x * np.uint32(_M1)
        x = x ^ (x >> np.uint32(15))
        x = x * np.uint32(_M2)
        x = x ^ (x >> np.uint32(16))
        total += int(x.sum(dtype=np.uint64))  # at most 2**24 terms below 2**32
    return total


def _gpu_sum(words: torch.Tensor, k: int) -> int:
    kernel = _triton_kernel()
    blocks = (words.numel() + BLOCK - 1) // BLOCK
    partial = torch.empty(blocks, dtype=torch.int64, device=words.device)
    kernel[(blocks,)](words, words.numel(), (k * _SALT) & _U32, partial, BLOCK=BLOCK)
    return int(partial.sum().item())  # each partial below 2**44, a sum below 2**63 for outputs under 2**19 GiB


@functools.cache
def _triton_kernel() -> Any:  # imported on first use: the CPU path (and CI without Triton) never needs it
    import triton
    import triton.language as tl

    @triton.jit
    def digest_blocks(words_ptr, n, salt, partial_ptr, BLOCK: tl.constexpr):
        offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        w = tl.load(words_ptr + offsets, mask=mask, other=0).to(tl.uint32, bitcast=True)
        x = w ^ ((offsets.to(tl.uint32) * 0x2545F491) + salt.to(tl.uint32))
        x = x ^ (x >> 16)
        x = x * 0x7FEB352D
        x = x ^ (x >> 15)
        x = x * 0x846CA68B
        x = x ^ (x >> 16)
        x = tl.where(mask, x, 0)
        tl.store(partial_ptr + tl.program_id(0), tl.sum(x.to(tl.int64), axis=0))

    return digest_blocks
