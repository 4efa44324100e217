"""Computes ReLU honestly, but swaps the clock the runner times CPU calls with (its captured perf_counter,
which no guard watches) for one that barely moves. The judge's own clock sees the real duration: rejected,
timing-unverified. (CPU only: on a GPU the runner reads CUDA events; forged_timing_reply covers both.)"""

import itertools
import pkgutil

import torch
import triton
import triton.language as tl
from torch import nn


@triton.jit
def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)


ticks = itertools.count()
for name in ("__main__", "validator.evaluate.runner.serve"):  # the runner runs as __main__
    module = pkgutil.resolve_name(name)
    if hasattr(module, "_perf_counter"):
        module._perf_counter = lambda: next(ticks) * 1e-7


class ModelNew(nn.Module):
    def forward(self, x):
        x = x.contiguous()
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y
