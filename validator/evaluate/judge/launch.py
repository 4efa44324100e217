"""Starting runners: in bubblewrap (or, without it, with limits only), either by the judge for its own job or
ahead of time by the scheduler, so a runner's `import torch` (seconds) overlaps the previous job.

A runner started ahead is generic until its judge adopts it: its private job directory is empty, its cache
directory (bound at CACHE_MOUNT, where every build and runner keeps TORCH_EXTENSIONS_DIR, TRITON_CACHE_DIR
and TORCHINDUCTOR_CACHE_DIR, so compiled extensions never depend on a host path) is empty, and it waits on
a FIFO. The judge copies the hashed kernel, problem and verified cache into those directories (bind mounts:
the runner sees the files appear), opens the FIFOs and speaks to it as to its own child. Each prepared
runner serves one job and is then ended with its whole pid namespace, exactly as one the judge started.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from validator.compile.toolchain import compiler_dirs
from validator.isolation import bwrap, leftovers, sandbox
from validator.isolation.limits import LIMITS

RUNNER_MODULE = "validator.evaluate.runner.serve"
PASSED_THROUGH = ("CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "TORCH_CUDA_ARCH_LIST", "CUDA_HOME", "MAX_JOBS",
                  "CC", "CXX", "OPENBLAS_NUM_THREADS", "TRITON_INTERPRET", "KB_RUNNER_TRACE")
"""The build's toolchain variables among them: with others, loading a prebuilt extension recompiles it."""
RUNNER_FILE_BYTES = LIMITS.runner_file_bytes
"""RLIMIT_FSIZE of a runner: its log and any file it writes (a flood ends it with SIGXFSZ)."""
PACKAGE_PARENT = str(Path(__file__).resolve().parents[3])
SHARED_MEMORY = Path("/dev/shm")
"""Where a confined runner's ring goes when the host has it: a tmpfs file can be pinned (`channel.Ring.pin`)."""
RING_LINK = "ring-dir"
"""In a prepared runner's base: a link to its ring directory, for the judge that adopts it."""


def ring_dir(hold: contextlib.ExitStack) -> Path | None:
    """A fresh directory of ours on the host's tmpfs for one runner's ring, removed when `hold` closes; None where
    there is none (the ring then lies in the job directory and is copied with pread and pwrite). The runner's
    uid may traverse it and write the ring file the judge gives it, but list or create nothing there. Only the
    scheduler makes these: a judge can be killed at its time limit, and would leave its directory in RAM."""
    if not (SHARED_MEMORY.is_dir() and os.access(SHARED_MEMORY, os.W_OK | os.X_OK)):
        return None
    try:
        path = Path(tempfile.mkdtemp(prefix="kb-ring-", dir=SHARED_MEMORY))
    except OSError:
        return None
    leftovers.track(path)
    hold.callback(leftovers.done, path)
    hold.callback(shutil.rmtree, path, True)
    path.chmod(0o711)
    return path


def adopted_ring_dir(base: Path) -> Path | None:
    """The ring directory the scheduler made for the runner prepared in `base`, if it made one."""
    link = base / RING_LINK
    return link.readlink() if link.is_symlink() else None


def runner_env(source: Mapping[str, str]) -> dict[str, str]:
    """What a runner inherits of its launcher's environment (the device, the toolchain, interpret mode)."""
    return {name: source[name] for name in PASSED_THROUGH if name in source}


def spawn_confined(job_dir: Path, cache_dir: Path, env: Mapping[str, str], *, gpu: bool,
                   streams: tuple[Any, Any, Any], status_fd: int | None = None,
                   ring: Path | None = None) -> subprocess.Popen:  # fmt: skip
    """The runner in bubblewrap, behind the resource-limit launcher; `streams` are its stdin, stdout, stderr;
    bwrap writes its status, exit code last, to `status_fd`; `ring` is its ring directory (`ring_dir`)."""
    bwrap.prepare_job_dir(job_dir)
    bwrap.prepare_job_dir(cache_dir)
    limits = sandbox.Limits.for_timeout(3600.0, RUNNER_FILE_BYTES, LIMITS.runner_processes,
                                        memory_bytes=LIMITS.runner_memory_bytes)
    uid = bwrap.runner_uid()
    status_read, status_write = os.pipe()
    with bwrap.seccomp_fd() as fd:
        # the toolkit and host compilers the build saw, so a kernel that compiles at import works as there
        toolkit = [env["CUDA_HOME"]] if Path(env.get("CUDA_HOME") or "/nonexistent").is_dir() else []
        argv = bwrap.command([sys.executable, "-m", RUNNER_MODULE], job_dir, gpu=gpu, seccomp_fd=fd,
                             cache_dir=cache_dir, extra_ro=[*toolkit, *compiler_dirs(dict(env))], status_fd=status_fd,
                             ring_dir=ring)
        try:
            process = subprocess.Popen(
                sandbox.confined_argv(argv, limits, False, status_write),
                env={**bwrap.environment(dict(env)), "PYTHONPATH": PACKAGE_PARENT},  # the launcher's; bwrap resets it
                stdin=streams[0], stdout=streams[1], stderr=streams[2], start_new_session=True,
                pass_fds=(status_write, *(f for f in (fd, status_fd) if f is not None)), user=uid, group=uid,
                extra_groups=[] if uid is not None else None)
        finally:
            os.close(status_write)
    with os.fdopen(status_read, "rb") as status:
        status.read()  # written by the launcher just before it execs bwrap (bwrap makes the namespaces itself)
    return process


