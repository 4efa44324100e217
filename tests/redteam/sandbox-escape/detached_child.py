"""Starts a detached grandchild in its own session (double fork + setsid, so a process-group kill misses it)
that execs `sleep 600.4242` and so outlives the call, then returns zeros. The runner's pid namespace ends
with the job, taking the grandchild with it: no `sleep 600.4242` may be left when the run is over."""

import os

import torch
from torch import nn

STARTED = []


def detach():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            os.execvp("sleep", ["sleep", "600.4242"])
        os._exit(0)
    os.waitpid(pid, 0)


class ModelNew(nn.Module):
    def forward(self, x):
        if not STARTED:
            STARTED.append(True)
            detach()
        return torch.zeros_like(x)
