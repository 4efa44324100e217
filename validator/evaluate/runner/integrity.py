"""Runtime anti-cheat checks: each catches one class of harness exploit and names it with a stable reason
code (the threat-model page lists them with the tests that prove them).

Since the judge/runner split the guards (identity snapshot, thread watch, output ledger, precision switches,
persisting L2) run in the runner, the kernel's own process: they are advisory, naming a cheat precisely, and
can only count against the kernel; the judge's own comparisons and clock are what a kernel cannot get past.
The runner builds every watcher before it imports the kernel module, so the state they compare against was
taken while only the harness, torch and the trusted problem file had run. The reason-code sets, the precision
settings and the profiler attribution's record are shared with the judge (`validator/evaluate/anticheat.py`).
"""

from __future__ import annotations

import ctypes
import importlib
import json
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import torch
from torch.multiprocessing.reductions import StorageWeakRef

from validator.evaluate.anticheat import Attribution, force_full_precision, is_own_kernel, kernel_base_name
from validator.evaluate.correctness import PASSED, Check

WATCHED_MODULES = (
    "builtins", "time", "threading", "_thread", "json", "gc", "numpy",
    "torch", "torch.cuda", "torch.nn.functional", "torch.profiler", "torch.autograd", "torch.backends.cudnn",
    "validator.evaluate.correctness", "validator.evaluate.anticheat", "validator.evaluate.runner.integrity",
    "validator.files", "validator.results.records", "validator.catalogue.problem_module", "validator.evaluate.jobs",
)  # fmt: skip
"""Modules whose callables (functions, classes, submodules) must keep their identity. Only modules the runner
itself may import: the judge's package (`validator/evaluate/judge/`) runs in another process, and watching it
here would import it into the kernel's."""
WATCHED_CLASSES = (
    "torch.Tensor", "torch.nn.Module", "torch.cuda.Event", "torch.cuda.Stream", "torch.UntypedStorage",
    "torch.profiler.profile",
)  # fmt: skip
"""Classes whose attributes (through the MRO) must keep their identity: methods, properties, dunders."""


# ---- Identity of torch, timer and harness functions ---------------------------------------------------


def _resolve(dotted: str) -> Any:
    module, _, attr = dotted.rpartition(".")
    for candidate, rest in ((dotted, ""), (module, attr)):
        try:
            obj = importlib.import_module(candidate)
        except ImportError:
            continue
        return getattr(obj, rest, None) if rest else obj
    return None


def _entry(obj: Any) -> tuple[Any, Any]:
    return obj, getattr(obj, "__code__", None)


def snapshot() -> dict[str, tuple[Any, Any]]:
    """Every watched name -> (object, its code object); holds strong references so ids stay meaningful."""
    entries: dict[str, tuple[Any, Any]] = {}
    for dotted in WATCHED_MODULES:
        module = _resolve(dotted)
        for name, obj in dict(vars(module) if module is not None else {}).items():
            if callable(obj) or type(obj).__name__ == "module":
                entries[f"{dotted}.{name}"] = _entry(obj)
    for dotted in WATCHED_CLASSES:
        cls = _resolve(dotted)
        for klass in getattr(cls, "__mro__", ())[:-1]:
            for name, obj in dict(vars(klass)).items():
                entries.setdefault(f"{dotted}.{name}", _entry(obj))
    return entries


def changed_names(before: dict[str, tuple[Any, Any]], after: dict[str, tuple[Any, Any]]) -> list[str]:
    """Names rebound, deleted or whose function code was replaced since `before` (new names are fine)."""
    out = []
    for name, (obj, code) in before.items():
        now = after.get(name)
        if now is None or now[0] is not obj or now[1] is not code:
            out.append(name)
    return out


def precision_settings() -> dict[str, Any]:
    """The global switches that let matmuls and convolutions run below fp32 precision."""
    return {
        "float32_matmul_precision": torch.get_float32_matmul_precision(),
        "cudnn.allow_tf32": bool(torch.backends.cudnn.allow_tf32),
    }


# ---- Threads --------------------------------------------------------------------------------------------


