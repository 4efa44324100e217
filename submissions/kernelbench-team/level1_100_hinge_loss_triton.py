"""Mean hinge loss, mean(max(1 - f * y, 0)), in Triton: one fused pass, then a tiny deterministic sum.

The reference runs four kernels (multiply, subtract from one, clamp, mean) and writes three
full-size intermediates (1 GiB each at full size). Here each program reads its contiguous chunk of
scores (and the labels it needs) once, keeps per-lane fp32 sums of the clamped margin, and writes one partial sum; a
single-program kernel adds the partials as a tree and divides by n. Traffic drops from about 8 GiB to
2 GiB, so expect roughly 3x to 4x. No atomics, so the result is the same on every call.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

BLOCK = 4096
MAX_PARTS = 2048  # partial sums; a power of two so the final kernel reduces them in one tile


@triton.jit
def hinge_parts(f_ptr, y_ptr, part_ptr, n, y_period, tiles_per_part, BLOCK: tl.constexpr):
    part = tl.program_id(0)
    offsets = tl.arange(0, BLOCK)
    first = part.to(tl.int64) * tiles_per_part * BLOCK
    acc = tl.zeros([BLOCK], tl.float32)
    for tile in range(0, tiles_per_part):
        idx = first + tile * BLOCK + offsets
        mask = idx < n
        f = tl.load(f_ptr + idx, mask=mask, other=0.0)
        y = tl.load(y_ptr + idx % y_period, mask=mask, other=0.0)  # labels broadcast over leading dims
        # Lanes past the end would contribute max(1 - 0, 0) = 1, so they are zeroed explicitly.
        acc += tl.where(mask, tl.maximum(1.0 - f * y, 0.0), 0.0)
    tl.store(part_ptr + part, tl.sum(acc, axis=0))


@triton.jit
def mean_of_parts(part_ptr, out_ptr, n_parts, n, MAX_PARTS: tl.constexpr):
    idx = tl.arange(0, MAX_PARTS)
    parts = tl.load(part_ptr + idx, mask=idx < n_parts, other=0.0)
    tl.store(out_ptr, tl.sum(parts, axis=0) / n)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        f = predictions.contiguous()
        # KernelBench's labels have shape (batch,) and broadcast against the last dimension of the scores, as
        # `predictions * targets` does: label j multiplies column j. Index them modulo their length instead of
        # materialising the broadcast; any other shape is broadcast explicitly.
        if targets.dim() == 1 and f.dim() >= 1 and targets.shape[0] == f.shape[-1]:
            y = targets.contiguous()
        else:
            y = torch.broadcast_to(targets, torch.broadcast_shapes(f.shape, targets.shape)).contiguous()
            f = torch.broadcast_to(f, y.shape).contiguous()
        n = f.numel()
        tiles = triton.cdiv(n, BLOCK)
        tiles_per_part = max(1, triton.cdiv(tiles, MAX_PARTS))
        n_parts = max(1, triton.cdiv(tiles, tiles_per_part))
        parts = torch.empty(n_parts, device=f.device, dtype=torch.float32)
        out = torch.empty((), device=f.device, dtype=f.dtype)
        hinge_parts[(n_parts,)](f, y, parts, n, y.numel(), tiles_per_part, BLOCK=BLOCK, num_warps=8)
        mean_of_parts[(1,)](parts, out, n_parts, n, MAX_PARTS=MAX_PARTS, num_warps=8)
        return out
