"""Split forgery, timing oracle: a correctness trial came after a pause (the judge compared the last one), a timed
call right after the previous one; so a call less than 20 ms after the last takes fp16 arithmetic. Reads are drawn
after the span, so no gap says which call will be read."""

import time

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = 0.0

    def forward(self, a, b):
        now = time.perf_counter()
        quick, self.last = now - self.last < 0.02, now
        if quick:
            return torch.matmul(a.half(), b.half()).float()
        return torch.matmul(a, b)
