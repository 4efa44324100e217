"""Static policy: an AST pass over each kernel file, before any submitted code runs.

The rules (reason codes, severities, what each catches and why) are data in validator.policy.rules and
on the site page site_src/pages/policy-rules.md. This module resolves names through the file's imports
and aliases (`import torch as T`, `from torch import cuda`, `c = torch.cuda`), so `T.cuda.Stream()` is
`torch.cuda.Stream`, then reports each rule once per place with its line and column.

It is a first line: it catches what code says openly. Code built at run time is itself a finding
(`dynamic-code`), and the runtime checks of the evaluation catch what slips through.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from validator.findings import Finding
from validator.policy import rules
from validator.policy.rules import RULES_BY_CODE
from validator.run_context import StageRun

if TYPE_CHECKING:
    from validator.machine import Machine
    from validator.run_context import RunOptions, StageContext

STAGE = "policy"
BUILTIN_CODES = {"exec": "dynamic-code", "eval": "dynamic-code", "compile": "dynamic-code",
                 "__import__": "dynamic-code", "Model": "reference-fallback"}
"""Unbound (not imported) names that break a rule: builtins, and the reference class of the problem file."""
NAMESPACE_ROOTS = frozenset({"os", "sys", "builtins", "__builtins__"})
"""Modules whose attributes a kernel must not reach by a string, even a literal one: their names are the
escape routes (`os.system`, `sys.modules`, `__import__`), and a string hides which one is taken."""


def _dotted(node: ast.AST) -> list[str] | None:
    """`a.b.c` as ['a', 'b', 'c'] for a chain of attributes on a name; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


class _Names:
    """What each name of the file stands for, from its imports and `x = module.attr` assignments."""

    def __init__(self, tree: ast.Module) -> None:
        self.bound: dict[str, str] = {}
        for _ in range(2):  # a second pass resolves aliases of aliases defined later in the file
            for node in ast.walk(tree):
                self._learn(node)

    def _learn(self, node: ast.AST) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.bound[alias.asname] = alias.name
                else:
                    root = alias.name.split(".")[0]
                    self.bound[root] = root
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                self.bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target = self.resolve(node.value)
            if target and target[1]:
                self.bound[node.targets[0].id] = target[0]

    def resolve(self, node: ast.AST) -> tuple[str, bool] | None:
        """(dotted name, whether its root comes from an import) for a name or attribute chain."""
        parts = _dotted(node)
        if parts is None:
            return None
        root = self.bound.get(parts[0])
        if root is None:
            return ".".join(parts), False
        return ".".join([root, *parts[1:]]), True


def _docstrings(tree: ast.Module) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


