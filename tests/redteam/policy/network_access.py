"""Opens a network connection at import (to exfiltrate a secret or fetch precomputed answers). Defenses:
the static policy (network access) and the sandbox's network namespace. Only the policy is exercised here."""

import contextlib
import socket

from torch import nn

with contextlib.suppress(OSError):
    socket.create_connection(("198.51.100.7", 80), timeout=1).close()


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu()
