"""Result records survive a save/load round trip and writes are atomic."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from validator.files import write_text_atomic
from validator.results.layout import hardware_key, is_shard_file, results_path, whole_run_files
from validator.results.records import (
    RESULTS_SCHEMA_VERSION,
    BlockTiming,
    Environment,
    Flag,
    ProblemResult,
    ResultsFile,
    Status,
    Timing,
    UpstreamVerdict,
    from_dict,
    load,
    save,
)


def _sample() -> ResultsFile:
    problem = ProblemResult(
        key="level1/19_ReLU", level=1, problem_id=19, problem_sha256="a" * 64, kernel_path="k.py",
        kernel_sha256="b" * 64, backend="cuda", status=Status.CORRECT, max_abs_error=0.0,
        reference=Timing(1.5, 1.4, 1.6, 1.3, 40), kernel=Timing(1.0, 0.9, 1.1, 0.8, 40), speedup=1.5,
        speedup_ci=(1.48, 1.52), rounds=40, flags=(Flag("needs-review", "fast"),), deadline_s=12.5,
        blocks=(BlockTiming(1.5, 1.0, 1.5, 14, True, 1980, 2619, ("sw-power-cap",), 2),
                BlockTiming(1.5, 1.01, 1.485, 13, False)),
        upstream=UpstreamVerdict(correct=True, trials=5, max_abs_error=1e-6, max_rel_error=2e-6),
    )
    env = Environment("NVIDIA H100 80GB HBM3", "580", "13.0", "2.11", "3.6", "3.12", "0.1.0", "1")
    return ResultsFile("s", "S", "c" * 64, "nvidia-h100-80gb-hbm3", env, {"version": "1"}, (problem,),
                       "2026-11-22T00:00:00Z", "2026-11-22T00:01:00Z")


def test_a_results_file_round_trips_through_json(tmp_path):
    original = _sample()
    path = results_path(tmp_path, original.hardware, original.slug)
    save(original, path)
    assert load(path) == original
    assert json.loads(path.read_text())["schema_version"] == RESULTS_SCHEMA_VERSION == 2


def test_a_version_1_file_loads_without_blocks_or_deadline_and_with_its_upstream_verdict_unknown():
    data = json.loads(json.dumps(__import__("dataclasses").asdict(_sample())))
    data["schema_version"] = 1
    for problem in data["problems"]:
        del problem["blocks"], problem["deadline_s"], problem["upstream"]
    loaded = from_dict(data)
    problem = loaded.problems[0]
    assert (problem.blocks, problem.deadline_s, problem.speedup) == ((), None, 1.5)
    assert problem.upstream is None and problem.status is Status.CORRECT  # unknown, never assumed correct
    assert loaded.schema_version == 2


def test_a_newer_results_schema_is_refused_rather_than_misread():
    data = json.loads(json.dumps(__import__("dataclasses").asdict(_sample())))
    data["schema_version"] = 99
    with pytest.raises(ValueError, match="newer"):
        from_dict(data)


def test_hardware_keys_are_stable_slugs():
    assert hardware_key("NVIDIA H100 80GB HBM3") == "nvidia-h100-80gb-hbm3"
    assert hardware_key("  ") == "unknown"


def test_an_interrupted_atomic_write_keeps_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "r.json"
    target.write_text("old")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("os.fsync", fail)
    with pytest.raises(OSError):
        write_text_atomic(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_the_layout_names_a_whole_run_and_its_shards_and_lists_only_whole_runs(tmp_path: Path) -> None:
    whole = results_path(tmp_path, "nvidia-h200", "team")
    part = results_path(tmp_path, "nvidia-h200", "team", (2, 4))
    assert (whole.relative_to(tmp_path).as_posix(), part.name) == ("nvidia-h200/team.json", "team.shard-2-of-4.json")
    assert is_shard_file(part.name) and not is_shard_file(whole.name)
    for path in (whole, part, tmp_path / "nvidia-h200" / "baselines" / "torch-compile.json"):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("{}")
    assert list(whole_run_files(tmp_path)) == [whole]
