"""Split forgery without an oracle: fp16 arithmetic on a random 30% of calls, exact on the rest, hoping the checked
calls fall among the exact ones. Every call is at the same risk of being read; the required trials alone are ten
calls, so about seven of them would have to be lucky, and later reads add to that."""

import random

import torch
from torch import nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.coin = random.Random(1234)

    def forward(self, a, b):
        if self.coin.random() < 0.3:
            return torch.matmul(a.half(), b.half()).float()
        return torch.matmul(a, b)
