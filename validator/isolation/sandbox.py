"""Run untrusted code (kernel builds, evaluation workers) confined, and probe a GPU after a crash.

Confinement: an allow-listed environment (no tokens), a private temporary working directory that is
also HOME and TMPDIR, removed afterwards; resource limits (CPU time, file size, processes, open files,
no core dumps); a new network namespace where the OS allows it (recorded either way); stdout and
stderr read through pipes into a capped buffer; a new session, the program made the subreaper of its
orphans, and a kill of its whole process tree (`process_tree.kill_tree`) on timeout and after every exit.

No address-space limit: CUDA reserves a virtual address range as large as host plus device memory at
initialisation (tens to hundreds of GiB of address space that is never backed), so any RLIMIT_AS low
enough to matter makes cuInit fail. GPU memory is bounded by the device; host memory is not limited.

The child half runs as `python -m validator.isolation.sandbox SPEC -- ARGV...`: it applies the limits and the
namespace to itself, then execs ARGV. Doing this in a fresh interpreter, rather than in a preexec_fn,
keeps it safe when the parent has threads (the engine runs one per GPU and the build pool).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from validator.isolation import leftovers
from validator.isolation.process_tree import kill_and_reap, kill_tree

ALLOWED_ENV = (
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "PYTHONPATH", "LD_LIBRARY_PATH",
    "CUDA_HOME", "CUDA_PATH", "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "CC", "CXX",
    "TORCH_CUDA_ARCH_LIST", "TORCH_EXTENSIONS_DIR", "TRITON_CACHE_DIR", "MAX_JOBS",
    # Multi-GPU hosts here keep NVLink multicast off; a program started with its own environment must too.
    "NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS",
    "OPENBLAS_NUM_THREADS", "KB_RUNNER_TRACE",  # KB_RUNNER_TRACE: judges and runners log their phases' seconds
)
"""Variables passed through from the parent when set there. Everything else is dropped."""
SECRET_NAME = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|API_?KEY|PRIVATE|AUTH", re.IGNORECASE)
"""Names never passed to untrusted code, even when a caller asks for them explicitly."""
OUTPUT_CAP = 64 * 1024
"""Bytes kept of each of stdout and stderr: the first half and the last half of what was written."""
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36


@dataclass(frozen=True)
class Limits:
    """Per-process resource limits applied in the child before it execs the untrusted program."""

    cpu_seconds: int
    """RLIMIT_CPU: SIGXCPU at this many CPU seconds, SIGKILL 5 s later."""
    file_bytes: int
    """RLIMIT_FSIZE: no single file written may grow past this (SIGXFSZ)."""
    processes: int
    """RLIMIT_NPROC headroom: tasks (threads count) this user may add to those it already runs (at least
    TASKS_PER_CORE per core: the jobs running beside this one share it)."""
    open_files: int
    """RLIMIT_NOFILE."""
    memory_bytes: int | None = None
    """RLIMIT_DATA (see `limits.ResourceLimits`); None: left as inherited."""

    @staticmethod
    def for_timeout(timeout_s: float, file_bytes: int, processes: int = 1024, open_files: int = 4096,
                    memory_bytes: int | None = None) -> Limits:
        # CPU time can exceed wall time (threads, spinning synchronize), so allow several times it.
        return Limits(int(timeout_s * 4) + 60, file_bytes, processes, open_files, memory_bytes)


@dataclass(frozen=True)
class SandboxResult:
    """How a confined process ended."""

    returncode: int | None
    """Exit status; negative for a signal (subprocess's convention); None if killed on timeout."""
    timed_out: bool
    seconds: float
    stdout: str
    stderr: str
    network_isolated: bool
    isolation: str
    """How the network was cut off, or why it could not be."""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out

    def describe_exit(self) -> str:
        if self.timed_out:
            return f"killed after the {self.seconds:.0f} s limit"
        return describe_status(self.returncode)


def describe_status(returncode: int | None) -> str:
    if returncode is None:
        return "did not report an exit status"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return f"killed by {name} ({signal.strsignal(-returncode) or 'unknown signal'})"
    return f"exited with status {returncode}"


def scrubbed_env(extra: Mapping[str, str], home: Path) -> dict[str, str]:
    """The allow-listed part of this process's environment, plus `extra`, minus anything secret-looking."""
    env = {name: os.environ[name] for name in ALLOWED_ENV if name in os.environ}
    env.update(extra)
    env.update(
        HOME=str(home), TMPDIR=str(home), TMP=str(home), TEMP=str(home), XDG_CACHE_HOME=str(home / ".cache"),
        PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1", PYTHONUNBUFFERED="1",
    )
    env.setdefault("PATH", os.defpath)
    return {k: v for k, v in env.items() if not SECRET_NAME.search(k)}


@contextlib.contextmanager
def private_dir(prefix: str = "kb-sandbox-") -> Iterator[Path]:
    """A fresh directory for one confined run; removed with everything in it afterwards."""
    path = Path(tempfile.mkdtemp(prefix=prefix))
    leftovers.track(path)
    try:
        yield path
    finally:
        _remove_tree(path)
        leftovers.done(path)


def _remove_tree(path: Path) -> None:
    def make_writable(func, target, _exc_info) -> None:  # a child may leave read-only directories
        # Only directories inside the tree: where removing `path` itself failed (a runner still writing into it when
        # its run was interrupted), its parent is the machine's /tmp, and making that 0700 locked every later sandbox
        # (bwrap, as the runner's uid, could no longer reach its job directory).
        with contextlib.suppress(OSError):
            for directory in {Path(target).parent, Path(target)}:
                if directory.is_relative_to(path) and directory.is_dir() and not directory.is_symlink():
                    directory.chmod(0o700)
            func(target)

    shutil.rmtree(path, onerror=make_writable)


class CappedReader(threading.Thread):
    """Drains a pipe so the child never blocks on it, keeping only the head and tail of the bytes."""

    def __init__(self, stream, cap: int) -> None:
        super().__init__(daemon=True)
        self.stream, self.half = stream, cap // 2
        self.head = bytearray()
        self.tail: deque[bytes] = deque()
        self.tail_bytes = self.total = 0

    def run(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := self.stream.read1(65536):
                self.total += len(chunk)
                room = self.half - len(self.head)
                if room > 0:
                    self.head += chunk[:room]
                    chunk = chunk[room:]
                if chunk:
                    self.tail.append(chunk)
                    self.tail_bytes += len(chunk)
                    while self.tail_bytes - len(self.tail[0]) >= self.half:
                        self.tail_bytes -= len(self.tail.popleft())

    def text(self) -> str:
        tail = b"".join(self.tail)[-self.half :] if self.tail else b""
        dropped = self.total - len(self.head) - len(tail)
        middle = f"\n[... {dropped} bytes not kept ...]\n".encode() if dropped > 0 else b""
        return (bytes(self.head) + middle + tail).decode("utf-8", errors="replace")


_LIVE_GROUPS: set[int] = set()
_LIVE_LOCK = threading.Lock()
_STOPPING = threading.Event()


def stop_all_groups() -> int:
    """Kill every process group `run` has started and not yet reaped, and any it starts until `resume_groups`
    (a signal arrived: builds must not outlive the run, nor start after it). Returns how many were live."""
    _STOPPING.set()  # before the snapshot: a group added after it kills itself in `live_group`
    return _kill_live_groups()


def live_group(pid: int) -> None:
    """Count a process group (a job's, or a zygote's) among those `stop_all_groups` kills; killed at once while
    they are being stopped, or once this process has begun to exit."""
    with _LIVE_LOCK:
        _LIVE_GROUPS.add(pid)
        stopping = _STOPPING.is_set() or leftovers.exiting()
    if stopping:
        kill_tree(pid)


def ended_group(pid: int) -> None:
    with _LIVE_LOCK:
        _LIVE_GROUPS.discard(pid)


def _kill_live_groups() -> int:
    """The groups still running, killed; how many. Alone (at exit, before leftovers are removed) it refuses no
    later run, unlike `stop_all_groups`, since a test process calls it too."""
    with _LIVE_LOCK:
        live = list(_LIVE_GROUPS)
    for pgid in live:
        kill_tree(pgid)
    return len(live)


leftovers.stop_first(_kill_live_groups)


def resume_groups() -> None:
    """Let `run` start processes again (after the interrupted stage has unwound)."""
    with _LIVE_LOCK:
        _STOPPING.clear()


def confined_argv(argv: Sequence[str], limits: Limits, isolate_network: bool, status_fd: int) -> list[str]:
    """The command line that confines itself, then execs `argv`."""
    spec = {"limits": asdict(limits), "network": isolate_network, "status_fd": status_fd}
    return [sys.executable, "-m", "validator.isolation.sandbox", json.dumps(spec), "--", *argv]


def run(
    argv: Sequence[str],
    *,
    workdir: Path,
    timeout_s: float,
    limits: Limits,
    env: Mapping[str, str] | None = None,
    isolate_network: bool = True,
    output_cap: int = OUTPUT_CAP,
    pass_fds: Sequence[int] = (),
    user: int | None = None,
) -> SandboxResult:
    """Run `argv` confined in `workdir` (see `private_dir`), wait at most `timeout_s`, then kill its group.
    `pass_fds` stay open in the child (bubblewrap's seccomp program; a lock held for as long as it lives);
    `user`, when given, is the uid (and gid) the child runs as (bubblewrap's unprivileged outside uid)."""
    status_read, status_write = os.pipe()
    started = time.perf_counter()
    try:
        process = subprocess.Popen(
            confined_argv(argv, limits, isolate_network, status_write),
            cwd=workdir, env=scrubbed_env(env or {}, workdir), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
            pass_fds=(status_write, *pass_fds), user=user, group=user, extra_groups=[] if user is not None else None,
        )
    finally:
        os.close(status_write)
    live_group(process.pid)
    readers = [CappedReader(process.stdout, output_cap), CappedReader(process.stderr, output_cap)]
    for reader in readers:
        reader.start()
    timed_out = False
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        kill_and_reap(process)
        ended_group(process.pid)
    seconds = time.perf_counter() - started
    for reader in readers:
        reader.join(timeout=5)
    with os.fdopen(status_read, "rb") as status_file:
        isolated, how = read_isolation_status(status_file.read())
    return SandboxResult(
        None if timed_out else process.returncode, timed_out, seconds, readers[0].text(), readers[1].text(),
        isolated, how,
    )


def read_isolation_status(raw: bytes) -> tuple[bool, str]:
    try:
        status = json.loads(raw.decode())
        return bool(status["network_isolated"]), str(status["isolation"])
    except (ValueError, KeyError, TypeError):
        return False, "the sandbox launcher reported nothing (it failed before exec)"


# ----- child half: runs in the new process, before the untrusted program -----


def _user_task_count() -> int:
    """Tasks (processes and threads) of this real user: RLIMIT_NPROC counts them all, not just ours."""
    uid, count = os.getuid(), 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            fields = dict(line.split(":", 1) for line in Path(entry.path, "status").read_text().splitlines())
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"])
    return count


def _lower(kind: int, soft: int, hard: int) -> None:
    """Set a limit, never above the one already in force (a judge confining its runner is itself confined)."""
    _, current = resource.getrlimit(kind)
    if current != resource.RLIM_INFINITY:
        soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(kind, (soft, hard))


TASKS_PER_CORE = 64
"""Least RLIMIT_NPROC headroom per core. The limit counts every task of the real uid, and every build and runner
of a machine runs as one uid, so concurrent jobs share one headroom; their number grows with the cores. On a
64-core host, 16 builds at once (each importing torch, whose BLAS starts a thread per core) met a headroom of
512: pthread_create failed and the builds died with SIGSEGV, published as compile errors."""


def apply_limits(limits: Limits) -> None:
    _lower(resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 5)
    _lower(resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes)
    _lower(resource.RLIMIT_NOFILE, limits.open_files, limits.open_files)
    if limits.memory_bytes is not None:
        _lower(resource.RLIMIT_DATA, limits.memory_bytes, limits.memory_bytes)
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    tasks = _user_task_count() + max(limits.processes, TASKS_PER_CORE * (os.cpu_count() or 1))
    _, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if hard != resource.RLIM_INFINITY:
        tasks = min(tasks, hard)
    resource.setrlimit(resource.RLIMIT_NPROC, (tasks, tasks))


def libc_call(name: str, *args: int) -> int:
    """Call a libc function; returns 0 or errno."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return 0 if getattr(libc, name)(*args) == 0 else ctypes.get_errno()


def isolate_network() -> tuple[bool, str]:
    """Move this process into a new, empty network namespace: as root directly, else via a user namespace."""
    errno = libc_call("unshare", CLONE_NEWNET)
    if errno == 0:
        return True, "new network namespace (unshare CLONE_NEWNET)"
    uid, gid = os.getuid(), os.getgid()
    errno_user = libc_call("unshare", CLONE_NEWUSER | CLONE_NEWNET)
    if errno_user != 0:
        return False, (
            f"no network namespace: unshare(CLONE_NEWNET) failed ({os.strerror(errno)}) and so did a user "
            f"namespace ({os.strerror(errno_user)}); the network was reachable"
        )
    # Map our own ids into the new user namespace so files keep their owner and getuid() is unchanged.
    with contextlib.suppress(OSError):
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    return True, "new network namespace inside a new user namespace (unprivileged)"


def confine_and_exec(spec: dict, argv: list[str]) -> None:
    status_fd = spec["status_fd"]
    network = (False, "network isolation not requested")
    try:
        libc_call("prctl", PR_SET_PDEATHSIG, int(signal.SIGKILL))  # die with the parent that started us
        # Orphans of the program are adopted by it, not by the host's init: they stay in the tree the judge
        # stops and kills (`process_tree.py`) where no pid namespace keeps them (no bubblewrap).
        libc_call("prctl", PR_SET_CHILD_SUBREAPER, 1)
        apply_limits(Limits(**spec["limits"]))
        if spec["network"]:
            network = isolate_network()
    except Exception as exc:  # confinement failed: say so and do not run the program unconfined
        sys.stderr.write(f"kb-validate sandbox: could not confine the process: {exc}\n")
        os.close(status_fd)
        os._exit(126)
    os.write(status_fd, json.dumps({"network_isolated": network[0], "isolation": network[1]}).encode())
    os.close(status_fd)
    try:
        os.execvp(argv[0], argv)
    except OSError as exc:
        sys.stderr.write(f"kb-validate sandbox: cannot run {argv[0]}: {exc}\n")
        os._exit(127)


def main(args: list[str]) -> None:
    if len(args) < 3 or args[1] != "--":
        sys.stderr.write("usage: python -m validator.isolation.sandbox SPEC_JSON -- ARGV...\n")
        sys.exit(2)
    confine_and_exec(json.loads(args[0]), args[2:])


# ----- GPU health -----

HEALTH_PROBE = (
    "import torch\n"
    "x = torch.full((1 << 20,), 2.0, device='cuda')\n"
    "total = float(x.sum())\n"
    "torch.cuda.synchronize()\n"
    "assert total == 2.0 * (1 << 20), total\n"
    "print('ok', torch.cuda.get_device_name(0))\n"
)


def probe_gpu(visible_device: str, timeout_s: float = 120.0) -> tuple[bool, str]:
    """Allocate and run one kernel on `visible_device` in a fresh confined process: is the GPU usable?"""
    with private_dir("kb-probe-") as workdir:
        result = run(
            [sys.executable, "-c", HEALTH_PROBE], workdir=workdir, timeout_s=timeout_s,
            limits=Limits.for_timeout(timeout_s, 64 << 20),
            env={"CUDA_VISIBLE_DEVICES": visible_device, "CUDA_DEVICE_ORDER": "PCI_BUS_ID"},
        )
    if result.ok and result.stdout.startswith("ok"):
        return True, result.stdout.strip()
    last = result.stderr.strip().splitlines()[-1:] or [""]
    return False, f"health probe {result.describe_exit()}: {last[0][:300]}"


if __name__ == "__main__":
    main(sys.argv[1:])
