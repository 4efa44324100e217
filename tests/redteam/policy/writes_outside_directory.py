"""Writes a file outside its own directory at import. Nothing inside the worker stops a write, so the
defenses are the static policy (file access) and the sandbox (a private working directory and a read-only
view of everything else). Only the static policy is exercised here."""

from pathlib import Path

from torch import nn

(Path(__file__).resolve().parent.parent / "escaped-by-kernel.txt").write_text("escaped\n")


class ModelNew(nn.Module):
    def forward(self, x):
        return x.relu()
