"""LayerNorm over very long rows (4M elements): split each row into chunks so the whole GPU works.

Three Triton launches: chunk sums, chunk sums of squared deviations from the row mean (two-pass
variance, exact even when the mean is large), then normalise with the affine weight and bias.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl

CHUNK = 65536
BLOCK = 4096


@triton.jit
def chunk_sums(x_ptr, part_ptr, n, n_chunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    base = x_ptr + row.to(tl.int64) * n
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, CHUNK, BLOCK):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK)
        acc += tl.load(base + cols, mask=cols < n, other=0.0)
    tl.store(part_ptr + row * n_chunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def row_mean(part_ptr, row, n, n_chunks, MAX_CHUNKS: tl.constexpr):
    idx = tl.arange(0, MAX_CHUNKS)
    parts = tl.load(part_ptr + row * n_chunks + idx, mask=idx < n_chunks, other=0.0)
    return tl.sum(parts, axis=0) / n


@triton.jit
def chunk_sq_dev(x_ptr, sum_ptr, sq_ptr, n, n_chunks, CHUNK: tl.constexpr, BLOCK: tl.constexpr,
                 MAX_CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    mean = row_mean(sum_ptr, row, n, n_chunks, MAX_CHUNKS)
    base = x_ptr + row.to(tl.int64) * n
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, CHUNK, BLOCK):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK)
        mask = cols < n
        d = tl.where(mask, tl.load(base + cols, mask=mask, other=0.0) - mean, 0.0)
        acc += d * d
    tl.store(sq_ptr + row * n_chunks + chunk, tl.sum(acc, axis=0))


@triton.jit
def normalise(x_ptr, w_ptr, b_ptr, y_ptr, sum_ptr, sq_ptr, n, n_chunks, eps, CHUNK: tl.constexpr,
              BLOCK: tl.constexpr, MAX_CHUNKS: tl.constexpr):
    row = tl.program_id(0)
    chunk = tl.program_id(1)
    mean = row_mean(sum_ptr, row, n, n_chunks, MAX_CHUNKS)
    var = row_mean(sq_ptr, row, n, n_chunks, MAX_CHUNKS)
    rstd = 1.0 / tl.sqrt(var + eps)
    base = row.to(tl.int64) * n
    for start in range(0, CHUNK, BLOCK):
        cols = chunk * CHUNK + start + tl.arange(0, BLOCK)
        mask = cols < n
        x = tl.load(x_ptr + base + cols, mask=mask, other=0.0)
        w = tl.load(w_ptr + cols, mask=mask, other=0.0)
        b = tl.load(b_ptr + cols, mask=mask, other=0.0)
        tl.store(y_ptr + base + cols, (x - mean) * rstd * w + b, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super().__init__()
        # Same parameters and initialisation as the reference Model, in the same order.
        self.ln = nn.LayerNorm(normalized_shape=normalized_shape)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = self.ln.weight.numel()
        x = x.contiguous()
        rows = x.numel() // n
        n_chunks = triton.cdiv(n, CHUNK)
        max_chunks = max(16, triton.next_power_of_2(n_chunks))
        sums = torch.empty(rows, n_chunks, device=x.device, dtype=torch.float32)
        sq = torch.empty_like(sums)
        y = torch.empty_like(x)
        grid = (rows, n_chunks)
        chunk_sums[grid](x, sums, n, n_chunks, CHUNK=CHUNK, BLOCK=BLOCK, num_warps=8)
        chunk_sq_dev[grid](x, sums, sq, n, n_chunks, CHUNK=CHUNK, BLOCK=BLOCK, MAX_CHUNKS=max_chunks,
                           num_warps=8)
        normalise[grid](x, self.ln.weight, self.ln.bias, y, sums, sq, n, n_chunks, self.ln.eps, CHUNK=CHUNK,
                        BLOCK=BLOCK, MAX_CHUNKS=max_chunks, num_warps=8)
        return y
