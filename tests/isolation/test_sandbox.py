"""Confinement of untrusted processes, and the pre-imported-torch zygote that forks them."""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

from validator.isolation import sandbox
from validator.isolation.zygote import Target, Zygote

LIMITS = sandbox.Limits.for_timeout(30, 1 << 20)


def run_python(code: str, workdir: Path, **kwargs) -> sandbox.SandboxResult:
    kwargs.setdefault("timeout_s", 30)
    kwargs.setdefault("limits", LIMITS)
    return sandbox.run([sys.executable, "-c", textwrap.dedent(code)], workdir=workdir, **kwargs)


@pytest.fixture
def workdir():
    with sandbox.private_dir() as path:
        yield path


def test_the_environment_keeps_only_allowed_variables_and_never_secrets(
    workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "x")
    monkeypatch.setenv("SOMETHING_ELSE", "x")
    monkeypatch.setenv("LANG", "C.UTF-8")
    result = run_python(
        "import json, os; print(json.dumps(dict(os.environ)))", workdir,
        env={"CUDA_VISIBLE_DEVICES": "3", "MY_API_TOKEN": "leak"},
    )
    env = json.loads(result.stdout)
    assert "AWS_SECRET_ACCESS_KEY" not in env and "SOMETHING_ELSE" not in env and "MY_API_TOKEN" not in env
    assert env["LANG"] == "C.UTF-8" and env["CUDA_VISIBLE_DEVICES"] == "3"
    assert env["HOME"] == env["TMPDIR"] == str(workdir)


def test_the_private_directory_is_the_working_directory_and_is_removed_afterwards() -> None:
    with sandbox.private_dir() as path:
        result = run_python(
            "import os; os.makedirs('locked/inner'); open('locked/inner/f', 'w').close(); os.chmod('locked', 0o500);"
            " print(os.getcwd())", path,
        )
        assert result.stdout.strip() == str(path)
    assert not path.exists()


def test_a_timeout_kills_the_whole_process_group(workdir: Path) -> None:
    started = time.perf_counter()
    result = run_python(
        """
        import subprocess, time
        child = subprocess.Popen(["sleep", "300"])
        open("child.pid", "w").write(str(child.pid))
        time.sleep(300)
        """, workdir, timeout_s=3,
    )
    assert result.timed_out and result.returncode is None
    assert time.perf_counter() - started < 30
    child = int((workdir / "child.pid").read_text())
    time.sleep(0.2)
    status = Path(f"/proc/{child}/stat").read_text().split()[2] if Path(f"/proc/{child}").exists() else "gone"
    assert status in ("gone", "Z")  # killed (a zombie until its new parent reaps it)


def test_a_timeout_kills_a_detached_grandchild_too(workdir: Path) -> None:
    """Double fork and setsid: out of the group, orphaned; the launcher made the program adopt its orphans, so
    the tree kill still reaches it (no pid namespace here: plain `sandbox.run`)."""
    result = run_python(
        """
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                open("grandchild.pid", "w").write(str(os.getpid()))
                time.sleep(300)
            os._exit(0)
        time.sleep(300)
        """, workdir, timeout_s=3,
    )
    assert result.timed_out
    grandchild = int((workdir / "grandchild.pid").read_text())
    time.sleep(0.2)
    stat = Path(f"/proc/{grandchild}/stat")
    assert (stat.read_text().rsplit(")", 1)[1].split()[0] if stat.exists() else "gone") in ("gone", "Z")


def test_a_segfault_is_reported_with_the_signal_name(workdir: Path) -> None:
    result = run_python("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", workdir)
    assert result.returncode == -signal.SIGSEGV
    assert "SIGSEGV" in result.describe_exit()


def test_output_is_capped_to_its_head_and_tail(workdir: Path) -> None:
    result = run_python("print('A' * 500_000 + 'END')", workdir, output_cap=1000)
    assert len(result.stdout) < 1100
    assert result.stdout.startswith("AAAA") and result.stdout.rstrip().endswith("END")
    assert "bytes not kept" in result.stdout


def test_files_larger_than_the_limit_cannot_be_written(workdir: Path) -> None:
    result = run_python("open('big', 'wb').write(b'x' * (2 << 20))", workdir)
    assert result.returncode != 0 and "File too large" in result.stderr


