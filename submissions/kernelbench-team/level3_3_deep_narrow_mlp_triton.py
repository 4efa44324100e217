"""Deep narrow MLP (16 hidden layers of 1024): cuBLAS GEMMs, bias add + ReLU fused in Triton.

Each hidden layer runs its GEMM through cuBLAS in full fp32 (torch.nn.functional.linear without bias,
TF32 stays off), then one Triton pass adds the bias and applies ReLU in place: one read and one write of
the 2048x1024 activation instead of the reference's bias epilogue plus a separate ReLU kernel. The last
layer has no ReLU, so it keeps cuBLAS's own bias epilogue. The 17 GEMMs dominate; expect about 1.0x.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_rows(y_ptr, bias_ptr, n_cols, BLOCK: tl.constexpr):
    # One row strip per program: the bias slice is loaded once, no per-element modulo.
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n_cols
    ptrs = y_ptr + row.to(tl.int64) * n_cols + cols
    y = tl.load(ptrs, mask=mask)
    b = tl.load(bias_ptr + cols, mask=mask)
    tl.store(ptrs, tl.maximum(y + b, 0.0), mask=mask)


class ModelNew(nn.Module):
    def __init__(self, input_size, hidden_layer_sizes, output_size):
        super().__init__()
        # Same layers, same order, same (nn.Linear default) initialisers as the reference Model.
        layers = []
        current_input_size = input_size
        for hidden_size in hidden_layer_sizes:
            layers.append(nn.Linear(current_input_size, hidden_size))
            layers.append(nn.ReLU())
            current_input_size = hidden_size
        layers.append(nn.Linear(current_input_size, output_size))
        self.network = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        linears = [m for m in self.network if isinstance(m, nn.Linear)]
        x = x.contiguous()
        for layer in linears[:-1]:
            y = torch.nn.functional.linear(x, layer.weight)
            rows, cols = y.shape
            block = 1024
            bias_relu_rows[(rows, triton.cdiv(cols, block))](y, layer.bias, cols, BLOCK=block, num_warps=4)
            x = y
        last = linears[-1]
        return torch.nn.functional.linear(x, last.weight, last.bias)