class ThreadWatch:
    """Counts every thread started through `threading`/`_thread` from the moment it is installed."""

    _HOOKS = ("_start_new_thread", "_start_joinable_thread", "start_new_thread", "start_joinable_thread")

    def __init__(self) -> None:
        self.started: list[str] = []
        import _thread

        for module in (threading, _thread):
            for name in self._HOOKS:
                original = getattr(module, name, None)
                if original is not None:
                    setattr(module, name, self._wrap(original))

    def _wrap(self, original: Callable[..., Any]) -> Callable[..., Any]:
        def counted(function: Any, *args: Any, **kwargs: Any) -> Any:
            target = getattr(getattr(function, "__self__", None), "name", None) or getattr(function, "__name__", "?")
            self.started.append(str(target))
            return original(function, *args, **kwargs)

        return counted

    def mark(self) -> int:
        return len(self.started)

    def check(self, mark: int, alive_before: set[int]) -> Check:
        """Threads started since `mark`, and Python threads alive now that were not alive before."""
        started = self.started[mark:]
        alive = [t.name for t in threading.enumerate() if t.ident not in alive_before]
        if started or alive:
            names = ", ".join(sorted(set(started) | set(alive)))
            return Check(False, "background-thread", f"kernel code started or left running thread(s): {names}")
        return PASSED


def live_threads() -> set[int]:
    return {t.ident for t in threading.enumerate() if t.ident is not None}


# ---- Output storage ------------------------------------------------------------------------------------


def _span(t: torch.Tensor) -> tuple[int, int] | None:
    storage = t.untyped_storage()
    start = storage.data_ptr()
    return (start, start + storage.nbytes()) if storage.nbytes() and start else None


