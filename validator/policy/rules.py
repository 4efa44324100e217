"""The static policy's rules: reason codes, severities, the names and source patterns they match.

validator.policy.stage walks a kernel's AST and looks names up here. The rules about `forward` and the
functions it calls (try-except, cross-call-cache) need the file's call graph and live at the end of this
module. The site's rules table (site_src/pages/policy-rules.md) is rendered from RULES by
`rules_markdown()`, and a test keeps the two equal. A rule either rejects the kernel (error) or flags it
for a maintainer's review (warning).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from validator.findings import Severity

ERROR, WARNING = Severity.ERROR, Severity.WARNING
Resolve = Callable[[ast.AST], "tuple[str, bool] | None"]
"""Dotted name of a node and whether its root comes from an import (validator.policy.stage resolves it)."""
Add = Callable[..., None]
"""Records a finding: add(code, node, detail)."""


@dataclass(frozen=True)
class Rule:
    code: str
    severity: Severity
    catches: str
    why: str


RULES: tuple[Rule, ...] = (
    Rule("thread", ERROR, "`threading`, `_thread`, `multiprocessing`, `concurrent.futures`, `os.fork`; "
         "`std::thread`, `pthread_create` in C++/CUDA sources",
         "work on a background thread or process can continue after the timer stops"),
    Rule("subprocess", ERROR, "`subprocess`, `os.system`, `os.popen`, `os.exec*`, `os.spawn*`, `pty`; "
         "`system(`, `popen(`, `fork(` in sources", "a child process escapes the sandbox's accounting"),
    Rule("stream", ERROR, "`torch.cuda.Stream`, `torch.cuda.stream(...)`, `ExternalStream`, `set_stream`; "
         "`cudaStreamCreate*`, `getStreamFromPool`, `setCurrentCUDAStream` in sources",
         "work on a side stream is not covered by the events recorded on the current stream"),
    Rule("persisting-l2", ERROR, "`cudaLimitPersistingL2CacheSize`, `accessPolicyWindow` in sources",
         "persisting L2 lines survive the harness's cache flush, so timings stop being cold-cache"),
    Rule("monkey-patch", ERROR, "assigning or deleting attributes of `torch`, `time`, `triton`, `validator`, "
         "`builtins`, `numpy`, `os`, `sys`, ... (also through aliases, `setattr`, `sys.modules`)",
         "a patched timer, `synchronize`, `allclose` or harness function fakes the measurement"),
    Rule("global-state", WARNING, "assigning `torch.backends.*` flags other than precision ones "
         "(`cudnn.benchmark`, ...); seeding or setting torch's random state",
         "the reference and the input draws share the process: their algorithms, timing or seeds change too"),
    Rule("introspection", ERROR, "`sys._getframe`, `sys.modules`, `sys.settrace`, `inspect`, `gc` (any use), "
         "`ctypes`, frame attributes (`f_back`, `f_locals`, `__globals__`, ...)",
         "the harness's frames and objects hold the reference output and the seeds"),
    Rule("dynamic-code", ERROR, "`exec`, `eval`, `compile`, `__import__`, `importlib`, `runpy`, `pickle`, "
         "`marshal`, `getattr` on a module with a computed name; `vars()`, `__dict__` of a module; "
         "`getattr` on `os`, `sys`, `builtins`; any use of `__builtins__`",
         "code built at run time cannot be checked by this policy"),
    Rule("file-write", ERROR, "`open()` for writing (or with a computed mode), `os` file operations, `shutil`, "
         "`tempfile`, `Path.write_text`; `fopen`, `ofstream` in sources",
         "a kernel has nothing to write; writes can leave state between runs or tamper with results"),
    Rule("file-read", WARNING, "`open()` for reading, `Path.read_text`, `os.listdir`, `glob`",
         "a kernel should not need files; reading one may reach data it must not see"),
    Rule("network", ERROR, "`socket`, `ssl`, `urllib`, `http`, `requests`, `httpx`, `aiohttp`, ...; "
         "`<sys/socket.h>` in sources", "no network during evaluation"),
    Rule("try-except", WARNING, "`try`/`except` or `contextlib.suppress` in `forward` or a function it calls",
         "a silent fallback to the reference op when the kernel fails hides that the kernel does not work"),
    Rule("tensor-subclass", ERROR, "classes deriving from `torch.Tensor` or a dispatch/function mode; "
         "`__torch_function__`, `__torch_dispatch__`, `_make_subclass`",
         "a lazy tensor can compute during the comparison, after the timer"),
    Rule("torch-compile", ERROR, "`torch.compile`, `torch._dynamo`, `torch._inductor`, `torch.export` "
         "(allowed when the kernel's backend is `torch-compile`)",
         "the compiler baseline is measured separately; a kernel must not be the compiler's output"),
    Rule("reference-fallback", ERROR, "using the problem's `Model` class, importing `problems` (allowed when "
         "the kernel's backend is `torch-compile`, whose kernel is the reference, compiled)",
         "calling the reference is not a kernel"),
    Rule("precision-toggle", WARNING, "`allow_tf32`, `set_float32_matmul_precision`, `autocast`, "
         "`set_default_dtype`, `.half()`, `.bfloat16()`, `.to(torch.float16)`",
         "lower precision can be legitimate (fp16 problems) but is a classic silent speedup"),
    Rule("triton-tf32", WARNING, "`tl.dot` without `input_precision=\"ieee\"` (or `allow_tf32=False`)",
         "Triton's `tl.dot` rounds fp32 inputs to TF32 by default"),
    Rule("cross-call-cache", WARNING, "module-level containers mutated, `global` rebinding or `self.<attr>` "
         "assignment in `forward` or a function it calls; `functools.cache`/`lru_cache` on functions that may "
         "take tensors", "outputs cached by input identity or replayed across calls pass without computing"),
    Rule("validator-import", ERROR, "`import validator`", "the harness is not an API for kernels"),
    Rule("process-control", ERROR, "`os._exit`, `os.abort`, `os.kill`, `os.killpg`, `sys.exit`, `signal`, "
         "`sys.argv`; `_exit(`, `kill(`, `syscall(`, `vfork(`, `posix_spawn(`, `exec*(` in sources",
         "ending the process early, signalling others or reading the harness's arguments only serves an escape "
         "(the judge survives these anyway: see the threat model)"),
    Rule("escape-helpers", ERROR, "`pkgutil.resolve_name` and `pkgutil` loaders, `importlib` helpers, "
         "`webbrowser`, `torch.load`; numpy's `tofile`, `fromfile`, `save*`, `load*`, `memmap`; `io.FileIO`, "
         "`io.open`, `os.fdopen`, `mmap`, `torch.save`; `open(`, `write(` (also `::open(`, ...), "
         "`__attribute__((constructor))`/`destructor` in sources",
         "each reaches files, objects or code by a route the other rules do not name (a constructor runs "
         "when the library loads, outside any timed call)"),
    Rule("syntax-error", ERROR, "source that does not parse", "nothing can be checked"),
)
RULES_BY_CODE = {rule.code: rule for rule in RULES}

# Dotted names (after resolving imports and aliases) and the rule they break. A pattern matches the name
# itself and anything under it (`os.exec\w*` matches `os.execv`; `threading` matches `threading.Thread`).
NAME_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"threading|_thread|multiprocessing|concurrent\.futures|torch\.multiprocessing", "thread"),
    (r"os\.(fork|forkpty|register_at_fork)", "thread"),
    (r"subprocess|pty|os\.(system|popen|exec\w*|spawn\w*|posix_spawn\w*)|asyncio\.create_subprocess_\w+",
     "subprocess"),
    (r"torch\.(cuda\.)?(Stream|stream|ExternalStream|set_stream|StreamContext)|torch\.cuda\.streams", "stream"),
    (r"torch\.(compile|_dynamo|_inductor|export)", "torch-compile"),
    (r"sys\.(_getframe|_current_frames|settrace|setprofile|modules)|inspect|ctypes|_ctypes|cffi", "introspection"),
    (r"gc|traceback\.(walk_stack|extract_stack)", "introspection"),
    (r"exec|eval|compile|__import__|importlib|runpy|pickle|marshal|types\.(CodeType|FunctionType)|builtins\."
     r"(exec|eval|compile|__import__)|[\w.]+\.__dict__", "dynamic-code"),
    (r"socket|ssl|urllib|urllib3|http|requests|httpx|aiohttp|ftplib|smtplib|telnetlib|xmlrpc|websockets?|"
     r"paramiko|asyncio\.open_connection", "network"),
    (r"shutil|tempfile|os\.(remove|unlink|rename|renames|replace|makedirs|mkdir|rmdir|removedirs|chmod|chown|"
     r"link|symlink|truncate|mkfifo|open|write)", "file-write"),
    (r"os\.(listdir|scandir|walk)|glob", "file-read"),
    (r"validator", "validator-import"),
    (r"torch\.(cuda\.)?(manual_seed\w*|seed|set_rng_state|random)", "global-state"),
    (r"problems|Model", "reference-fallback"),
    (r"torch\.Tensor\._make_subclass|torch\.overrides\.TorchFunctionMode|torch\.utils\._python_dispatch",
     "tensor-subclass"),
    (r"torch\.(set_float32_matmul_precision|autocast|set_default_dtype|set_autocast_\w+)|torch\.(cuda\.)?amp",
     "precision-toggle"),
    (r"os\.(_exit|abort|kill|killpg|pidfd_open)|sys\.(exit|argv|orig_argv)|signal", "process-control"),
    (r"pkgutil|webbrowser|mmap|torch\.(save|load)|io\.(FileIO|open|open_code)|os\.fdopen|codecs\.open|"
     r"numpy\.(fromfile|save|savez\w*|savetxt|load|loadtxt|genfromtxt|memmap|lib\.format)", "escape-helpers"),
)
_NAME_RES = tuple((re.compile(rf"(?:{pattern})(?:\..*)?"), code) for pattern, code in NAME_PATTERNS)

PROTECTED_ROOTS = frozenset({
    "torch", "time", "triton", "validator", "builtins", "__builtins__", "numpy", "os", "sys", "gc", "json",
    "random", "secrets", "math", "statistics", "functools", "contextlib", "threading",
})
"""Modules whose attributes a kernel must not assign, delete or setattr."""
PRECISION_FLAGS = re.compile(r"allow_tf32|allow_(fp16|bf16)_reduced_precision_reduction\w*|fp32_precision")
TENSOR_BASES = re.compile(r"torch\.(Tensor|_C\.(_?TensorBase)|nn\.Parameter|overrides\.TorchFunctionMode|"
                          r"utils\._python_dispatch\.\w+)")
DOWNCAST_METHODS = frozenset({"half", "bfloat16"})
LOW_DTYPES = re.compile(r"torch\.(float16|half|bfloat16)|torch\.(cuda\.)?(HalfTensor|BFloat16Tensor)")
FRAME_ATTRIBUTES = frozenset({
    "f_back", "f_locals", "f_globals", "f_builtins", "gi_frame", "cr_frame", "ag_frame", "tb_frame", "tb_next",
    "__globals__", "__closure__", "__code__", "__subclasses__",
})
FILE_METHODS = {"write_text": "file-write", "write_bytes": "file-write", "touch": "file-write",
                "unlink": "file-write", "rmdir": "file-write", "symlink_to": "file-write",
                "hardlink_to": "file-write", "read_text": "file-read", "read_bytes": "file-read",
                "tofile": "escape-helpers", "fromfile": "escape-helpers"}
MUTATING_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "__setitem__", "pop",
                              "popitem"})
BATCHNORM_STATE = frozenset({"running_mean", "running_var", "num_batches_tracked"})
DEVICE_MOVES = frozenset({"to", "cuda", "cpu", "type", "contiguous", "detach", "float", "double", "half"})
CACHE_DECORATORS = re.compile(r"functools\.(cache|lru_cache|cached_property)|cache|lru_cache|cached_property")
PLAIN_ANNOTATIONS = re.compile(r"(int|float|bool|str|bytes|None|torch\.dtype|tuple(\[.*\])?|"
                               r"(int|float|bool|str) \| None)")

# Patterns in string constants (C++/CUDA sources for load_inline), docstrings excluded.
SOURCE_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p), code) for p, code in (
    (r"\bstd::(thread|async|jthread)\b|\bpthread_create\b", "thread"),
    (r"\b(system|popen|execv\w*|fork)\s*\(", "subprocess"),
    (r"\b(cudaStreamCreate\w*|cuStreamCreate\w*|getStreamFromPool|setCurrentCUDAStream|cudaStreamPerThread|"
     r"cudaStreamNonBlocking|CUDAStreamGuard)\b", "stream"),
    (r"\b(cudaLimitPersistingL2CacheSize|accessPolicyWindow|cudaAccessPropertyPersisting|"
     r"cudaStreamAttributeAccessPolicyWindow)\b", "persisting-l2"),
    (r"\b(fopen|fopen64|freopen)\s*\(|\b(std::)?[io]?fstream\b|\bofstream\b", "file-write"),
    (r"<sys/socket\.h>|\bsocket\s*\(", "network"),
    (r"\bdlopen\s*\(|\bdlsym\s*\(", "dynamic-code"),
    (r"\b(_exit|_Exit|kill|killpg|tgkill|syscall|vfork|posix_spawnp?|exec[lv]p?e?)\s*\(", "process-control"),
    (r"(?<![\w.>:])(open|openat|creat|write|pwrite)\s*\(", "escape-helpers"),
    # `::open(` names the global (libc) function; `x::open(` is some class's member and stays allowed
    (r"(?<![\w:])::\s*(open|open64|openat|creat|write|pwrite)\s*\(", "escape-helpers"),
    (r"__attribute__\s*\(\([^)]*\b(constructor|destructor)\b|\[\[\s*gnu::(constructor|destructor)\b|"
     r"\.(init|fini)_array\b", "escape-helpers"),
))


def code_for_name(dotted: str) -> str | None:
    """The rule a dotted name breaks, or None."""
    for pattern, code in _NAME_RES:
        if pattern.fullmatch(dotted):
            return code
    return None


def rules_markdown() -> str:
    """The rules table for the site, from RULES."""
    lines = [
        "# Static policy rules",
        "",
        "Every kernel file is parsed (never executed) before anything runs. Each rule has a stable reason "
        "code. **error** rejects the kernel; **warning** flags it for a maintainer's review and does not fail "
        "the submission. Generated from `validator/policy/rules.py`; do not edit by hand.",
        "",
        "| code | severity | catches | why |",
        "|---|---|---|---|",
    ]
    for rule in RULES:
        catches = rule.catches.replace("|", "\\|")
        lines.append(f"| `{rule.code}` | {rule.severity.value} | {catches} | {rule.why} |")
    return "\n".join(lines) + "\n"


# ---- Rules that follow forward's calls -------------------------------------------------------------

def _functions(tree: ast.Module) -> tuple[dict[str, ast.AST], dict[str, dict[str, ast.AST]]]:
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    classes = {
        c.name: {m.name: m for m in c.body if isinstance(m, ast.FunctionDef | ast.AsyncFunctionDef)}
        for c in ast.walk(tree) if isinstance(c, ast.ClassDef)
    }
    return functions, classes


def _reachable(tree: ast.Module) -> Iterator[ast.AST]:
    """`forward` (and `__call__`) of every class, and the file's functions and methods they call."""
    functions, classes = _functions(tree)
    todo = [(m, cls) for cls, methods in classes.items() for name, m in methods.items()
            if name in ("forward", "__call__")]
    seen: set[int] = set()
    while todo:
        function, cls = todo.pop()
        if id(function) in seen:
            continue
        seen.add(id(function))
        yield function
        for call in (n for n in ast.walk(function) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Name) and call.func.id in functions:
                todo.append((functions[call.func.id], None))
            elif (isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                  and call.func.value.id == "self" and cls and call.func.attr in classes[cls]):
                todo.append((classes[cls][call.func.attr], cls))


