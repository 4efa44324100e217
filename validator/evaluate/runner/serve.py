"""The runner: the only process that imports submitted code. `python -m validator.evaluate.runner.serve`.

Started by the judge (`judge/run.py`) inside the sandbox, it speaks `validator.evaluate.channel` over its
original stdin (requests) and stdout (replies); fd 1 is then pointed at stderr so a kernel's prints never
reach the channel. It imports exactly the kernel bytes the judge hashed (re-hashed here before import),
builds ModelNew with the model seed the judge gives it, and serves timed spans of calls, each on inputs it
makes from the seed and input kind the span's request brings; the judge then fetches the calls it chooses.
The judge's twin is the same program told to build the problem's own Model instead, and never given a kernel:
the reference is timed through exactly the kernel's path.

Nothing it says is a verdict, a status the judge adopts in the kernel's favour, or a published time:
the judge compares every output itself and bounds every reported time by its own clock. The guards here
(identity snapshot, thread watch, output ledger, input check) are advisory: their findings can only count
against the kernel, and a kernel that silences them gains nothing the judge does not check.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import hashlib
import os
import sys
import time
import types
from pathlib import Path
from typing import IO, Any

import torch

from validator.evaluate import anticheat, channel, correctness, digest
from validator.evaluate.digest import output_digest
from validator.evaluate.runner import integrity

_perf_counter = time.perf_counter
_IMPORTED = _perf_counter()
"""When torch and the channel had been imported: the runner's start-up is traced from here."""
_TRACING = bool(os.environ.get("KB_RUNNER_TRACE"))
"""Step times into the log (`_trace`), read once at start: the judge passes the variable through."""


