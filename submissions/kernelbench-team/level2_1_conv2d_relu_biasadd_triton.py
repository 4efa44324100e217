"""Conv2d -> ReLU -> per-channel bias add: cuDNN convolution, then one fused Triton pass.

The convolution runs through cuDNN in full fp32 (torch.nn.functional.conv2d without its bias; the harness
keeps TF32 off). One Triton pass then adds the conv bias, applies ReLU and adds the extra bias, in place.
The reference makes three elementwise passes over the ~1 GB conv output after cuDNN (conv bias add, ReLU,
bias add, the last one allocating a new tensor); this makes one. The fp32 convolution itself takes most
of the time, so expect roughly 1.1x-1.3x.
"""

import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def bias_relu_bias_inplace(y_ptr, conv_bias_ptr, extra_bias_ptr, n_channels, plane, BLOCK: tl.constexpr):
    # Grid: (batch * channel planes, blocks within a plane); both biases are one scalar per program.
    nc = tl.program_id(0)
    channel = nc % n_channels
    cb = tl.load(conv_bias_ptr + channel)
    eb = tl.load(extra_bias_ptr + channel)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < plane
    ptrs = y_ptr + nc.to(tl.int64) * plane + offs
    y = tl.load(ptrs, mask=mask)
    tl.store(ptrs, tl.maximum(y + cb, 0.0) + eb, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, bias_shape):
        super().__init__()
        # Same parameters, same order, same initialisers as the reference Model.
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        conv = self.conv
        y = torch.nn.functional.conv2d(x.contiguous(), conv.weight, None, conv.stride, conv.padding,
                                       conv.dilation, conv.groups).contiguous()
        batch, channels, height, width = y.shape
        plane = height * width
        block = 2048
        grid = (batch * channels, triton.cdiv(plane, block))
        bias_relu_bias_inplace[grid](y, conv.bias, self.bias.contiguous(), channels, plane, BLOCK=block,
                                     num_warps=8)
        return y