class _Checker(ast.NodeVisitor):
    """The rules that look at single nodes; forward-reachable rules live in _reachable_findings."""

    def __init__(self, tree: ast.Module, report: _Report) -> None:
        self.names = _Names(tree)
        self.report = report
        self.docstrings = _docstrings(tree)
        self.flagged_roots: set[str] = set()

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._import(node, alias.name, alias.asname or alias.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level or not node.module:
            return
        if self._import(node, node.module, None):
            self.flagged_roots.update(a.asname or a.name for a in node.names)
            return
        for alias in node.names:
            self._import(node, f"{node.module}.{alias.name}", alias.asname or alias.name)

    def _import(self, node: ast.AST, module: str, bound_as: str | None) -> bool:
        code = rules.code_for_name(module)
        if code is None:
            return False
        self.report.add(code, node, f"imports {module}")
        if bound_as:
            self.flagged_roots.add(bound_as)
        return True

    def visit_Name(self, node: ast.Name) -> None:
        self._reference(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        chain = _dotted(node) or ["", node.attr]
        for attr in (a for a in chain[1:] if a in rules.FRAME_ATTRIBUTES):
            self.report.add("introspection", node, f"reads .{attr}")
        if not self._reference(node):
            self.generic_visit(node)

    def _reference(self, node: ast.Name | ast.Attribute) -> bool:
        """Check a name chain as a whole; True when it was one (its parts need no visit)."""
        resolved = self.names.resolve(node)
        if resolved is None:
            return False
        if not isinstance(node.ctx, ast.Load) or (_dotted(node) or [""])[0] in self.flagged_roots:
            return True  # stores are judged by _store; a flagged import is reported once, at the import
        dotted, imported = resolved
        code = rules.code_for_name(dotted) if imported else BUILTIN_CODES.get(dotted)
        if not imported and dotted.split(".")[0] == "__builtins__":
            code = "dynamic-code"  # the builtins by another name: `__builtins__["__import__"]`, `.__dict__`
        if code:
            self.report.add(code, node, f"uses {dotted}")
        return True

    def visit_Call(self, node: ast.Call) -> None:
        func = node.func
        name = self.names.resolve(func)
        dotted, imported = name if name else ("", False)
        if dotted in ("open", "builtins.open", "io.open"):
            self._open(node, 1)
        elif isinstance(func, ast.Attribute) and func.attr == "open" and not imported:
            self._open(node, 0)  # Path(...).open(mode)
        elif dotted in ("setattr", "delattr") and node.args:
            self._setattr(node, dotted)
        elif dotted in ("getattr", "builtins.getattr") and len(node.args) >= 2:
            self._getattr(node)
        elif dotted in ("vars", "builtins.vars") and node.args:
            target = self._module(node.args[0])
            if target:
                self.report.add("dynamic-code", node, f"vars() of {target}: its attributes by string")
        elif dotted == "triton.language.dot":
            self._triton_dot(node)
        if isinstance(func, ast.Attribute):
            self._method(node, func)
        self.generic_visit(node)

    def _module(self, node: ast.AST) -> str | None:
        """The dotted name when node is an imported name (a module or its attribute) or `__builtins__`."""
        target = self.names.resolve(node)
        if target and (target[1] or target[0].split(".")[0] == "__builtins__"):
            return target[0]
        return None

    def _getattr(self, node: ast.Call) -> None:
        target = self._module(node.args[0])
        name = node.args[1]
        if target is None:
            return
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
            self.report.add("dynamic-code", node, f"getattr on {target} with a computed name")
            return
        code = rules.code_for_name(f"{target}.{name.value}")  # a literal name is judged as if written out
        if code:
            self.report.add(code, node, f"uses {target}.{name.value} through getattr")
        elif target.split(".")[0] in NAMESPACE_ROOTS:
            self.report.add("dynamic-code", node, f"getattr on {target}")

    def _open(self, node: ast.Call, mode_index: int) -> None:
        given = node.args[mode_index] if len(node.args) > mode_index else None
        mode = given or next((k.value for k in node.keywords if k.arg == "mode"), None)
        if mode is None:
            self.report.add("file-read", node, "opens a file for reading")
        elif not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)):
            self.report.add("file-write", node, "opens a file with a computed mode")
        elif set(mode.value) & set("wax+"):
            self.report.add("file-write", node, f"opens a file for writing (mode {mode.value!r})")
        else:
            self.report.add("file-read", node, "opens a file for reading")

    def _setattr(self, node: ast.Call, which: str) -> None:
        target = self.names.resolve(node.args[0])
        if not target or not target[1] or target[0].split(".")[0] not in rules.PROTECTED_ROOTS:
            return
        attr = node.args[1] if len(node.args) > 1 else None
        literal = attr.value if isinstance(attr, ast.Constant) and isinstance(attr.value, str) else ""
        if literal and rules.PRECISION_FLAGS.fullmatch(literal):
            self.report.add("precision-toggle", node, f"sets {target[0]}.{literal}")
        else:
            self.report.add("monkey-patch", node, f"{which} on {target[0]}")

    def _triton_dot(self, node: ast.Call) -> None:
        keywords = {k.arg: k.value for k in node.keywords}
        precision, allow = keywords.get("input_precision"), keywords.get("allow_tf32")
        if isinstance(precision, ast.Constant) and precision.value in ("ieee", "IEEE"):
            return
        if isinstance(allow, ast.Constant) and allow.value is False:
            return
        self.report.add("triton-tf32", node, "tl.dot without input_precision='ieee' uses TF32 for fp32 inputs")

    def _method(self, node: ast.Call, func: ast.Attribute) -> None:
        if func.attr in rules.DOWNCAST_METHODS and not node.args:
            self.report.add("precision-toggle", node, f"downcasts with .{func.attr}()")
        elif func.attr in ("to", "type"):
            for arg in [*node.args, *(k.value for k in node.keywords)]:
                resolved = self.names.resolve(arg)
                text = resolved[0] if resolved else (arg.value if isinstance(arg, ast.Constant) else "")
                if isinstance(text, str) and rules.LOW_DTYPES.fullmatch(text):
                    self.report.add("precision-toggle", node, f"downcasts with .{func.attr}({text})")
        elif func.attr in rules.FILE_METHODS:
            self.report.add(rules.FILE_METHODS[func.attr], node, f"calls .{func.attr}()")

    def visit_Assign(self, node: ast.Assign) -> None:
        for target in node.targets:
            self._store(target, node.value)
        self.generic_visit(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self._store(node.target, None)
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self._store(node.target, node.value)
        self.generic_visit(node)

    def visit_Delete(self, node: ast.Delete) -> None:
        for target in node.targets:
            self._store(target, None)
        self.generic_visit(node)

    def _store(self, target: ast.AST, value: ast.AST | None) -> None:
        """Assignments and deletions: rebinding anything of a protected module is patching it."""
        if isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._store(element, None)
        elif isinstance(target, ast.Starred):
            self._store(target.value, None)
        elif isinstance(target, ast.Name) and target.id == "__builtins__":
            self.report.add("monkey-patch", target, "rebinds __builtins__")
        elif isinstance(target, ast.Attribute | ast.Subscript):
            resolved = self.names.resolve(target.value)
            if resolved and resolved[0] in ("__builtins__", "sys.modules"):
                self.report.add("monkey-patch", target, f"assigns into {resolved[0]}")
            elif resolved and resolved[1] and resolved[0].split(".")[0] in rules.PROTECTED_ROOTS:
                self._module_store(target, resolved[0], value)

    def _module_store(self, target: ast.Attribute | ast.Subscript, where: str, value: ast.AST | None) -> None:
        if where == "os.environ":
            return  # environment variables (TORCH_CUDA_ARCH_LIST, ...) configure builds; the sandbox scrubs them
        attr = target.attr if isinstance(target, ast.Attribute) else "[...]"
        if rules.PRECISION_FLAGS.fullmatch(attr):
            if not (isinstance(value, ast.Constant) and value.value is False):  # False keeps full precision
                self.report.add("precision-toggle", target, f"sets {where}.{attr}")
        elif where.startswith("torch.backends"):
            self.report.add("global-state", target, f"sets {where}.{attr}")
        else:
            self.report.add("monkey-patch", target, f"assigns {where}.{attr}")

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            resolved = self.names.resolve(base)
            if resolved and resolved[1] and rules.TENSOR_BASES.fullmatch(resolved[0]):
                self.report.add("tensor-subclass", node, f"class {node.name} derives from {resolved[0]}")
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        if node.name in ("__torch_function__", "__torch_dispatch__"):
            self.report.add("tensor-subclass", node, f"defines {node.name}")
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            resolved = self.names.resolve(target)
            if resolved and rules.CACHE_DECORATORS.fullmatch(resolved[0]) and _may_take_tensors(node):
                self.report.add("cross-call-cache", node, f"{node.name} is cached by {resolved[0]}")
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and id(node) not in self.docstrings:
            for pattern, code in rules.SOURCE_PATTERNS:
                for match in pattern.finditer(node.value):
                    line = node.lineno + node.value.count("\n", 0, match.start())
                    self.report.add(code, node, f"source string contains {match.group(0).strip()!r}", line=line)


def _may_take_tensors(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    params = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    params = [p for p in params if p.arg not in ("self", "cls")]
    params += [p for p in (node.args.vararg, node.args.kwarg) if p is not None]
    return any(p.annotation is None or not rules.PLAIN_ANNOTATIONS.fullmatch(ast.unparse(p.annotation))
               for p in params)


class _Report:
    def __init__(self, filename: str, backend: str) -> None:
        self.filename = filename
        self.backend = backend
        self.found: dict[tuple[str, int], Finding] = {}

    def add(self, code: str, node: ast.AST, detail: str, line: int | None = None) -> None:
        if code in ("torch-compile", "reference-fallback") and self.backend == "torch-compile":
            return  # the compiler baseline compiles the reference Model: that is what it measures
        rule = RULES_BY_CODE[code]
        line = line if line is not None else getattr(node, "lineno", None)
        column = getattr(node, "col_offset", -1) + 1 if line == getattr(node, "lineno", None) else None
        key = (code, line or 0)  # one finding per rule and line is enough to point at it
        if key not in self.found:
            message = f"{detail}: {rule.why}"
            self.found[key] = Finding(code, STAGE, message, file=self.filename, line=line, column=column,
                                      severity=rule.severity)


def policy_findings(source: str, filename: str, backend: str, reference: str | None = None) -> list[Finding]:
    """Every rule the kernel source breaks, in line order; never executes it. `reference`: the problem file's
    source, whose own cross-call state (an RNN's hidden state) a kernel may mirror."""
    report = _Report(filename, backend)
    try:
        tree = ast.parse(source, filename=filename)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        report.found[("syntax-error", 0)] = Finding(
            "syntax-error", STAGE, f"cannot parse: {getattr(exc, 'msg', exc)}", file=filename, line=line)
        return list(report.found.values())
    checker = _Checker(tree, report)
    checker.visit(tree)
    rules.forward_findings(tree, checker.names.resolve, report.add, _reference_state(reference))
    return sorted(report.found.values(), key=lambda f: (f.line or 0, f.column or 0, f.code))


def _reference_state(reference: str | None) -> frozenset[str]:
    try:
        return rules.written_state(ast.parse(reference)) if reference else frozenset()
    except (SyntaxError, ValueError):
        return frozenset()


def unavailable(machine: Machine, options: RunOptions) -> str | None:
    return None  # pure Python: runs everywhere


def run_stage(context: StageContext) -> StageRun:
    """The policy stage of the pipeline: every kernel of the submission, with its problem key."""
    from pathlib import Path

    findings: list[Finding] = []
    base = Path(context.shown).parent / context.submission.slug
    for entry in context.submission.kernels:
        problem = (context.catalogue.resolve(entry.level, entry.problem_id, entry.problem_sha256)
                   or context.catalogue.get(entry.level, entry.problem_id))
        key = problem.key if problem else f"level{entry.level}/{entry.problem_id}"
        shown = (base / entry.path).as_posix()
        try:
            source = entry.file.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            message = f"cannot read the kernel: {exc}"
            findings.append(Finding("kernel-unreadable", STAGE, message, file=shown, problem=key,
                                    json_path=entry.json_path))
            continue
        reference = problem.path.read_text(encoding="utf-8") if problem else None
        for finding in policy_findings(source, shown, entry.backend, reference):
            findings.append(Finding(finding.code, STAGE, finding.message, file=shown, line=finding.line,
                                    column=finding.column, problem=key, severity=finding.severity))
    return StageRun(findings)
