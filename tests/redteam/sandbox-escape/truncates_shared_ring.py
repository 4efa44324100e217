"""Computes ReLU honestly, but patches its runner's channel so that each reply chunk is announced after the
shared file it should be in (the ring in the job directory) was truncated to nothing, and that file is then
replaced by a symlink to /dev/zero. The judge reads the ring only with pread through the descriptor it opened
itself: it sees a short chunk (runtime_error, runner-protocol), never a fault and never the zeros."""

import contextlib
import os
import pkgutil
from pathlib import Path

import torch
from torch import nn

channel = pkgutil.resolve_name("validator.evaluate.channel")


def spoiled_put(self, piece):
    if self.chunks >= 2:
        channel._token(self.acks)
    os.ftruncate(self.ring.fd, 0)
    with contextlib.suppress(OSError):
        Path("ring").unlink()
        Path("ring").symlink_to("/dev/zero")
    self.stream.write(channel.TOKEN)
    self.stream.flush()
    self.chunks += 1


channel._RingWriter.put = spoiled_put


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x)
