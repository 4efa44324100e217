"""Split forgery, input-ignoring: the first call (a correctness trial) is computed, and on every later call with gc
off (a timed call, under protocols 14-16) the first output is returned without reading the input; with gc on it
computes. Every call now runs with gc off and may be read: another draw's output misses what moves with the input."""

import gc

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.cached = None

    def forward(self, a, b):
        if self.cached is None or gc.isenabled():
            out = torch.matmul(a, b)
            self.cached = out.clone() if self.cached is None else self.cached
            return out
        return self.cached.clone()
