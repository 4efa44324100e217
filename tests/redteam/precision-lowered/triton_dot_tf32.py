"""A Triton GEMM whose tl.dot runs on fp32 operands with Triton's default input precision, which is TF32 on
tensor-core GPUs: about 1e-3 relative error. GPU only (the interpreter computes in full fp32)."""

import torch
import triton
import triton.language as tl
from torch import nn


@triton.jit
def bias_relu(y_ptr, bias_ptr, n, n_cols, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.load(y_ptr + offsets, mask=mask)
    b = tl.load(bias_ptr + offsets % n_cols, mask=mask)
    tl.store(y_ptr + offsets, tl.maximum(y + b, 0.0), mask=mask)


def add_bias_relu(y, bias):
    bias_relu[(triton.cdiv(y.numel(), 1024),)](y, bias, y.numel(), y.shape[-1], BLOCK=1024)
    return y


class Base(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))



@triton.jit
def matmul_tf32(x_ptr, w_ptr, y_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):  # noqa: PLR0917
    rm = tl.program_id(0) * BM + tl.arange(0, BM)
    rn = tl.program_id(1) * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    acc = tl.zeros([BM, BN], tl.float32)
    for k in range(0, K, BK):
        a_mask = (rm[:, None] < M) & ((k + rk)[None, :] < K)
        b_mask = (rn[None, :] < N) & ((k + rk)[:, None] < K)
        a = tl.load(x_ptr + rm[:, None] * K + (k + rk)[None, :], mask=a_mask, other=0.0)
        b = tl.load(w_ptr + rn[None, :] * K + (k + rk)[:, None], mask=b_mask, other=0.0)
        acc += tl.dot(a, b)
    tl.store(y_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))


class ModelNew(Base):
    def forward(self, x):
        x = x.contiguous()
        M, K = x.shape
        N = self.gemm.weight.shape[0]
        y = torch.empty(M, N, device=x.device, dtype=x.dtype)
        matmul_tf32[(triton.cdiv(M, 64), triton.cdiv(N, 64))](x, self.gemm.weight, y, M, N, K, BM=64, BN=64, BK=32)
        return add_bias_relu(y, self.bias)
