"""Plants a shared-library file in the build cache where another kernel's compiled extension would be looked
up (the default cache under HOME, KB_VALIDATE_CACHE, and the parent of its own TORCH_EXTENSIONS_DIR), then
returns zeros. The runner only ever sees a private copy of its own cache entry: nothing may be planted."""

import contextlib
import os
from pathlib import Path

import torch
from torch import nn

NAME = "kb-redteam-planted.so"
roots = [Path.home() / ".cache" / "kb-validate", Path("/root/.cache/kb-validate")]
if os.environ.get("KB_VALIDATE_CACHE"):
    roots.append(Path(os.environ["KB_VALIDATE_CACHE"]))
if os.environ.get("TORCH_EXTENSIONS_DIR"):
    roots.append(Path(os.environ["TORCH_EXTENSIONS_DIR"]).parent.parent)
for root in roots:
    with contextlib.suppress(OSError):
        target = root / "kernels" / "kb-redteam-planted" / "ext"
        target.mkdir(parents=True, exist_ok=True)
        (target / NAME).write_bytes(b"\x7fELF not really")


class ModelNew(nn.Module):
    def forward(self, x):
        return torch.zeros_like(x)
