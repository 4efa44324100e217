"""Control: honest parameters made with the legacy `torch.Tensor(*sizes)` constructor, as 2024 KernelBench
kernels often make them (level1/69 and 78 of the public leaderboard). That constructor ignores a default
device, so its values come from the CPU generator; the reference's must too (KernelBench draws both models'
parameters on the CPU), or the two models hold different weights and an honest kernel fails on every element."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, stride=(1, 1), padding=(0, 0), output_padding=(0, 0),  # noqa: PLR0917 (the problem's own signature)
                 dilation=(1, 1), groups=1, bias=False):
        super().__init__()
        self.weight = nn.Parameter(torch.Tensor(in_channels, out_channels // groups, *kernel_size))
        nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))  # nn.ConvTranspose2d's own initialisation
        self.settings = (stride, padding, output_padding, groups, dilation)

    def forward(self, x):
        stride, padding, output_padding, groups, dilation = self.settings
        return F.conv_transpose2d(x, self.weight, None, stride, padding, output_padding, groups, dilation)
