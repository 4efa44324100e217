"""The judge's copy of a kernel's compiled artefacts into its runner's private cache directory."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from validator.evaluate.worker import remote
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
    from validator.build import toolchain
    from validator.isolation.manifest import verify_tree

    entry = tmp_path / "kernels" / "key"
    (entry / "ext").mkdir(parents=True)
    record_tree(entry)  # as the build leaves it
    job = SimpleNamespace(extensions_dir=str(entry / "ext"))

    def warm_up(problem: str) -> None:  # what a warm-up's runner compiled, merged back by its judge
        for name, value in toolchain.worker_cache_env(entry, "torch-compile", problem).items():
            monkeypatch.setenv(name, value)
        produced = tmp_path / f"runner-{problem}"
        (produced / "inductor" / "fx").mkdir(parents=True)
        (produced / "inductor" / "fx" / f"graph-{problem}.py").write_text(problem)
        (produced / "triton" / "hash").mkdir(parents=True)
        (produced / "triton" / "hash" / "kernel.cubin").write_bytes(problem.encode())
        remote.Runner.keep_caches(SimpleNamespace(job=job, cache=produced))  # type: ignore[arg-type]

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