def test_cpu_time_open_files_processes_and_core_dumps_are_limited(workdir: Path) -> None:
    limits = sandbox.Limits(cpu_seconds=1, file_bytes=1 << 20, processes=64, open_files=32)
    result = run_python(
        """
        import resource
        print([resource.getrlimit(r)[0] for r in (resource.RLIMIT_NOFILE, resource.RLIMIT_CORE, resource.RLIMIT_NPROC)])
        handles = [open("/dev/null") for _ in range(64)]
        """, workdir, limits=limits,
    )
    nofile, core, nproc = json.loads(result.stdout)
    assert (nofile, core) == (32, 0) and nproc != -1
    assert "Too many open files" in result.stderr
    spin = run_python("while True: pass", workdir, limits=limits, timeout_s=60)
    assert spin.returncode in (-signal.SIGXCPU, -signal.SIGKILL) and not spin.timed_out


def test_the_network_is_cut_off_where_the_os_allows_and_recorded_either_way(workdir: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        result = run_python(
            f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=5); print('connected')", workdir
        )
    if result.network_isolated:
        assert "connected" not in result.stdout and result.returncode != 0
        assert "network namespace" in result.isolation
    else:
        assert "no network namespace" in result.isolation


def test_a_missing_program_is_a_clear_failure_not_a_crash(workdir: Path) -> None:
    result = sandbox.run(["/nonexistent/program"], workdir=workdir, timeout_s=10, limits=LIMITS)
    assert result.returncode == 127 and "cannot run /nonexistent/program" in result.stderr


def test_the_health_probe_fails_without_a_visible_gpu() -> None:
    healthy, detail = sandbox.probe_gpu("", timeout_s=120)
    assert not healthy and detail.startswith("health probe")


@pytest.mark.gpu
def test_the_health_probe_passes_on_a_working_gpu() -> None:
    healthy, detail = sandbox.probe_gpu("0", timeout_s=120)
    assert healthy, detail


SCRIPT = """
import os, sys, signal, time, torch
print(os.getcwd(), os.environ.get("CUDA_VISIBLE_DEVICES"), torch.cuda.is_initialized(), sys.argv[1:])
if sys.argv[1] == "segfault":
    os.kill(os.getpid(), signal.SIGSEGV)
if sys.argv[1] == "hang":
    time.sleep(300)
sys.exit(int(sys.argv[2]) if len(sys.argv) > 2 else 0)
"""


@pytest.mark.slow
def test_zygote_children_are_fresh_confined_processes_and_survive_each_others_crashes(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    target = Target(path=str(script))
    with sandbox.private_dir() as home:
        zygote = Zygote(home, target, {})
        try:
            outcomes = []
            for args in (["ok", "5"], ["segfault"], ["hang"], ["ok"]):
                with sandbox.private_dir() as job_dir:
                    result = zygote.run(target, args, workdir=job_dir, env={"CUDA_VISIBLE_DEVICES": "7"},
                                        limits=LIMITS, timeout_s=3)
                    outcomes.append((result.returncode, result.timed_out, result.stdout.split()))
                    assert result.stdout.startswith(str(job_dir))
        finally:
            zygote.close()
    assert outcomes[0] == (5, False, [outcomes[0][2][0], "7", "False", "['ok',", "'5']"])
    assert outcomes[1][0] == -signal.SIGSEGV
    assert outcomes[2][:2] == (None, True)
    assert outcomes[3][:2] == (0, False)
    assert zygote.network_isolated == ("network namespace" in zygote.isolation)
    # what a torch.compile job would import costs its children nothing (no GPU here, so nothing is refused)
    assert {"torch", "torch._dynamo", "torch._inductor.compile_fx"} <= set(zygote.preloaded)


def test_the_sandbox_launcher_refuses_a_malformed_command_line() -> None:
    import subprocess

    done = subprocess.run([sys.executable, "-m", "validator.isolation.sandbox", "{}"], capture_output=True, text=True,
                          check=False, env={**os.environ})
    assert done.returncode == 2 and "usage" in done.stderr


def test_removing_a_tree_never_changes_the_mode_of_the_directory_that_holds_it(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    # An interrupted run can leave the top directory impossible to remove at first (a runner still writing into
    # it): the retry may open up directories inside the tree, never the one above it (the machine's /tmp).
    holder = tmp_path / "tmp"
    tree = holder / "kb-sandbox-x"
    (tree / "locked").mkdir(parents=True)
    holder.chmod(0o1777)
    (tree / "locked").chmod(0o500)
    calls: list[str] = []

    def failing_rmtree(path: Path, onerror) -> None:
        for target in (tree / "locked" / "f", tree):
            onerror(lambda t: calls.append(str(t)), str(target), None)

    monkeypatch.setattr(sandbox.shutil, "rmtree", failing_rmtree)
    sandbox._remove_tree(tree)
    assert holder.stat().st_mode & 0o7777 == 0o1777
    assert (tree / "locked").stat().st_mode & 0o777 == 0o700  # inside the tree: opened so its entries can go
    assert calls == [str(tree / "locked" / "f"), str(tree)]
