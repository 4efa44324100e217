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
