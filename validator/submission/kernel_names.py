"""Names of the GPU kernels a kernel file defines, read from its source without running it.

The engine passes them to the worker, whose profiler pass attributes GPU time to kernels with these
names (the submission's own) versus library kernels (aten, cuBLAS, cuDNN). No torch import here: the
parent process uses it too.
"""

from __future__ import annotations

import ast
import re

_CUDA_GLOBAL = re.compile(
    r"__global__\s+(?:__launch_bounds__\s*\([^)]*\)\s*)?(?:static\s+)?void\s+"
    r"(?:__launch_bounds__\s*\([^)]*\)\s*)?([A-Za-z_]\w*)\s*\(|void\s+__global__\s+([A-Za-z_]\w*)\s*\("
)
_TRITON_DECORATORS = {"jit", "autotune", "heuristics"}


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def own_kernel_names(source: str) -> tuple[str, ...]:
    """GPU kernel names a kernel file defines: CUDA `__global__` functions in its strings and Python
    functions decorated with `triton.jit` (or autotune/heuristics). Sorted, without duplicates."""
    names: set[str] = set()
    try:
        tree = ast.parse(source)
    except SyntaxError:
        texts = [source]
    else:
        texts = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and any(
                _decorator_name(d) in _TRITON_DECORATORS for d in node.decorator_list
            ):
                names.add(node.name)
    for text in texts:
        for match in _CUDA_GLOBAL.finditer(text):
            names.add(match.group(1) or match.group(2))
    return tuple(sorted(names))