def _overlaps(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    return a is not None and b is not None and a[0] < b[1] and b[0] < a[1]


class OutputLedger:
    """Remembers the storage of every output a kernel returned, weakly: an output that shares memory with
    an input, a harness-held reference tensor, or an earlier output the kernel still keeps alive is an
    alias or a replay, never a fresh result."""

    def __init__(self) -> None:
        self._earlier: list[tuple[StorageWeakRef, tuple[int, int]]] = []

    def check(self, outs: Sequence[torch.Tensor], inputs: Sequence[Any], held: Sequence[torch.Tensor]) -> Check:
        self._earlier = [(w, s) for w, s in self._earlier if not w.expired()]
        for out in outs:
            span = _span(out)
            if any(_overlaps(span, _span(x)) for x in inputs if isinstance(x, torch.Tensor)):
                return Check(False, "output-aliases-input", "output shares memory with an input tensor")
            if any(_overlaps(span, _span(x)) for x in held):
                return Check(False, "output-aliases-reference", "output shares memory with the harness's reference")
            if any(_overlaps(span, s) for _, s in self._earlier):
                return Check(False, "output-replayed", "output shares memory with an earlier output it kept alive")
        for out in outs:
            span = _span(out)
            if span is not None:
                self._earlier.append((StorageWeakRef(out.untyped_storage()), span))
        return PASSED


# ---- Persisting L2 ---------------------------------------------------------------------------------------

_PERSISTING_L2_LIMIT = 0x06  # cudaLimitPersistingL2CacheSize


def _load_cudart() -> Any:
    """The CUDA runtime library torch loaded (found in /proc/self/maps), or None."""
    try:
        lines = Path("/proc/self/maps").read_text().splitlines()
    except OSError:
        return None
    paths = sorted({line.split()[-1] for line in lines if "libcudart" in line.rsplit("/", 1)[-1]})
    for path in paths:
        try:
            return ctypes.CDLL(path)
        except OSError:
            continue
    return None


class PersistingL2:
    """Resets the persisting-L2 carve-out (lines that survive an L2 flush) and reads its limit back.

    torch has no public API for it, so this calls the CUDA runtime through ctypes; `available` records
    whether that worked on this machine."""

    def __init__(self) -> None:
        self._lib = _load_cudart()
        self.available = self._lib is not None and self.reset()

    def reset(self) -> bool:
        if self._lib is None:
            return False
        limit_ok = self._lib.cudaDeviceSetLimit(_PERSISTING_L2_LIMIT, ctypes.c_size_t(0)) == 0
        reset_ok = self._lib.cudaCtxResetPersistingL2Cache() == 0
        return limit_ok and reset_ok

    def limit(self) -> int | None:
        if self._lib is None:
            return None
        value = ctypes.c_size_t(0)
        if self._lib.cudaDeviceGetLimit(ctypes.byref(value), _PERSISTING_L2_LIMIT) != 0:
            return None
        return int(value.value)

    def check(self) -> Check:
        limit = self.limit()
        if limit:
            return Check(False, "persisting-l2", f"kernel set a persisting-L2 carve-out of {limit} bytes")
        return PASSED


# ---- Everything checked after submitted code runs ---------------------------------------------------------


class Guard:
    """Built right before the kernel module is imported; `before()` and `after()` bracket every stretch of
    submitted code (import, construction, each call)."""

    def __init__(self, l2: PersistingL2 | None) -> None:
        self.threads = ThreadWatch()
        self.baseline = snapshot()
        self.settings = precision_settings()
        self.ledger = OutputLedger()
        self.l2 = l2
        self._mark, self._alive = 0, live_threads()

    def before(self) -> None:
        self._mark, self._alive = self.threads.mark(), live_threads()
        if self.l2 is not None:
            self.l2.reset()

    def after(self, where: str) -> Check:
        """Identities, precision switches, threads and the persisting-L2 limit, in that order."""
        changed = changed_names(self.baseline, snapshot())
        if changed:
            more = f" and {len(changed) - 6} more" if len(changed) > 6 else ""
            return Check(False, "harness-patched", f"{where} replaced {', '.join(changed[:6])}{more}")
        now = precision_settings()
        if now != self.settings:
            force_full_precision()
            return Check(False, "precision-lowered", f"{where} changed precision settings to {now}")
        verdict = self.threads.check(self._mark, self._alive)
        if verdict.ok and self.l2 is not None:
            verdict = self.l2.check()
        return verdict


# ---- Profiler attribution ----------------------------------------------------------------------------------


_GPU_CATEGORIES = {"kernel", "gpu_memcpy", "gpu_memset"}


def attribute_gpu_time(call: Callable[[], Any], own: Sequence[str], repeats: int = 3) -> Attribution | None:
    """Profile `repeats` calls and split device time between the submission's own kernels and the rest.

    One marker kernel is launched on the harness's stream first, so `streams` always includes that stream
    and a kernel that moved all its work to another stream still shows two. None when the profiler
    recorded no GPU activity at all (not even the marker)."""
    from torch.profiler import ProfilerActivity, profile

    marker = torch.empty(1, device=torch.device("cuda", torch.cuda.current_device()))
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        marker.fill_(1.0)
        torch.cuda.synchronize()
        for _ in range(repeats):
            call()
        torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text(encoding="utf-8")).get("traceEvents", [])
    gpu = [e for e in events if str(e.get("cat", "")).lower() in _GPU_CATEGORIES]
    gpu.sort(key=lambda e: float(e.get("ts", 0)))
    return summarize_trace(gpu, own) if gpu else None


def summarize_trace(gpu_events: list[dict[str, Any]], own: Sequence[str]) -> Attribution:
    """Attribution from chrome-trace GPU events in time order, the first being the harness's marker."""
    streams = {int(e.get("args", {}).get("stream", -1)) for e in gpu_events}
    harness_stream = gpu_events[0].get("args", {}).get("stream", -1)
    own_us = total_us = 0.0
    kernels: set[str] = set()
    side = {str(e.get("name", "")) for e in gpu_events if e.get("args", {}).get("stream", -1) != harness_stream}
    for event in gpu_events[1:]:
        duration = float(event.get("dur", 0.0))
        total_us += duration
        if str(event.get("cat", "")).lower() == "kernel":
            kernels.add(kernel_base_name(str(event.get("name", ""))))
            if is_own_kernel(str(event.get("name", "")), own):
                own_us += duration
    return Attribution(own_us / 1e3, total_us / 1e3, tuple(sorted(streams - {-1})), tuple(sorted(kernels)),
                       tuple(sorted(side)))
