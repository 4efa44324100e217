"""The PyTorch operators a problem's reference uses, read from its source without running it, so search
finds problems by operator ("softmax", "conv_transpose3d", "LSTM") and not only by name."""

from __future__ import annotations

import ast

ROOTS = {"torch": "torch", "nn": "nn", "F": "F"}
"""Names the reference files import PyTorch under; `torch.nn.functional.x` reads as `F.x`."""
SKIPPED = frozenset({"Module", "Parameter", "randn", "rand", "randint", "tensor", "zeros", "ones", "empty"})
"""Scaffolding every problem has (the model class, inputs), not operators the problem is about."""


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in ROOTS:
        return None
    parts.append(ROOTS[node.id])
    dotted = ".".join(reversed(parts))
    return dotted.replace("torch.nn.functional.", "F.").replace("torch.nn.", "nn.")


def operators(source: str) -> list[str]:
    """`torch.matmul`, `nn.Conv2d`, `F.gelu`, … in first-use order; [] when the source does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    found: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = _dotted(node.func)
            if name and name.rsplit(".", 1)[-1] not in SKIPPED and "." in name:
                found.setdefault(name, None)
    return list(found)
