"""The catalogue is KernelBench's own files, byte for byte, with the earlier upstream version as a track."""

from __future__ import annotations

import ast
import hashlib
import json
from pathlib import Path

import pytest

from tests.conftest import REPO
from validator.catalogue.overlay import OverlayError, read_overlays
from validator.catalogue.problems import HEADLINE_VERSION, load_catalogue, read_hash_list

PROBLEMS = REPO / "problems"
SHARED = REPO.parent / "shared" / "catalogue"  # where CI has it, beside the clone
COMMITTED = PROBLEMS / "tracks" / f"{HEADLINE_VERSION}.sha256"  # the fallback copy: same facts


def _expected() -> dict[str, str]:
    shared = SHARED / f"kernelbench-{HEADLINE_VERSION}.sha256"
    return read_hash_list(shared if shared.is_file() else COMMITTED)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_problem_file_is_upstream_s_at_the_headline_commit_and_nothing_else_is_there() -> None:
    expected = _expected()
    assert len(expected) == 250
    present = {str(p.relative_to(PROBLEMS)) for p in PROBLEMS.glob("level*/*.py")}
    assert present == set(expected)
    wrong = sorted(rel for rel, digest in expected.items() if _sha(PROBLEMS / rel) != digest)
    assert wrong == []


def test_the_committed_hash_list_is_the_shared_one_where_ci_has_it() -> None:
    shared = SHARED / f"kernelbench-{HEADLINE_VERSION}.sha256"
    if not shared.is_file():
        pytest.skip(f"{shared} is not beside this clone")
    assert read_hash_list(shared) == read_hash_list(COMMITTED)
    names = (SHARED / "kernelbench-levels-1-3.txt").read_text().split()
    assert sorted(names) == sorted(read_hash_list(COMMITTED))


def test_upstream_s_licence_notice_is_kept() -> None:
    text = (PROBLEMS / "LICENSE-KernelBench").read_text()
    assert "MIT License" in text and "Anne Ouyang, Simon Guo, Azalia Mirhoseini" in text


def test_both_versions_are_known_for_every_problem_and_each_file_matches_its_list() -> None:
    catalogue = load_catalogue(PROBLEMS)
    assert catalogue.findings == ()
    assert {p.version for p in catalogue.problems} == {HEADLINE_VERSION}
    december = read_hash_list(PROBLEMS / "tracks" / "91bfc2c.sha256")
    assert len(december) == 250
    stored = {str(p.path.relative_to(PROBLEMS / "tracks" / "91bfc2c")): p for p in catalogue.other_versions}
    for rel, digest in december.items():
        # a file equal to the headline's is not stored twice; every other one is, and hashes as listed
        problem = stored.get(rel)
        assert (problem is not None and problem.sha256 == digest) or _expected().get(rel) == digest, rel
    for problem in catalogue.problems:
        versions = {p.version for p in catalogue.versions_of(problem.level, problem.problem_id)}
        assert HEADLINE_VERSION in versions


def test_an_id_redefined_upstream_resolves_to_each_version_s_own_file() -> None:
    catalogue = load_catalogue(PROBLEMS)
    new, old = catalogue.versions_of(2, 41)
    assert (new.version, new.name) == (HEADLINE_VERSION, "41_Gemm_BatchNorm_GELU_ReLU")
    assert (old.version, old.name) == ("91bfc2c", "41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU")
    assert catalogue.resolve(2, 41, old.sha256) == old and catalogue.resolve(2, 41, new.sha256) == new
    assert catalogue.resolve(2, 41, "0" * 64) is None
    assert old.key == "level2/41_Gemm_BatchNorm_GELU_GroupNorm_Mean_ReLU@91bfc2c" and new.key.endswith("_ReLU")


def test_a_track_file_that_is_not_its_version_s_is_reported(tmp_path: Path) -> None:
    (tmp_path / "level1").mkdir()
    (tmp_path / "tracks" / "abc1234" / "level1").mkdir(parents=True)
    source = "class Model:\n    pass\n\n\ndef get_inputs():\n    return []\n\n\ndef get_init_inputs():\n    return []\n"
    (tmp_path / "level1" / "1_A.py").write_text(source)
    (tmp_path / "tracks" / "abc1234" / "level1" / "1_A.py").write_text(source + "# edited\n")
    (tmp_path / "tracks" / "abc1234.sha256").write_text(f"{'0' * 64}  level1/1_A.py\n")
    catalogue = load_catalogue(tmp_path)
    assert catalogue.other_versions == ()
    assert [f.code for f in catalogue.findings] == ["track-hash-mismatch"]


def test_every_overlay_entry_names_a_problem_and_only_globals_its_file_defines() -> None:
    catalogue = load_catalogue(PROBLEMS)
    keys = {p.key: p for p in catalogue.problems}
    overlays = read_overlays(PROBLEMS)
    assert set(overlays) <= set(keys)
    assert all(overlays.get(key) and overlays[key].reduced_sizes for key in keys), "every problem runs reduced"
    for key, overlay in overlays.items():
        tree = ast.parse(keys[key].path.read_text(encoding="utf-8"))
        names = {t.id for node in tree.body if isinstance(node, ast.Assign) for target in node.targets
                 for t in ([target] if isinstance(target, ast.Name) else getattr(target, "elts", []))
                 if isinstance(t, ast.Name)}
        assert set(overlay.reduced_sizes) <= names, key
        if overlay.judged_differently:
            assert overlay.reason, key


def test_a_broken_overlay_names_the_file_and_the_json_path(tmp_path: Path) -> None:
    (tmp_path / "overlay.json").write_text(json.dumps(
        {"schema_version": 1, "problems": {"level1/1_A": {"reduced_sizes": {"n": 1}, "tolerence": {}}}}))
    with pytest.raises(OverlayError) as caught:
        read_overlays(tmp_path)
    assert str(tmp_path / "overlay.json") in str(caught.value) and "$.problems['level1/1_A']" in str(caught.value)
    assert "tolerence" in str(caught.value)
