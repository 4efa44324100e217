"""A pre-imported-torch server that forks one fresh worker process per job, to skip torch's import.

The zygote starts confined like any sandboxed program (scrubbed environment, network namespace,
limits), imports torch, triton and the worker module (the judge's), and never initialises CUDA, so every child
forked from it is a clean process whose CUDA context is its own: the child sets its own
CUDA_VISIBLE_DEVICES, working directory and limits before any CUDA call. A fork of a process with
an initialised CUDA context is unusable, which is why the zygote asserts that it never has one.

Protocol over a SOCK_SEQPACKET socket pair (one JSON message per packet):
  zygote -> parent  {"ready": true, "import_s": ...} once the imports are done
  parent -> zygote  {"target": ..., "argv": [...], "cwd": ..., "env": {...}, "limits": {...}}
                    with the write ends of the child's stdout and stderr pipes attached (SCM_RIGHTS)
  zygote -> parent  {"pid": N}, then {"pid": N, "returncode": R} when the child has ended
One job at a time per zygote; the engine runs one zygote per GPU.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from validator.isolation import process_tree, sandbox

PACKET = 1 << 20
PRELOAD = ("torch", "numpy", "triton", "triton.language")
OPTIONAL_PRELOAD = (
    "torch._dynamo", "torch._inductor.compile_fx", "validator.catalogue.problem_module",
    "validator.evaluate.correctness", "validator.evaluate.anticheat", "validator.evaluate.judge.timing",
)
"""The worker's own lazy imports: each is tried in a throwaway fork first and preloaded only if importing
it leaves the CUDA driver uninitialised. (torch.utils.cpp_extension, for one, calls torch.cuda.is_available()
at import, which initialises the driver and makes torch refuse CUDA in every forked child.) Inductor's
compiler (about 1 s to import) is here for the torch.compile jobs: the row has one per problem."""


@dataclass(frozen=True)
class Target:
    """What a worker process runs: a module (`python -m`) or a script path (tests' fake workers)."""

    module: str = ""
    path: str = ""

    def argv(self, args: Sequence[str]) -> list[str]:
        """The equivalent fresh-process command line."""
        head = ["-m", self.module] if self.module else [self.path]
        return [sys.executable, *head, *args]


class ZygoteError(Exception):
    """The zygote died or broke the protocol; the caller falls back to a fresh process."""


def _send(sock: socket.socket, message: dict, fds: Sequence[int] = ()) -> None:
    socket.send_fds(sock, [json.dumps(message).encode()], list(fds))


def _receive(sock: socket.socket, timeout_s: float | None) -> tuple[dict | None, list[int]]:
    sock.settimeout(timeout_s)
    try:
        data, fds, _flags, _addr = socket.recv_fds(sock, PACKET, 4)
    except TimeoutError:
        raise
    except OSError as exc:
        raise ZygoteError(f"zygote channel broke: {exc}") from exc
    return (json.loads(data) if data else None), fds


class Zygote:
    """Parent-side handle on one running zygote."""

    def __init__(self, workdir: Path, preload_target: Target, env: Mapping[str, str], timeout_s: float = 300.0,
                 *, wait: bool = True):
        """Start the zygote; with `wait`, return once its imports are done (`ready` says when, otherwise)."""
        self.parent_sock, child_sock = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        status_read, status_write = os.pipe()
        limits = sandbox.Limits(cpu_seconds=7 * 24 * 3600, file_bytes=1 << 30, processes=1024, open_files=4096)
        argv = [sys.executable, "-m", "validator.isolation.zygote", str(child_sock.fileno()),
                json.dumps(asdict(preload_target))]
        self.started = time.perf_counter()
        try:
            self.process = subprocess.Popen(
                sandbox.confined_argv(argv, limits, True, status_write), cwd=workdir,
                env=sandbox.scrubbed_env(env, workdir), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE, start_new_session=True, pass_fds=(status_write, child_sock.fileno()),
            )
        finally:
            os.close(status_write)
            child_sock.close()
        sandbox.live_group(self.process.pid)  # killed before its home is removed if the run is interrupted
        self.stderr = sandbox.CappedReader(self.process.stderr, sandbox.OUTPUT_CAP)
        self.stderr.start()
        with os.fdopen(status_read, "rb") as status_file:
            self.network_isolated, self.isolation = sandbox.read_isolation_status(status_file.read())
        self.start_s: float | None = None
        """Seconds from start to the parent's seeing it ready; None until then."""
        self.import_s = 0.0
        self.preloaded: list[str] = []
        if wait and not self._await_ready(timeout_s):
            self.close()
            raise ZygoteError(f"zygote did not start within {timeout_s:.0f} s: {self.stderr.text()[-2000:]}")

    def ready(self) -> bool:
        """Whether the imports are done, without waiting; a ZygoteError if the zygote failed instead."""
        return self.start_s is not None or self._await_ready(0.001)

    def _await_ready(self, timeout_s: float) -> bool:
        try:
            ready, _ = _receive(self.parent_sock, timeout_s)
        except TimeoutError:
            return False
        if not ready or not ready.get("ready"):
            self.close()
            raise ZygoteError(f"zygote did not start: {self.stderr.text()[-2000:]}")
        self.start_s = time.perf_counter() - self.started
        self.import_s = float(ready.get("import_s", 0.0))
        self.preloaded = list(ready.get("preloaded", []))
        return True

    def run(
        self, target: Target, args: Sequence[str], *, workdir: Path, env: Mapping[str, str],
        limits: sandbox.Limits, timeout_s: float, output_cap: int = sandbox.OUTPUT_CAP,
    ) -> sandbox.SandboxResult:
        """Like `sandbox.run`, for a child forked from the zygote."""
        if self.process.poll() is not None:
            raise ZygoteError(f"zygote has exited ({sandbox.describe_status(self.process.returncode)})")
        out_read, out_write = os.pipe()
        err_read, err_write = os.pipe()
        request = {
            "target": asdict(target), "argv": list(args), "cwd": str(workdir),
            "env": sandbox.scrubbed_env(env, workdir), "limits": asdict(limits),
        }
        started = time.perf_counter()
        readers = [sandbox.CappedReader(os.fdopen(fd, "rb"), output_cap) for fd in (out_read, err_read)]
        try:
            _send(self.parent_sock, request, (out_write, err_write))
        finally:
            os.close(out_write)
            os.close(err_write)
        for reader in readers:
            reader.start()
        returncode, timed_out = self._wait(timeout_s)
        for reader in readers:
            reader.join(timeout=5)
        return sandbox.SandboxResult(
            returncode, timed_out, time.perf_counter() - started, readers[0].text(), readers[1].text(),
            self.network_isolated, self.isolation,
        )

    def _wait(self, timeout_s: float) -> tuple[int | None, bool]:
        try:
            started, _ = _receive(self.parent_sock, 60.0)
        except TimeoutError as exc:
            raise ZygoteError("zygote did not fork the job within 60 s") from exc
        if not started or "pid" not in started:
            raise ZygoteError("zygote closed the channel instead of starting the job")
        pid = int(started["pid"])
        timed_out = False
        try:
            ended, _ = _receive(self.parent_sock, timeout_s)
        except TimeoutError:
            timed_out = True
            process_tree.kill_tree(pid)
            try:
                ended, _ = _receive(self.parent_sock, 60.0)
            except TimeoutError as exc:
                raise ZygoteError("zygote did not reap a killed job") from exc
        process_tree.kill_tree(pid)  # whatever the job left running in its tree
        if not ended or "returncode" not in ended:
            raise ZygoteError("zygote closed the channel while a job ran")
        return (None if timed_out else int(ended["returncode"])), timed_out

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.parent_sock.close()
        if self.start_s is None:  # still importing (or failed): nothing to wait for
            process_tree.kill_and_reap(self.process)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process_tree.kill_and_reap(self.process)
        sandbox.ended_group(self.process.pid)
        self.stderr.join(timeout=5)


# ----- server side: runs inside the confined zygote process -----


def _import_if_harmless(name: str) -> None:
    """Import `name` here only if a forked trial import shows it does not initialise the CUDA driver."""
    import importlib

    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
            os._exit(1 if driver_initialised() else 0)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) == 0:
        importlib.import_module(name)


