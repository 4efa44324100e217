"""Sends SIGKILL to every other process it can see (its parent, the judge, the validator, the test runner)
and then returns zeros. In its own pid namespace it sees only its sandbox: at worst it ends its own runner,
and the judge, out of reach, records what happened."""

import contextlib
import os
import signal
from pathlib import Path

import torch
from torch import nn

for entry in Path("/proc").glob("[0-9]*"):
    pid = int(entry.name)
    if pid not in (os.getpid(), 1):
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
