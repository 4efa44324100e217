"""The runner's sandbox, property by property, checked from inside a real bubblewrap sandbox; and fail-closed.

Skipped where bubblewrap cannot run (no `bwrap`, no user namespaces) unless KB_REQUIRE_SANDBOX=1, which CI and
the GPU runner set so that a missing sandbox fails instead of hiding.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from tests.paths import REPO
from validator.evaluate import channel
from validator.evaluate import stage as evaluate_stage
from validator.evaluate.judge import launch
from validator.findings import ExitCode, UserError
from validator.isolation import bwrap

ISOLATION = bwrap.probe()
needs_sandbox = pytest.mark.skipif(
    not ISOLATION.confined and os.environ.get("KB_REQUIRE_SANDBOX") != "1",
    reason=f"bubblewrap unavailable here: {ISOLATION.detail}",
)


def inside(code: str, job: Path, timeout: float = 60, ring_dir: Path | None = None) -> dict:
    """Run Python `code` (which prints one JSON object) in the runner's sandbox with `job` as /job (and
    `ring_dir` at RING_MOUNT)."""
    with bwrap.seccomp_fd() as fd:
        argv = bwrap.command([sys.executable, "-c", textwrap.dedent(code)], job, gpu=False, seccomp_fd=fd,
                             ring_dir=ring_dir)
        bwrap.prepare_job_dir(job)
        uid = bwrap.runner_uid()
        done = subprocess.run(argv, env=bwrap.environment({}), capture_output=True, text=True, timeout=timeout,
                              pass_fds=(fd,) if fd is not None else (), user=uid, group=uid,
                              extra_groups=[] if uid is not None else None, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_sandbox
def test_the_probe_sees_every_required_property():
    assert ISOLATION.confined, ISOLATION.detail
    for key, value in bwrap.REQUIRED.items():
        assert ISOLATION.properties[key] == value, key


@needs_sandbox
def test_the_runner_has_its_own_user_mount_pid_ipc_net_and_uts_namespaces(tmp_path: Path):
    kinds = ("user", "mnt", "pid", "ipc", "net", "uts")
    seen = inside(f"""
        import json, os
        print(json.dumps({{k: os.readlink(f"/proc/self/ns/{{k}}") for k in {kinds!r}}}))
    """, tmp_path)
    for kind in kinds:
        assert seen[kind] != str(Path(f"/proc/self/ns/{kind}").readlink()), kind


@needs_sandbox
def test_a_python_under_tmp_is_visible_read_only_inside_though_tmp_itself_is_fresh(tmp_path: Path, monkeypatch):
    """A virtual environment under /tmp (CI's, a contributor's) must not vanish under the sandbox's own /tmp:
    the runner would fail to start and the run would go on unsandboxed."""
    # In a directory of its own under /tmp, world-traversable: as root, the runner is another uid (pytest's own
    # tmp_path is mode 700 then, and bubblewrap, as that uid, could not reach it to bind it).
    outer = Path(tempfile.mkdtemp(prefix="kb-venv-test-", dir="/tmp"))
    outer.chmod(0o755)
    python_home = outer / "venv-like"
    (python_home / "lib").mkdir(parents=True)
    (python_home / "lib" / "marker.txt").write_text("here")
    (outer / "beside.txt").write_text("not shown")
    monkeypatch.setenv("KB_SANDBOX_EXTRA_RO", str(python_home))  # shown as an interpreter's directory is
    job = Path(tempfile.mkdtemp(prefix="kb-job-", dir="/var/tmp" if Path("/var/tmp").is_dir() else None))
    try:
        seen = inside(f"""
            import json, os
            home = {str(python_home)!r}
            try:
                open(home + "/lib/written", "w")
                writable = True
            except OSError:
                writable = False
            print(json.dumps({{"marker": open(home + "/lib/marker.txt").read(), "writable": writable,
                               "beside": os.path.exists({str(outer / "beside.txt")!r})}}))
        """, job)
    finally:
        shutil.rmtree(job, ignore_errors=True)
        shutil.rmtree(outer, ignore_errors=True)
    assert seen == {"marker": "here", "writable": False, "beside": False}


@needs_sandbox
def test_only_the_private_job_directory_and_tmp_are_writable_and_tmp_is_private(tmp_path: Path):
    job, outside = tmp_path / "job", tmp_path / "other-job"
    job.mkdir()
    outside.mkdir()
    (outside / "kernel.py").write_text("another job's kernel")
    seen = inside(f"""
        import json, os
        def writable(path):
            try:
                open(path, "w").close()
                return True
            except OSError:
                return False
        print(json.dumps({{"job": writable("/job/x"), "tmp": writable("/tmp/kb-private-mark"),
                          "usr": writable("/usr/x"), "etc": writable("/etc/x"), "root": writable("/x"),
                          "other_job": os.path.exists({str(outside)!r}),
                          "package_read_only": not writable("/kb/validator/x")}}))
    """, job)
    assert seen == {"job": True, "tmp": True, "usr": False, "etc": False, "root": False, "other_job": False,
                    "package_read_only": True}
    assert not Path("/tmp/kb-private-mark").exists()


@needs_sandbox
def test_home_the_checkout_and_credentials_are_not_visible(tmp_path: Path):
    paths = [str(REPO / "pyproject.toml"), str(REPO / ".git"), str(REPO / "submissions"), "/etc/shadow",
             "/root/.ssh", "/root/.git-credentials", str(Path.home() / ".bash_history")]
    seen = inside(f"""
        import json, os
        print(json.dumps({{p: os.path.exists(p) for p in {paths!r}}}))
    """, tmp_path)
    assert [p for p, visible in seen.items() if visible] == []


@needs_sandbox
def test_no_new_privileges_no_capabilities_and_a_seccomp_filter(tmp_path: Path):
    seen = inside("""
        import json
        status = dict(line.split(":", 1) for line in open("/proc/self/status"))
        print(json.dumps({k: status[k].strip() for k in ("NoNewPrivs", "Seccomp", "CapEff", "CapPrm", "CapBnd")}))
    """, tmp_path)
    assert seen == {"NoNewPrivs": "1", "Seccomp": "2", "CapEff": "0" * 16, "CapPrm": "0" * 16, "CapBnd": "0" * 16}


@needs_sandbox
def test_seccomp_denies_tracing_mounts_namespaces_bpf_perf_and_keys(tmp_path: Path):
    calls = {"ptrace": (101, 0, 0, 0, 0), "process_vm_readv": (310, 1, 0, 0, 0, 0, 0),
             "process_vm_writev": (311, 1, 0, 0, 0, 0, 0), "mount": (165, 0, 0, 0, 0, 0),
             "bpf": (321, 0, 0, 0), "perf_event_open": (298, 0, 0, -1, -1, 0), "keyctl": (250, 0, 0),
             "setns": (308, 0, 0), "unshare": (272, 0x10000000), "clone_newuser": (56, 0x10000000 | 17, 0, 0, 0, 0)}
    seen = inside(f"""
        import ctypes, errno, json
        libc = ctypes.CDLL(None, use_errno=True)
        out = {{}}
        for name, args in {calls!r}.items():
            result = libc.syscall(*[ctypes.c_long(a) for a in args])
            out[name] = errno.errorcode.get(ctypes.get_errno(), "?") if result == -1 else "allowed"
        print(json.dumps(out))
    """, tmp_path)
    assert seen == dict.fromkeys(calls, "EPERM")


@needs_sandbox
def test_processes_outside_cannot_be_signalled_or_seen_and_the_network_is_cut(tmp_path: Path):
    me = os.getpid()
    seen = inside(f"""
        import json, os, socket
        try:
            os.kill({me}, 0)
            signal = "delivered"
        except OSError as exc:
            signal = type(exc).__name__
        try:
            socket.create_connection(("127.0.0.1", 22), timeout=1)
            network = "connected"
        except OSError:
            network = "cut"
        pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
        print(json.dumps({{"signal": signal, "network": network, "pids": pids, "me": os.getpid()}}))
    """, tmp_path)
    assert seen["network"] == "cut" and seen["me"] == 2
    assert seen["signal"] == "ProcessLookupError" or seen["pids"] == [1, 2]
    assert max(seen["pids"]) < 10  # bwrap's init, the runner and at most a few of its own children


@needs_sandbox
def test_the_whole_tree_ends_with_the_sandbox_detached_children_included(tmp_path: Path):
    inside("""
        import json, os, subprocess
        subprocess.Popen(["sleep", "600.31337"], start_new_session=True)
        print(json.dumps({"started": True}))
    """, tmp_path)
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline") if b"600.31337" in _read(p)]
    assert left == []


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


def test_a_verified_run_refuses_to_evaluate_without_the_sandbox(monkeypatch):
    monkeypatch.setattr(bwrap, "machine_isolation", lambda: bwrap.Isolation("none", "bwrap is not installed"))
    with pytest.raises(UserError, match=r"--verified needs the runner sandbox.*bwrap is not installed") as refused:
        evaluate_stage.runner_isolation(verified=True, console=None)
    assert refused.value.exit_code == ExitCode.UNSAFE_HERE == 4  # neither bad input (2) nor a validator bug (3)
    assert evaluate_stage.runner_isolation(verified=False, console=None).sandbox == "none"


def test_interpret_is_a_public_flag_and_excludes_verified(tmp_path: Path):
    from validator.cli import main

    out = tmp_path / "report.txt"
    with out.open("w") as stream:
        code = main(["validate", str(REPO / "submissions" / "kernelbench-team-examples.json"), "--interpret",
                     "--verified", "--provenance", "runner=x"], stdout=stream, stderr=stream)
    assert code == 2
    assert "--verified and --interpret exclude each other" in out.read_text()


@needs_sandbox
@pytest.mark.skipif(not launch.SHARED_MEMORY.is_dir(), reason="no /dev/shm on this host")
def test_the_runner_writes_the_ring_it_was_given_on_tmpfs_and_nothing_else_there(tmp_path: Path):
    """The ring's directory lies on the host's tmpfs, outside the job directory: the runner may write the one
    file the judge gave it, and, as another uid, may neither list the directory nor create, rename or remove
    anything in it. (A runner that keeps our uid, where no other can reach the interpreter, is told apart by
    its namespaces only, there as in its job directory: the write is all this checks then.)"""
    with contextlib.ExitStack() as hold:
        ring_dir = launch.ring_dir(hold)
        if ring_dir is None:
            pytest.skip(f"{launch.SHARED_MEMORY} is not writable here")
        assert ring_dir.is_relative_to(launch.SHARED_MEMORY)
        ring = channel.Ring.create(ring_dir / "ring")
        bwrap.give_to_runner(ring_dir / "ring")
        seen = inside(f"""
            import json, os
            def attempt(action):
                try:
                    action()
                    return "done"
                except OSError as exc:
                    return type(exc).__name__
            ring = "{bwrap.RING_MOUNT}/ring"
            def write():
                with open(ring, "r+b") as f:
                    f.seek(5)
                    f.write(b"runner")
            print(json.dumps({{
                "write": attempt(write),
                "create": attempt(lambda: open("{bwrap.RING_MOUNT}/other", "wb").close()),
                "list": attempt(lambda: os.listdir("{bwrap.RING_MOUNT}")),
                "rename": attempt(lambda: os.rename(ring, "{bwrap.RING_MOUNT}/moved")),
                "remove": attempt(lambda: os.unlink(ring)),
            }}))
        """, tmp_path, ring_dir=ring_dir)
        assert seen["write"] == "done" and os.pread(ring.fd, 6, 5) == b"runner"
        if bwrap.runner_uid() is not None:
            assert seen == {"write": "done", "create": "PermissionError", "list": "PermissionError",
                            "rename": "PermissionError", "remove": "PermissionError"}
            assert [path.name for path in ring_dir.iterdir()] == ["ring"]
        ring.close()
    assert not ring_dir.exists()  # removed with what made it