def _preload(target: dict) -> None:
    import importlib

    for name in PRELOAD:
        with contextlib.suppress(ImportError):  # triton is optional on some platforms
            importlib.import_module(name)
    for name in (*OPTIONAL_PRELOAD, target.get("module") or ""):
        if name:
            _import_if_harmless(name)
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_initialized():
        raise RuntimeError("the zygote initialised CUDA; its children would inherit an unusable context")
    if driver_initialised():
        raise RuntimeError("the CUDA driver was initialised during the zygote's imports; its forked children could "
                           "not use CUDA, so workers are spawned instead")
    if not _children_can_use_cuda():
        raise RuntimeError("torch marks children forked from the zygote as unable to use CUDA (it saw the driver "
                           "initialised); workers are spawned instead")


CUDA_ERROR_NOT_INITIALIZED = 3


def driver_initialised() -> bool:
    """Has anything in this process called cuInit? Loading libcuda is harmless; initialising it is not.

    cuDeviceGetCount answers CUDA_ERROR_NOT_INITIALIZED until cuInit has run, and initialises nothing.
    """
    import ctypes

    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return False
    paths = [line.split()[-1] for line in maps.splitlines() if "libcuda.so" in line and "/" in line]
    if not paths:
        return False
    try:
        count = ctypes.c_int()
        return ctypes.CDLL(paths[0]).cuDeviceGetCount(ctypes.byref(count)) != CUDA_ERROR_NOT_INITIALIZED
    except (OSError, AttributeError):
        return True  # cannot tell: assume the worst


