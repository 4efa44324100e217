"""Issue 46 (10): a GPU runner sees only the GPU's part of /sys, and no file there that only its outside uid
could read (a runner keeps outside uid 0 where its Python lives under /root)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.isolation.test_bwrap import needs_sandbox
from validator.isolation import bwrap, sysfs

READ_ALL = """
    import json, sys
    seen = {}
    for path in sys.argv[1:]:
        try:
            with open(path, "rb") as f:
                f.read(1)
            seen[path] = "read"
        except OSError as exc:
            seen[path] = type(exc).__name__
    print(json.dumps(seen))
"""


def read_in_gpu_sandbox(paths: list[str], job: Path) -> dict[str, str]:
    """Try to read each of `paths` in a runner's sandbox as a GPU job gets it (gpu=True)."""
    with bwrap.seccomp_fd() as fd:
        argv = bwrap.command([sys.executable, "-c", textwrap.dedent(READ_ALL), *paths], job, gpu=True, seccomp_fd=fd)
        bwrap.prepare_job_dir(job)
        uid = bwrap.runner_uid()
        done = subprocess.run(argv, env=bwrap.environment({}), capture_output=True, text=True, timeout=60,
                              pass_fds=(fd,) if fd is not None else (), user=uid, group=uid,
                              extra_groups=[] if uid is not None else None, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_sandbox
def test_owner_only_sys_files_are_unreadable_in_a_gpu_sandbox(tmp_path: Path):
    owner = bwrap.runner_uid() or os.getuid()
    hidden = sysfs.owner_only_files(["/sys"], owner)
    if not hidden:
        pytest.skip(f"no file under /sys is readable by uid {owner} alone here")
    sample = hidden[:: max(1, len(hidden) // 200)]
    seen = read_in_gpu_sandbox([*sample, "/sys/devices/system/cpu/online"], tmp_path)
    assert seen.pop("/sys/devices/system/cpu/online") == "read"  # the topology the driver reads is there
    assert {path: how for path, how in seen.items() if how == "read"} == {}


@needs_sandbox
def test_owner_only_files_inside_what_is_shown_are_covered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    shown = tmp_path / "shown"
    shown.mkdir()
    (shown / "secret").write_text("root alone")
    (shown / "secret").chmod(0o400)
    (shown / "public").write_text("anyone")
    (shown / "public").chmod(0o444)
    monkeypatch.setattr(sysfs, "SYS_SHOWN", (str(shown),))
    sysfs.bwrap_args.cache_clear()
    (tmp_path / "job").mkdir()
    try:
        seen = read_in_gpu_sandbox([str(shown / "secret"), str(shown / "public")], tmp_path / "job")
    finally:
        sysfs.bwrap_args.cache_clear()
    assert seen == {str(shown / "public"): "read", str(shown / "secret"): "PermissionError"}


def test_owner_only_files_are_found_by_owner_and_mode(tmp_path: Path):
    (tmp_path / "a").mkdir()
    for name, mode in (("mine", 0o400), ("everyone", 0o444), ("group", 0o440)):
        (tmp_path / "a" / name).write_text(name)
        (tmp_path / "a" / name).chmod(mode)
    found = sysfs.owner_only_files([str(tmp_path)], os.getuid())
    assert sorted(Path(p).name for p in found) == ["group", "mine"]
    assert sysfs.owner_only_files([str(tmp_path)], os.getuid() + 1) == []


@pytest.mark.gpu
@needs_sandbox
def test_cuda_works_with_only_the_gpu_part_of_sys(tmp_path: Path):
    code = "import torch; x = torch.ones(1 << 20, device='cuda'); print(int(x.sum()))"
    with bwrap.seccomp_fd() as fd:
        argv = bwrap.command([sys.executable, "-c", code], tmp_path, gpu=True, seccomp_fd=fd)
        bwrap.prepare_job_dir(tmp_path)
        uid = bwrap.runner_uid()
        done = subprocess.run(argv, env=bwrap.environment({}), capture_output=True, text=True, timeout=300,
                              pass_fds=(fd,) if fd is not None else (), user=uid, group=uid,
                              extra_groups=[] if uid is not None else None, check=False)
    assert done.returncode == 0 and done.stdout.split()[-1] == str(1 << 20), done.stderr[-2000:]


def test_the_whole_of_sys_comes_back_only_when_a_maintainer_asks(tmp_path: Path, monkeypatch):
    """`KB_SANDBOX_WHOLE_SYS=1` is the way back for a driver that needs more of /sys; without it, never /sys."""
    if bwrap.bwrap_path() is None:
        pytest.skip("no bubblewrap here")
    whole = ["--ro-bind", "/sys", "/sys"]

    def binds_whole_sys() -> bool:
        argv = bwrap.command(["true"], tmp_path, gpu=True, seccomp_fd=None)
        return any(argv[i:i + 3] == whole for i in range(len(argv)))

    monkeypatch.delenv(bwrap.WHOLE_SYS, raising=False)
    assert not binds_whole_sys()
    monkeypatch.setenv(bwrap.WHOLE_SYS, "1")
    assert binds_whole_sys()
