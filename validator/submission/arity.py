"""Does `ModelNew` take what the problem gives it? Checked on the CPU from source, before any GPU minute.

KernelBench constructs `ModelNew(*get_init_inputs())` and calls `forward(*get_inputs())`, with the
problem's functions. Both sides are read by AST alone (nothing runs): the kernel's `__init__` and `forward`
parameters (inherited through classes of the same file, or nn.Module's), and the length of the list the
problem's `get_init_inputs()` / `get_inputs()` return (every KernelBench problem returns a list literal;
where one does not, the check is skipped rather than guessed).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

MODULE_BASES = frozenset({"Module", "nn.Module", "torch.nn.Module"})


@dataclass(frozen=True)
class Signature:
    """The positional arity of a method, without `self`."""

    text: str
    """As written: `__init__(self, in_features, out_features)`."""
    required: int
    maximum: int | None
    """None with *args."""

    def accepts(self, count: int) -> bool:
        return self.required <= count and (self.maximum is None or count <= self.maximum)


@dataclass(frozen=True)
class ArityMismatch:
    method: str
    """`__init__` or `forward`."""
    message: str


def _signature(node: ast.FunctionDef) -> Signature:
    args = node.args
    positional = [*args.posonlyargs, *args.args][1:]  # without self
    required = len(positional) - len(args.defaults)
    required_kw = [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True) if d is None]
    if required_kw:  # a keyword-only parameter without default cannot be given by a positional call
        required = 10**6
    text = f"{node.name}({ast.unparse(node.args)})"
    return Signature(text, max(required, 0), None if args.vararg else len(positional))


def _classes(tree: ast.Module) -> dict[str, ast.ClassDef]:
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def method_signature(tree: ast.Module, class_name: str, method: str) -> Signature | None:
    """`class_name.method`'s signature, following bases defined in the same file; nn.Module's `__init__`
    takes nothing; None where it cannot be told (a base imported from elsewhere)."""
    classes = _classes(tree)
    seen: set[str] = set()
    name: str | None = class_name
    while name is not None and name in classes and name not in seen:
        seen.add(name)
        node = classes[name]
        for item in node.body:
            if isinstance(item, ast.FunctionDef) and item.name == method:
                return _signature(item)
        bases = [ast.unparse(b) for b in node.bases]
        if len(bases) == 1 and bases[0] in MODULE_BASES:
            return Signature(f"{method}(self)  [nn.Module's]", 0, 0) if method == "__init__" else None
        name = bases[0] if len(bases) == 1 else None
    return None


def returned_length(tree: ast.Module, function: str) -> int | None:
    """How many items `function()` returns, where it is one `return [...]` of a list literal."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            returns = [r for r in ast.walk(node) if isinstance(r, ast.Return)]
            if len(returns) == 1 and isinstance(returns[0].value, ast.List | ast.Tuple):
                elements = returns[0].value.elts
                if not any(isinstance(e, ast.Starred) for e in elements):
                    return len(elements)
    return None


def arity_mismatches(kernel_source: str, problem_path: Path) -> list[ArityMismatch]:
    """Every way `ModelNew` cannot be built or called with the problem's inputs (raises SyntaxError for a
    kernel that does not parse; the semantics stage checks that first)."""
    kernel = ast.parse(kernel_source)
    problem = ast.parse(problem_path.read_text(encoding="utf-8"))
    mismatches: list[ArityMismatch] = []
    for method, function in (("__init__", "get_init_inputs"), ("forward", "get_inputs")):
        count = returned_length(problem, function)
        theirs = method_signature(kernel, "ModelNew", method)
        if count is None or theirs is None or theirs.accepts(count):
            continue
        reference = method_signature(problem, "Model", method)
        shown = f"Model.{reference.text}" if reference else "Model"
        mismatches.append(ArityMismatch(method, (
            f"ModelNew.{theirs.text} cannot take the {count} argument(s) {function}() of "
            f"{problem_path.parent.name}/{problem_path.name} gives (the problem's {shown})")))
    return mismatches