def _module_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _local_names(function: ast.AST) -> set[str]:
    args = function.args  # type: ignore[attr-defined]
    names = {a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg] if a}
    names.update(n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    return names


def _is_state(node: ast.AST, shared: set[str]) -> str | None:
    """'self.x', a module-level name, or an attribute of one, when `node` is one of those; else None."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and (
        node.value.id == "self" or node.value.id in shared
    ):
        return f"{node.value.id}.{node.attr}"
    if isinstance(node, ast.Name) and node.id in shared:
        return node.id
    return None


def _state_stores(function: ast.AST, shared: set[str]) -> Iterator[tuple[ast.AST, str, ast.AST | None]]:
    """(target, 'self.x' or module name, assigned value) for each store into state in `function`."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign | ast.AugAssign | ast.AnnAssign):
            for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                holder = target.value if isinstance(target, ast.Subscript) else target
                state = _is_state(holder, shared) if isinstance(holder, ast.Attribute | ast.Subscript) or (
                    holder is not target) else None  # rebinding a plain local name is not state
                if state:
                    yield target, state, node.value


def written_state(tree: ast.Module) -> frozenset[str]:
    """The `self.<attr>` a file's forward (and what it calls) stores into: run over the problem's reference,
    the state a kernel may mirror (an RNN's hidden state that the reference itself carries across calls)."""
    return frozenset(state for function in _reachable(tree)
                     for _, state, _ in _state_stores(function, set()) if state.startswith("self."))


def _mirrors(state: str, value: ast.AST | None, mirrored: frozenset[str]) -> bool:
    """Whether a store is the reference's own cross-call state, not a cache: what the reference stores too,
    BatchNorm's running statistics (updated by the reference's nn.BatchNorm in training mode), or a tensor
    attribute moved to the input's device or dtype (`self.h0 = self.h0.to(x.device)`)."""
    attr = state.removeprefix("self.")
    if state in mirrored or (state.startswith("self.") and (attr in BATCHNORM_STATE or attr.startswith("running_"))):
        return True
    return (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr in DEVICE_MOVES
            and ast.unparse(value.func.value) == state)


def forward_findings(tree: ast.Module, resolve: Resolve, add: Add, mirrored: frozenset[str] = frozenset()) -> None:
    """try-except and cross-call-cache: rules about `forward` and every function of the file it calls.
    `mirrored`: the state the problem's reference stores across calls itself (`written_state`)."""
    module_names = _module_names(tree)
    for function in _reachable(tree):
        shared = module_names - _local_names(function)
        for target, state, value in _state_stores(function, shared):
            if not _mirrors(state, value, mirrored):
                add("cross-call-cache", target, f"stores into {state} across calls")
        for node in ast.walk(function):
            if isinstance(node, ast.Try | ast.TryStar) and node.handlers:
                add("try-except", node, f"try/except in {function.name}")  # type: ignore[attr-defined]
            elif isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call):
                resolved = resolve(node.context_expr.func)
                if resolved and resolved[0] == "contextlib.suppress":
                    add("try-except", node.context_expr, "contextlib.suppress swallows errors")
            elif isinstance(node, ast.Global):
                add("cross-call-cache", node, f"global {', '.join(node.names)} rebinds module state")
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                  and node.func.attr in MUTATING_METHODS and _is_state(node.func.value, shared)):
                add("cross-call-cache", node, f"mutates {_is_state(node.func.value, shared)} across calls")
