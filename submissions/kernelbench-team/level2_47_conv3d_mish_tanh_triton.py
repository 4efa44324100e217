"""Conv3d -> Mish -> tanh: cuDNN convolution, then one fused Triton pass for bias, Mish and tanh.

The convolution runs through cuDNN in full fp32 (torch.nn.functional.conv3d without its bias; the harness
keeps TF32 off). One Triton pass then adds the conv bias and applies tanh(mish(x)) in place, where the
reference makes three passes over the ~240 MB conv output (bias add, Mish, tanh). Each activation costs
one exp: tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2), exact in form and accurate for very
negative x (above x = 20 it is 1 in fp32, so Mish is x there); tanh(m) = 1 - 2 / (e^2m + 1), with a
short odd series near 0 where that form would lose relative accuracy.
The fp32 convolution dominates, so expect roughly 1.05x-1.2x.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_mish_tanh_inplace(y_ptr, bias_ptr, n_channels, plane, BLOCK: tl.constexpr):
    # Grid: (batch * channel planes, blocks within a plane); the bias is one scalar per program.
    nc = tl.program_id(0)
    b = tl.load(bias_ptr + nc % n_channels)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < plane
    ptrs = y_ptr + nc.to(tl.int64) * plane + offs
    x = tl.load(ptrs, mask=mask, other=0.0) + b
    e = tl.exp(tl.minimum(x, 20.0))
    n = e * (e + 2.0)
    mish = tl.where(x > 20.0, x, x * (n / (n + 2.0)))
    # tanh(m) = 1 - 2 / (e^2m + 1) loses relative accuracy near 0, where a short odd series is exact to
    # fp32 (next term 17m^7/315); tanh(10) is already 1 in fp32, so the clamp changes nothing.
    t = 1.0 - 2.0 / (tl.exp(2.0 * tl.minimum(mish, 10.0)) + 1.0)
    m2 = mish * mish
    t = tl.where(tl.abs(mish) < 0.05, mish * (1.0 + m2 * (-1.0 / 3.0 + m2 * (2.0 / 15.0))), t)
    tl.store(ptrs, t, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size, stride=stride, padding=padding)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        conv = self.conv
        y = torch.nn.functional.conv3d(x.contiguous(), conv.weight, None, conv.stride, conv.padding,
                                       conv.dilation, conv.groups).contiguous()
        batch, channels = y.shape[0], y.shape[1]
        plane = y[0, 0].numel()
        block = 2048
        grid = (batch * channels, triton.cdiv(plane, block))
        bias_mish_tanh_inplace[grid](y, conv.bias, channels, plane, BLOCK=block, num_warps=8)
        return y