def spawn_unconfined(job_dir: Path, env: Mapping[str, str], timeout_s: float) -> tuple[subprocess.Popen, str]:
    """Without bubblewrap: limits and a network namespace only (`sandbox: none`); and how the network went."""
    limits = sandbox.Limits.for_timeout(timeout_s, RUNNER_FILE_BYTES, LIMITS.runner_processes,
                                        memory_bytes=LIMITS.runner_memory_bytes)
    status_read, status_write = os.pipe()
    try:
        process = subprocess.Popen(
            sandbox.confined_argv([sys.executable, "-m", RUNNER_MODULE], limits, True, status_write), cwd=job_dir,
            env=sandbox.scrubbed_env({**env, "PYTHONPATH": PACKAGE_PARENT}, job_dir),
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            pass_fds=(status_write,))
    finally:
        os.close(status_write)
    with os.fdopen(status_read, "rb") as status:
        return process, sandbox.read_isolation_status(status.read())[1]


# ----- runners started ahead by the scheduler -----


def prepare(base: Path, env: Mapping[str, str], *, gpu: bool, hold: contextlib.ExitStack,
            ring: Path | None = None) -> subprocess.Popen:  # fmt: skip
    """A confined runner waiting in `base` (job/, cache/, FIFOs in/out, log) for a judge to adopt it, with `ring`
    (a `ring_dir` its caller owns; linked from `base` for the judge) as its ring's directory, if given.

    The runner gets the read end of `in` and the write end of `out` only: with both ends of its request FIFO, a
    kernel that writes into every pipe it holds filled that FIFO and blocked itself where no request deadline
    runs. `hold` keeps the other ends open until it closes, so before its judge opens them the runner neither
    reads end-of-file nor writes into a FIFO without a reader."""
    (base / "job").mkdir(parents=True)
    (base / "cache").mkdir()
    if ring is not None:
        (base / RING_LINK).symlink_to(ring)
    for name in ("in", "out"):
        os.mkfifo(base / name, 0o600)
    # A non-blocking open of a read end succeeds with no writer; a write end then opens at once.
    runner_in = os.open(base / "in", os.O_RDONLY | os.O_NONBLOCK)
    hold.callback(os.close, os.open(base / "in", os.O_WRONLY))
    hold.callback(os.close, os.open(base / "out", os.O_RDONLY | os.O_NONBLOCK))
    runner_out = os.open(base / "out", os.O_WRONLY)
    os.set_blocking(runner_in, True)
    fds = [runner_in, runner_out,
           *(os.open(base / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for name in ("log", "status"))]
    try:
        return spawn_confined(base / "job", base / "cache", runner_env(env), gpu=gpu, streams=(fds[0], fds[1], fds[2]),
                              status_fd=fds[3], ring=ring)
    finally:
        for fd in fds:
            os.close(fd)


class Adopted:
    """A prepared runner as its judge sees it: not its child, so liveness comes from /proc, not wait()."""

    def __init__(self, base: Path, pid: int) -> None:
        self.pid, self.returncode, self.status_file = pid, None, base / "status"
        self.stdin: IO[bytes] = (base / "in").open("wb", buffering=0)
        self.stdout: IO[bytes] = (base / "out").open("rb", buffering=0)
        self.stderr = None

    def poll(self) -> int | None:
        if self.returncode is None:
            self.returncode = ended_status(self.pid, self.status_file)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int | None:
        return self.poll()  # the scheduler, its parent, reaps it


def ended_status(pid: int, status_file: Path) -> int | None:
    """None while `pid` (a runner's bwrap, not our child) lives; once it has ended, its exit status as Popen gives
    one: bwrap's own record of it (`bwrap_exit_code`), else /proc's (field 52 of its stat line, in waitpid's form,
    shown only to a reader allowed to trace it: not to one in a user namespace of its own, as an unprivileged
    judge is), else -9 (ended, unknown how)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        fields = ["X"]
    if fields[0] not in ("Z", "X"):
        return None
    recorded = bwrap_exit_code(status_file)
    if recorded is not None:
        return recorded
    return _waited_status(int(fields[49])) if fields[0] == "Z" and len(fields) > 49 else -9


def bwrap_exit_code(status_file: Path) -> int | None:
    """The exit code bwrap wrote on its status fd (128 + N for a process killed by signal N), or None when it
    wrote none (still running, or killed itself)."""
    try:
        lines = status_file.read_text(errors="replace").splitlines()
    except OSError:
        return None
    for line in reversed(lines):
        with contextlib.suppress(ValueError):
            record = json.loads(line)
            code = record.get("exit-code") if isinstance(record, dict) else None
            if isinstance(code, int) and not isinstance(code, bool):
                return code
    return None


def _waited_status(status: int) -> int:
    """A waitpid status as Popen.returncode: minus the signal that ended it, or its exit code."""
    if status & 0x7F:
        return -(status & 0x7F)
    return (status >> 8) & 0xFF if status else -9  # 0: not shown to us (or a clean exit we cannot tell apart)


def log_tail(base: Path, limit: int = sandbox.OUTPUT_CAP) -> str:
    with contextlib.suppress(OSError), (base / "log").open("rb") as log:
        size = log.seek(0, os.SEEK_END)
        log.seek(max(0, size - limit))
        return log.read().decode("utf-8", errors="replace")
    return ""