class Refused(Exception):
    def __init__(self, status: str, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


def classify(exc: BaseException) -> tuple[str, str]:
    text = str(exc)
    if type(exc).__name__ == "OutOfMemoryError" or "out of memory" in text or "can't allocate memory" in text:
        return "oom", "out-of-memory"
    if type(exc).__name__ == "CompilationError" or type(exc).__module__.startswith("triton.compiler"):
        return "compile_error", "compile-error"
    return "runtime_error", "kernel-raised"


def describe(exc: BaseException, limit: int = 1500) -> str:
    text = f"{type(exc).__name__}: {exc}".strip()
    return text if len(text) <= limit else text[: limit - 16] + " ... (truncated)"


class Runner:
    def __init__(self) -> None:
        self.gpu = False
        self.device = torch.device("cpu")
        self.kernel: Any = None
        self.guard: integrity.Guard | None = None
        self.last: Any = None
        self.released = False
        """A `release` came since the last `prepare`."""
        self.flush: torch.Tensor | None = None
        self.spacer: torch.Tensor | None = None
        """Device memory held through a timing block ahead of its allocations (`Protocol.placement_spacer_mib`)."""
        self.probe: torch.Tensor | None = None
        """One element on the device, for the round trips of `settle`."""
        self.ring: channel.Ring | None = None
        """Where replies' tensors cross, once `load` has opened it."""
        self.problem: types.ModuleType | None = None
        """The problem module (trusted, hash-checked), loaded by the first request that needs its inputs."""

    # -- requests -----------------------------------------------------------------------------------------

    def load(self, req: dict[str, Any]) -> dict[str, Any]:
        """Build the model that `go` times: ModelNew from the kernel's hashed bytes; or, in the judge's twin runner
        (`reference`), the problem's own Model, so the reference is timed through exactly the kernel's path."""
        from validator.catalogue.problem_module import make_model

        self.ring = channel.Ring.open(req["ring"]) if req.get("ring") else None  # before any submitted code runs
        self._start_device(req["interpret"])
        if self.ring is not None and self.gpu:
            self.ring.pin()  # else its replies are written with pwrite, which the judge reads the same
        _preimport(req["backend"])
        anticheat.force_full_precision()
        problem = self._load_problem(req)
        if self.gpu:
            digest.warm(self.device)  # compiled (or read from the harness's Triton cache) before a timed call
        self.guard = integrity.Guard(integrity.PersistingL2() if self.gpu else None)
        if req.get("reference"):
            model_class = problem.Model
        else:
            model_class = getattr(self._import_kernel(req, problem), "ModelNew", None)
            if not callable(model_class):
                raise Refused("runtime_error", "no-modelnew", "the kernel file defines no ModelNew class")
        shim = types.SimpleNamespace(Model=model_class, get_init_inputs=problem.get_init_inputs)
        # parameters drawn on the CPU, as the judge draws the reference's (see Evaluation.reference_model)
        self.kernel = self._untrusted("constructing ModelNew", lambda: make_model(shim, req["model_seed"], self.device))
        return {"ok": True}

    def null(self, req: dict[str, Any]) -> dict[str, Any]:
        """One timed call of nothing through `go`'s own timing, before any submitted code is here: the judge's way
        to have this runner's context run GPU work before it times the reference alone. Served only before
        `load`."""
        if self.guard is not None:
            raise Refused("runtime_error", "runner-protocol", "a call of nothing after the kernel was loaded")
        first = self.flush is None
        started = _perf_counter()
        self._start_device(req["interpret"])
        self._flush_buffer(req["flush_bytes"])
        device = _perf_counter()
        digest.warm(self.device)  # compiled (or read from the harness's Triton cache) before a timed call needs it
        if _TRACING and first:
            _trace(f"null: device started {device - started:.3f} s, digest warmed {_perf_counter() - device:.3f} s")
        _, dev, host = self._timed(_nothing, [])
        return {"ok": True, "device_ms": [dev], "host_ms": [host], "digests": [None]}

    def _load_problem(self, req: dict[str, Any]) -> types.ModuleType:
        """The problem module from the judge's hash-checked copy, once (its copy of the file has no overlay beside
        it): by the first call of nothing that makes inputs, or by `load`."""
        from validator.catalogue.problem_module import load_problem_module

        if self.problem is None:
            self.problem = load_problem_module(_verified(req["problem"], req["problem_sha256"]),
                                               reduced=req["reduced"], sizes=req.get("reduced_sizes"))
        return self.problem

    def _start_device(self, interpret: bool) -> None:
        self.gpu = not interpret
        if self.gpu and self.device.type != "cuda":
            self.device = torch.device("cuda", 0)
            torch.cuda.set_device(self.device)
            torch.cuda.init()
            self.probe = torch.zeros(1, device=self.device)

    def _flush_buffer(self, size: Any) -> None:
        if self.gpu and self.flush is None:
            self.flush = torch.empty(max(1, int(size) // 4), dtype=torch.float32, device=self.device)

    def _import_kernel(self, req: dict[str, Any], problem: types.ModuleType) -> types.ModuleType:
        path = _verified(req["kernel"], req["kernel_sha256"])
        source = Path(path).read_bytes()
        if hashlib.sha256(source).hexdigest() != req["kernel_sha256"]:  # the bytes we compile are the hashed ones
            raise Refused("rejected", "kernel-changed", "the kernel file changed after it was hashed")
        name = f"_kb_kernel_{req['kernel_sha256'][:16]}"
        module = types.ModuleType(name)
        # As KernelBench's evaluation does (it runs both sources in one namespace), the kernel sees the problem
        # module's globals: its size constants, imports and helpers.
        module.__dict__.update({k: v for k, v in vars(problem).items() if not k.startswith("__")})
        module.__file__ = path
        sys.modules[name] = module  # Triton and inspect look kernels' sources up through their module
        if req["backend"] == "torch-compile":
            from validator.results.baselines import REFERENCE_MODULE

            sys.modules[REFERENCE_MODULE] = problem
        try:
            code = compile(source, path, "exec")
        except SyntaxError as exc:
            raise Refused("compile_error", "compile-error", f"importing the kernel module: {describe(exc)}") from None
        try:
            self._untrusted("importing the kernel module", lambda: exec(code, module.__dict__))
        except Refused as refused:
            if refused.status == "runtime_error":  # failing to import is failing to build
                raise Refused("compile_error", "compile-error", refused.message) from None
            raise
        return module

    def make(self, spec: dict[str, Any]) -> list[Any]:
        """One call's inputs from the judge's seed and input kind, exactly as the judge makes its own copy of them:
        a fresh draw of the problem's `get_inputs()`, turned into the kind's variant (`input_variants`)."""
        from validator.catalogue.problem_module import make_inputs
        from validator.evaluate.input_variants import make_variant

        made = make_inputs(self.problem, int(spec["seed"]), self.device, generate_on_device=self.gpu)
        return make_variant(made, str(spec["variant"]), int(spec["variant_seed"]), consume=True)

    def _checked(self, out: Any, args: list[Any]) -> list[torch.Tensor]:
        """A call's outputs, each a plain tensor that is no input, no earlier output it keeps alive: checked in its
        span, after the call's events."""
        outs = list(out) if type(out) in (list, tuple) else [out]
        for o in outs:
            if type(o) is not torch.Tensor:
                raise Refused("incorrect", "wrong-type", f"returned {type(o).__qualname__}; expected torch.Tensor")
        _require(self.guard.ledger.check(outs, args, []))
        return outs

    def prepare(self, req: dict[str, Any]) -> dict[str, Any]:
        """Ready one timed call, outside the judge's span of it: the guards' look at the previous timed call, fresh
        allocations at a new block, the flush buffer. Not the call's inputs: their seed comes with `go`,
        inside the span, so nothing can be computed from them before the judge's clock runs (a kernel that
        patched this method to compute each call's outputs from inputs made here was timed at nothing)."""
        if self.last is not None:
            _require(self.guard.after("a timed call"))
        self.last = None  # the last call's inputs and outputs are freed before the next call's are made
        self.guard.before()
        fresh = bool(req.get("fresh"))
        if fresh:
            self.flush = self.spacer = None
        # a new timing block's allocations are made anew, not reused from the last one; so are the first after a
        # `release`, on both sides alike (the twin let its last span go there, the kernel's runner only now)
        if self.gpu and (fresh or self.released):
            torch.cuda.empty_cache()
            if fresh:
                self.spacer = _spacer(int(req.get("spacer_bytes", 0)), self.device)
        self.released = False
        if self.gpu:
            self._flush_buffer(req["flush_bytes"])
            torch.cuda.synchronize()
        return {"ok": True}

    def release(self, req: dict[str, Any]) -> dict[str, Any]:
        """Cached device memory handed back for the judge's float64 pass, which did not fit beside it
        (`Evaluation.float64_reference`); the twin (`drop`) also lets go of its last span, whose outputs no one
        fetches; at the next `prepare` both hand their cache back again, so their next spans allocate alike. After a
        span, whose outputs are committed: the request tells nothing about calls to come."""
        if req.get("drop"):
            self.last = None
        if self.gpu:
            torch.cuda.empty_cache()
        self.released = True
        return {"ok": True}

    def go(self, req: dict[str, Any]) -> dict[str, Any]:
        """One timed span: for each seed the request brings, that call's inputs made (inside the judge's span,
        before the call's events), then flush, events (or the CPU clock), the call, a device-wide synchronize, and
        the digest of its outputs. Several calls in one span let the judge's clock resolve a short kernel: the
        cost of crossing between the processes is paid once per span, not once per call."""
        try:
            reply, self.last = self._span(self.kernel, req["inputs"])
        except Refused:
            raise
        except (Exception, SystemExit) as exc:
            status, code = classify(exc)
            raise Refused(status, code, f"a timed call of ModelNew: {describe(exc)}") from None
        return reply

    def _span(self, fn: Any, specs: list[dict[str, Any]]) -> tuple[dict[str, Any], list[tuple[Any, list[Any]]]]:
        calls, devs, hosts, digests = [], [], [], []
        # As timeit does, no garbage collection inside a span: a collection is the interpreter's work, lands on
        # whichever side's span allocated past the threshold, and a process that has run more (the kernel's runner,
        # its correctness trials; a Triton launch allocates more than an operator's) would pay it more often.
        gc.disable()
        try:
            for spec in specs:
                args = self.make(spec)
                with torch.no_grad():
                    out, dev, host = self._timed(fn, args)
                outs = self._checked(out, args)
                calls.append((out, args, spec))
                devs.append(dev)
                hosts.append(host)
                digests.append(str(output_digest(outs)))
        finally:
            gc.enable()
        return {"ok": True, "device_ms": devs, "host_ms": hosts, "digests": digests}, calls

    def settle(self, req: dict[str, Any]) -> dict[str, Any]:
        """The twin's turn starts on an idle GPU (`Protocol.contention_ms`). The kernel's runner is stopped by then,
        but GPU work it queued before still runs, and the GPU time-slices between contexts: such work would lengthen
        the twin's span (the honest side of the bound) and give a kernel room to hide its own time. So GPU round trips
        that do nothing else (`_gpu_wait`) are timed until `trips` in a row take at most `idle_ms`, which only happens
        once no other context has work on the GPU, or until `budget_ms` has passed (`settled` false: the judge measures
        the block again, then holds it). Only the judge's twin is asked; nothing of it is inside a timed span."""
        t0, wait, streak, trips = _perf_counter(), 0.0, 0, int(req["trips"])
        while self.gpu and streak < trips and (_perf_counter() - t0) * 1e3 < float(req["budget_ms"]):
            wait = self._gpu_wait()
            streak = streak + 1 if wait <= float(req["idle_ms"]) else 0
        return {"ok": True, "wait_ms": wait, "settled": streak >= trips or not self.gpu}

    def _gpu_wait(self) -> float:
        """The host's time, in ms, of a GPU round trip that does nothing else (a tiny op, then a synchronize): tens of
        microseconds on an idle GPU; where another context has work on it, the wait for the next time slice
        (milliseconds on the H200, `bench/contention_probe.py`). This process's own work is drained first, untimed.
        0 on the CPU."""
        if not self.gpu:
            return 0.0
        torch.cuda.synchronize()
        t0 = _perf_counter()
        self.probe.add_(1)
        torch.cuda.synchronize()
        return (_perf_counter() - t0) * 1e3

    def _timed(self, fn: Any, args: list[Any]) -> tuple[Any, float, float]:
        if not self.gpu:
            t0 = _perf_counter()
            out = fn(*args)
            host = (_perf_counter() - t0) * 1e3
            return out, host, host
        self.flush.zero_()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = _perf_counter()
        start.record()
        out = fn(*args)
        end.record()
        torch.cuda.synchronize()
        return out, float(start.elapsed_time(end)), (_perf_counter() - t0) * 1e3

    def fetch(self, req: dict[str, Any]) -> tuple[dict[str, Any], list[torch.Tensor]]:
        """The outputs of one call of the last timed span, the one the judge names after the span closed, once its
        inputs are seen to be as they were made."""
        out, args, spec = self.last[int(req.get("call", 0))]
        _require(correctness.inputs_unchanged(args, self.make(spec)))
        container = type(out).__name__ if type(out) in (list, tuple) else None
        return {"ok": True, "container": container}, list(out) if container else [out]

    def attribute(self, req: dict[str, Any]) -> dict[str, Any]:
        pending = [self.make(spec) for spec in req["inputs"]]
        found = self._untrusted("a call of ModelNew", lambda: integrity.attribute_gpu_time(
            lambda: self.kernel(*pending.pop()), req["own"], repeats=len(req["inputs"])))
        if found is None:
            return {"ok": True, "found": None}
        return {"ok": True, "found": {"own_ms": found.own_ms, "total_ms": found.total_ms,
                                      "streams": list(found.streams), "kernels": list(found.kernels),
                                      "side_work": list(found.side_work)}}

    # -- plumbing -----------------------------------------------------------------------------------------

    def _untrusted(self, where: str, action: Any) -> Any:
        self.guard.before()
        try:
            with torch.no_grad():
                value = action()
            if self.gpu:
                torch.cuda.synchronize()
        except (Exception, SystemExit) as exc:
            status, code = classify(exc)
            raise Refused(status, code, f"{where}: {describe(exc)}") from None
        _require(self.guard.after(where))
        return value


def _preimport(backend: str) -> None:
    """Libraries' import-time work happens before the guards take their snapshot (torch._dynamo rebinds
    torch.manual_seed; the profiler loads it). The compiler baseline is trusted code: dynamo's patching of
    nn.Module on its first call happens here, not under the guards, and inductor compiles in this process
    (a pool would start threads the thread watch rightly counts), with tqdm's monitor thread off."""
    _import_compilers()
    if backend != "torch-compile":
        return
    import torch._inductor.config as inductor_config
    from torch._dynamo.mutation_guard import install_generation_tagging_init

    install_generation_tagging_init()
    inductor_config.compile_threads = 1
    with contextlib.suppress(ImportError):
        import tqdm

        tqdm.tqdm.monitor_interval = 0


def _import_compilers() -> None:
    """The compilers' modules, whatever the backend: imported before "ready" (a runner started ahead pays for
    them before its judge needs it) and again, at no cost, by `_preimport`."""
    import importlib

    for name in ("triton", "triton.language", "torch.utils.cpp_extension", "torch._dynamo"):
        with contextlib.suppress(ImportError):
            importlib.import_module(name)


def _trace(line: str) -> None:
    """Where a request's seconds went, into the runner's log (which the judge quotes when a deadline hits)."""
    print(f"runner: {line}", file=sys.stderr, flush=True)


def _process_age() -> float:
    """Seconds since this process started (its start time in /proc, in clock ticks since boot)."""
    try:
        ticks = int(Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()[19])
        return time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def _nothing(*args: Any) -> None:
    return None


def _spacer(size: int, device: torch.device) -> torch.Tensor | None:
    """Device memory taken before a block's own, so that it lies elsewhere (`Protocol.placement_spacer_mib`); none
    where the device has no room for it: placement is sampled where memory allows, never at a problem's expense."""
    if size <= 0:
        return None
    try:
        return torch.empty(size, dtype=torch.uint8, device=device)
    except torch.cuda.OutOfMemoryError:
        return None


def _require(verdict: correctness.Check) -> None:
    if not verdict.ok:
        status = "rejected" if verdict.code in anticheat.REJECT_CODES else "incorrect"
        raise Refused(status, verdict.code, verdict.message)


def _verified(path: str, sha256: str) -> str:
    if hashlib.sha256(Path(path).read_bytes()).hexdigest() != sha256:
        raise Refused("rejected", "kernel-changed", f"{Path(path).name} does not have the hash the judge recorded")
    return path


def _dispatch(runner: Runner, op: Any, req: dict[str, Any]) -> tuple[dict[str, Any], list[torch.Tensor]]:
    if op == "fetch":
        return runner.fetch(req)
    simple = {"ping": lambda: {"ok": True}, "load": lambda: runner.load(req), "prepare": lambda: runner.prepare(req),
              "go": lambda: runner.go(req), "attribute": lambda: runner.attribute(req),
              "null": lambda: runner.null(req), "settle": lambda: runner.settle(req),
              "release": lambda: runner.release(req)}
    if op not in simple:
        raise Refused("runtime_error", "runner-protocol", f"unknown request {str(op)[:40]!r}")
    return simple[op](), []


def serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    runner = Runner()
    _import_compilers()
    if _TRACING:
        _trace(f"ready: torch imported {_process_age() - (_perf_counter() - _IMPORTED):.3f} s after the process "
               f"started, the compilers' modules {_perf_counter() - _IMPORTED:.3f} s after that")
    channel.send(replies, {"ok": True, "ready": True})
    while True:
        try:
            req, _ = channel.receive(requests, 0)
        except channel.ChannelError:
            return
        op, out = req.get("op"), []
        if op == "exit":
            return
        try:
            reply, out = _dispatch(runner, op, req)
        except Refused as refused:
            reply = {"ok": False, "status": refused.status, "code": refused.code, "message": refused.message}
        except Exception as exc:  # the runner's own failure while serving (bad problem file, a CUDA fault)
            status, code = classify(exc)
            reply = {"ok": False, "status": status, "code": code, "message": describe(exc)}
        sending = _perf_counter()
        try:
            channel.send(replies, reply, out, ring=runner.ring, acks=requests)
        except channel.ChannelError:
            return  # the judge stopped reading mid-reply: it has ended this runner
        if _TRACING:  # nothing formatted per request otherwise: timing rounds pass through here
            _trace(f"{str(op)[:20]}: reply of {sum(t.nbytes for t in out)} bytes sent in "
                   f"{_perf_counter() - sending:.3f} s")


def main() -> int:
    requests = os.fdopen(os.dup(0), "rb", buffering=0)
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)  # a kernel's prints go to the judge's capped log, never into the channel
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    faulthandler.enable()  # a fatal signal leaves its name and the Python stack in the log the judge quotes
    serve(requests, replies)
    replies.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