def _children_can_use_cuda() -> bool:
    """Fork a throwaway child and ask torch whether it considers the child poisoned for CUDA."""
    torch = sys.modules.get("torch")
    if torch is None:
        return True
    pid = os.fork()
    if pid == 0:
        os._exit(1 if torch.cuda._is_in_bad_fork() else 0)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def _run_target(target: dict, argv: list[str]) -> int:
    """Run the worker as `python -m module ARGV` / `python path ARGV` would, in this (forked) process."""
    import runpy
    import traceback
    import warnings

    sys.argv = [target["module"] or target["path"], *argv]
    try:
        module = sys.modules.get(target["module"]) if target["module"] else None
        if module is not None and callable(getattr(module, "main", None)):
            return int(module.main(argv) or 0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # runpy's note that the module is preloaded
            if target["module"]:
                runpy.run_module(target["module"], run_name="__main__", alter_sys=True)
            else:
                runpy.run_path(target["path"], run_name="__main__")
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            return exc.code or 0
        sys.stderr.write(f"{exc.code}\n")
        return 1
    except BaseException:
        traceback.print_exc()
        return 1
    return 0


def _child(request: dict, fds: list[int], sock: socket.socket) -> None:
    """In the forked child: become a clean, confined job process, run it, never return."""
    code = 1
    try:
        sock.close()
        os.setsid()
        os.dup2(fds[0], 1)
        os.dup2(fds[1], 2)
        for fd in fds:
            os.close(fd)
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        sandbox.libc_call("prctl", sandbox.PR_SET_PDEATHSIG, int(signal.SIGKILL))
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[0] = request["cwd"]
        sandbox.apply_limits(sandbox.Limits(**request["limits"]))
        code = _run_target(request["target"], request["argv"])
    except BaseException as exc:
        with contextlib.suppress(Exception):
            sys.stderr.write(f"kb-validate zygote: job setup failed: {exc}\n")
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(code & 0xFF if code >= 0 else 1)


def serve(sock: socket.socket, target: dict) -> None:
    started = time.perf_counter()
    _preload(target)
    preloaded = [name for name in (*PRELOAD, *OPTIONAL_PRELOAD, target.get("module")) if name in sys.modules]
    _send(sock, {"ready": True, "import_s": time.perf_counter() - started, "preloaded": preloaded})
    while True:
        sock.settimeout(None)
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, PACKET, 4)
        except OSError:
            return
        if not data:
            return
        request = json.loads(data)
        pid = os.fork()
        if pid == 0:
            _child(request, fds, sock)
        for fd in fds:
            os.close(fd)
        _send(sock, {"pid": pid})
        _, status = os.waitpid(pid, 0)
        _send(sock, {"pid": pid, "returncode": os.waitstatus_to_exitcode(status)})


def main(args: list[str]) -> None:
    sock = socket.socket(fileno=int(args[0]))
    serve(sock, json.loads(args[1]))


if __name__ == "__main__":
    main(sys.argv[1:])
