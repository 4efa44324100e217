"""The judge's copy of a kernel's compiled artefacts into its runner's private cache directory."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from validator.evaluate.judge import remote
from validator.isolation.manifest import record_tree


def _entry(root: Path) -> Path:
    """A cache entry as a build leaves it: ext/ and inductor/ under one manifest."""
    (root / "ext").mkdir(parents=True)
    (root / "inductor" / "fx").mkdir(parents=True)
    (root / "inductor" / "fx" / "graph.py").write_text("compiled\n")
    record_tree(root)
    return root


def test_a_cache_folder_the_runner_already_made_is_filled_not_refused(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    # a runner started ahead may have made cache/inductor before its judge copies in; the copy once failed
    # with FileExistsError there and the problem's torch.compile baseline was lost
    entry = _entry(tmp_path / "entry")
    monkeypatch.setenv("KB_KERNEL_INDUCTOR_CACHE", str(entry / "inductor"))
    monkeypatch.delenv("KB_KERNEL_TRITON_CACHE", raising=False)
    target = tmp_path / "runner-cache"
    (target / "inductor").mkdir(parents=True)
    (target / "inductor" / "own.txt").write_text("made by the runner\n")
    remote._copy_cache(SimpleNamespace(extensions_dir=str(entry / "ext")), target)
    assert (target / "inductor" / "fx" / "graph.py").read_text() == "compiled\n"
    assert (target / "inductor" / "own.txt").exists()
    assert (target / "ext").is_dir()


def test_a_changed_entry_is_still_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    entry = _entry(tmp_path / "entry")
    (entry / "inductor" / "fx" / "graph.py").write_text("planted\n")
    monkeypatch.setenv("KB_KERNEL_INDUCTOR_CACHE", str(entry / "inductor"))
    target = tmp_path / "runner-cache"
    target.mkdir()
    with pytest.raises(remote.RunnerFailed) as caught:
        remote._copy_cache(SimpleNamespace(extensions_dir=str(entry / "ext")), target)
    assert (caught.value.status, caught.value.code) == ("rejected", "cache-tampered")
    assert not (target / "inductor").exists()


def test_a_compiled_kernel_s_caches_are_kept_and_copied_per_problem(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # the torch.compile row is one kernel file for 250 problems: with one shared entry, every warm-up's merge and
    # every judge's copy hashed and copied what all earlier problems compiled (minutes per judge on four H200s)
    from validator.compile import toolchain
    from validator.isolation.manifest import verify_tree

    entry = tmp_path / "kernels" / "key"
    (entry / "ext").mkdir(parents=True)
    record_tree(entry)  # as the build leaves it
    job = SimpleNamespace(extensions_dir=str(entry / "ext"))

    def warm_up(problem: str) -> None:  # what a warm-up's runner compiled, merged back by its judge
        for name, value in toolchain.worker_cache_env(entry, "torch-compile", problem, tmp_path / "harness").items():
            monkeypatch.setenv(name, value)
        produced = tmp_path / f"runner-{problem}"
        (produced / "inductor" / "fx").mkdir(parents=True)
        (produced / "inductor" / "fx" / f"graph-{problem}.py").write_text(problem)
        (produced / "triton" / "hash").mkdir(parents=True)
        (produced / "triton" / "hash" / "kernel.cubin").write_bytes(problem.encode())
        remote.Runner.keep_caches(SimpleNamespace(job=job, cache=produced, seeded=set()))  # type: ignore[arg-type]

    warm_up("a" * 64)
    warm_up("b" * 64)
    assert verify_tree(entry) is None, "a warm-up changed the build's entry"
    for problem in ("a" * 64, "b" * 64):
        own = entry / toolchain.PER_PROBLEM / problem
        assert verify_tree(own) is None
        kept = sorted(str(p.relative_to(own)) for p in own.rglob("*") if p.is_file() and p.parent != own)
        assert kept == [f"inductor/fx/graph-{problem}.py", "triton/hash/kernel.cubin"]
    target = tmp_path / "judge-b"  # the judge of b copies b's graphs into its runner, and none of a's
    target.mkdir()
    remote._copy_cache(job, target)
    copied = sorted(str(p.relative_to(target)) for p in target.rglob("*") if p.is_file())
    assert copied == [f"inductor/fx/graph-{'b' * 64}.py", "triton/hash/kernel.cubin"]


def _harness(root: Path) -> Path:
    """A judges' Triton cache as Triton leaves it: a driver module, a kernel's group file naming its members by
    absolute path, and a compile still being written."""
    (root / "aaa").mkdir(parents=True)
    (root / "aaa" / "cuda_utils.so").write_bytes(b"driver module")
    (root / "bbb").mkdir()
    (root / "bbb" / "digest_blocks.cubin").write_bytes(b"cubin")
    group = {"child_paths": {"digest_blocks.cubin": str(root / "bbb" / "digest_blocks.cubin")}}
    (root / "bbb" / "__grp__digest_blocks.json").write_text(json.dumps(group))
    (root / "ccc" / "tmp.pid_7_x").mkdir(parents=True)
    (root / "ccc" / "tmp.pid_7_x" / "half.cubin").write_bytes(b"half")
    return root


def test_a_runner_starts_from_a_copy_of_the_judges_triton_cache_with_its_groups_pointing_into_the_copy(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    harness = _harness(tmp_path / "harness-triton")
    monkeypatch.setenv("KB_HARNESS_TRITON_CACHE", str(harness))
    target = tmp_path / "runner-cache" / "triton"
    seeded = remote.seed_harness_cache(target, Path("/kbcache/triton"))
    assert seeded == {Path("aaa/cuda_utils.so"), Path("bbb/digest_blocks.cubin"), Path("bbb/__grp__digest_blocks.json")}
    assert (target / "aaa" / "cuda_utils.so").read_bytes() == b"driver module"
    group = json.loads((target / "bbb" / "__grp__digest_blocks.json").read_text())
    # where the runner sees its copy, or Triton finds the members missing and compiles the digest again
    assert group == {"child_paths": {"digest_blocks.cubin": "/kbcache/triton/bbb/digest_blocks.cubin"}}
    assert not (target / "ccc").exists()
    assert (harness / "bbb" / "__grp__digest_blocks.json").read_text().count(str(harness)) == 1, "the source moved"


def test_without_a_judges_cache_nothing_is_seeded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("KB_HARNESS_TRITON_CACHE", raising=False)
    assert remote.seed_harness_cache(tmp_path / "triton", tmp_path / "triton") == set()
    monkeypatch.setenv("KB_HARNESS_TRITON_CACHE", str(tmp_path / "missing"))
    assert remote.seed_harness_cache(tmp_path / "triton", tmp_path / "triton") == set()
    assert not (tmp_path / "triton").exists()


def test_an_unreadable_group_file_is_left_out_not_copied_as_it_is(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    harness = _harness(tmp_path / "harness-triton")
    (harness / "bbb" / "__grp__digest_blocks.json").write_text("{not json")
    monkeypatch.setenv("KB_HARNESS_TRITON_CACHE", str(harness))
    seeded = remote.seed_harness_cache(tmp_path / "triton", tmp_path / "triton")
    assert Path("bbb/__grp__digest_blocks.json") not in seeded
    assert not (tmp_path / "triton" / "bbb" / "__grp__digest_blocks.json").exists()


def test_the_seeded_files_are_never_merged_back_into_a_kernel_s_entry(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from validator.compile import toolchain

    harness = _harness(tmp_path / "harness-triton")
    entry = tmp_path / "kernels" / "key"
    (entry / "ext").mkdir(parents=True)
    record_tree(entry)
    for name, value in toolchain.worker_cache_env(entry, "triton", "problem", harness).items():
        monkeypatch.setenv(name, value)
    produced = tmp_path / "runner-cache"
    seeded = remote.seed_harness_cache(produced / "triton", produced / "triton")
    (produced / "triton" / "own").mkdir()
    (produced / "triton" / "own" / "kernel.cubin").write_bytes(b"the kernel's own compile")
    runner = SimpleNamespace(job=SimpleNamespace(extensions_dir=str(entry / "ext")), cache=produced, seeded=seeded)
    remote.Runner.keep_caches(runner)  # type: ignore[arg-type]
    kept = sorted(str(p.relative_to(entry / "triton")) for p in (entry / "triton").rglob("*") if p.is_file())
    assert kept == ["own/kernel.cubin"]


@pytest.mark.gpu
def test_a_runner_seeded_from_the_judges_cache_compiles_nothing_for_its_digest(tmp_path: Path) -> None:
    """The judge warms the digest into the judges' cache; a process started on a seeded copy at another path (as a
    runner, which sees its copy at /kbcache/triton) digests without writing a single new file into its cache."""
    import os
    import subprocess
    import sys

    import torch

    if not torch.cuda.is_available():
        pytest.skip("needs a CUDA GPU")
    repo = Path(__file__).resolve().parents[3]
    code = """
import torch
from validator.evaluate import digest
digest.warm(torch.device("cuda"))
digest.output_digest([torch.randn(4096, 1024, device="cuda")])
"""

    def run(cache: Path) -> None:
        env = {**os.environ, "TRITON_CACHE_DIR": str(cache), "PYTHONPATH": str(repo)}
        done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300,
                              check=False)
        assert done.returncode == 0, done.stderr[-1500:]

    harness = tmp_path / "harness-triton"
    run(harness)
    copy = tmp_path / "elsewhere" / "triton"
    os.environ["KB_HARNESS_TRITON_CACHE"] = str(harness)
    try:
        seeded = remote.seed_harness_cache(copy, copy)
    finally:
        del os.environ["KB_HARNESS_TRITON_CACHE"]
    assert seeded
    run(copy)
    after = {p.relative_to(copy) for p in copy.rglob("*") if p.is_file()}
    assert after == seeded, f"the seeded runner compiled again: {sorted(map(str, after - seeded))}"
