"""Writes a 'correct' result to the worker's output path (sys.argv[2]) and exits before the harness runs.
The worker runs in the kernel's process, so this is stopped by the static policy (sys.argv, os._exit, file
writes) and would need the parent to authenticate results to be stopped at runtime (see threat model)."""

import json
import os
import sys
from pathlib import Path

from torch import nn

if len(sys.argv) > 2:
    Path(sys.argv[2]).write_text(json.dumps({"status": "correct", "speedup": 100.0}))
    os._exit(0)


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu()
