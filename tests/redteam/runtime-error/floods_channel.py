"""Writes 8 MiB of garbage into every pipe it holds (the runner's reply channel among them) and prints another
8 MiB, then computes ReLU. The judge reads a header it cannot parse and ends the runner: runtime_error,
runner-protocol (or runner-exited when the runner died of it first); the log keeps only head and tail."""

import contextlib
import os
import stat
import sys

from torch import nn

GARBAGE = b"\xff" * (1 << 20)
for fd in range(3, 64):
    with contextlib.suppress(OSError):
        if stat.S_ISFIFO(os.fstat(fd).st_mode):
            for _ in range(8):
                os.write(fd, GARBAGE)
sys.stdout.write("x" * (8 << 20))


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu()
