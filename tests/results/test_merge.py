"""`kb-validate merge`: shards of one run combine; shards of different runs are refused."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from validator import commands
from validator.results import records as results
from validator.results.records import Environment, ProblemResult, ResultsFile, Status

PROTOCOL = {"version": "1", "time_budget_s": 30.0}


def problem(key: str, level: int, problem_id: int) -> ProblemResult:
    return ProblemResult(key, level, problem_id, "p" * 64, f"{problem_id}.py", "k" * 64, "triton", Status.CORRECT,
                         speedup=1.5)


def shard(index: int, count: int, keys: list[tuple[str, int, int]], **changes) -> ResultsFile:
    environment = Environment("NVIDIA H100 80GB HBM3", "580.1", "13.0", "2.11.0", "3.6.0", "3.12.3", "0.1.0", "1",
                              sm_clock_mhz=1980, extra={"shard": [index, count], "launcher": "zygote"})
    record = ResultsFile(
        "team-x", "Team X", "s" * 64, "nvidia-h100-80gb-hbm3", environment, PROTOCOL,
        tuple(problem(*k) for k in keys), f"2026-11-22T10:0{index}:00+00:00", f"2026-11-22T11:0{index}:00+00:00",
        verified=True, provenance={"runner": f"gpu-{index}", "run_id": "77", "commit": "abc"},
    )
    return dataclasses.replace(record, **changes)


def write(tmp_path: Path, name: str, record: ResultsFile) -> str:
    path = tmp_path / name
    results.save(record, path)
    return str(path)


@pytest.fixture
def merge_cli(cli, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(commands.VERBS, "merge", "validator.commands.merge")
    return lambda *args: cli("merge", *args)


@pytest.fixture
def two_shards(tmp_path: Path) -> list[str]:
    return [
        write(tmp_path, "a.json", shard(1, 2, [("level1/1_A", 1, 1), ("level2/3_C", 2, 3)])),
        write(tmp_path, "b.json", shard(2, 2, [("level1/2_B", 1, 2)])),
    ]


def test_shards_of_one_run_merge_into_one_sorted_file(tmp_path: Path, merge_cli, two_shards: list[str]) -> None:
    out = tmp_path / "merged.json"
    result = merge_cli(*two_shards, "--out", str(out))
    assert result.exit_code == 0, result.output
    merged = results.load(out)
    assert [p.key for p in merged.problems] == ["level1/1_A", "level1/2_B", "level2/3_C"]
    assert merged.verified and merged.provenance == {"commit": "abc", "run_id": "77", "runner": "gpu-1,gpu-2"}
    assert merged.started_at.startswith("2026-11-22T10:01") and merged.finished_at.startswith("2026-11-22T11:02")
    assert "shard" not in merged.environment.extra
    assert [s["shard"] for s in merged.environment.extra["shards"]] == [[1, 2], [2, 2]]


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"hardware": "nvidia-h200"}, "different hardware"),
        ({"protocol": {"version": "2", "time_budget_s": 30.0}}, "different protocol"),
        ({"submission_sha256": "t" * 64}, "different submission document"),
        ({"slug": "team-y"}, "different submission"),
        ({"environment": Environment("NVIDIA H100 80GB HBM3", "580.1", "13.0", "2.11.0", "3.6.0", "3.12.3", "0.1.0",
                                     "1", extra={"shard": [2, 2], "sandbox": "none"})}, "different sandbox"),
    ],
)
def test_shards_of_different_runs_are_refused(tmp_path: Path, merge_cli, change: dict, expected: str) -> None:
    first = write(tmp_path, "a.json", shard(1, 2, [("level1/1_A", 1, 1)]))
    second = write(tmp_path, "b.json", shard(2, 2, [("level1/2_B", 1, 2)], **change))
    result = merge_cli(first, second, "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 2 and expected in result.stderr and "b.json" in result.stderr
    assert not (tmp_path / "m.json").exists()


def test_facts_of_one_shards_machine_stay_with_that_shard(tmp_path: Path, merge_cli) -> None:
    def on(index: int, gpus: int) -> ResultsFile:
        record = shard(index, 2, [("level1/1_A", 1, 1)] if index == 1 else [("level1/2_B", 1, 2)])
        extra = {**record.environment.extra, "gpu_count": gpus, "compile_warmup": {"jobs": gpus}}
        return dataclasses.replace(record, environment=dataclasses.replace(record.environment, extra=extra))

    paths = [write(tmp_path, "a.json", on(1, 2)), write(tmp_path, "b.json", on(2, 4))]
    assert merge_cli(*paths, "--out", str(tmp_path / "m.json")).exit_code == 0
    extra = results.load(tmp_path / "m.json").environment.extra
    assert extra["launcher"] == "zygote" and "gpu_count" not in extra and "compile_warmup" not in extra
    assert [s["extra"] for s in extra["shards"]] == [
        {"gpu_count": 2, "compile_warmup": {"jobs": 2}}, {"gpu_count": 4, "compile_warmup": {"jobs": 4}}]


def test_overlapping_shards_are_refused(tmp_path: Path, merge_cli) -> None:
    first = write(tmp_path, "a.json", shard(1, 2, [("level1/1_A", 1, 1)]))
    second = write(tmp_path, "b.json", shard(2, 2, [("level1/1_A", 1, 1)]))
    result = merge_cli(first, second, "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 2 and "level1/1_A is also in" in result.stderr


def test_a_missing_or_unfinished_shard_is_refused_unless_partial_is_allowed(tmp_path: Path, merge_cli) -> None:
    first = write(tmp_path, "a.json", shard(1, 3, [("level1/1_A", 1, 1)]))
    second = write(tmp_path, "b.json", shard(2, 3, [("level1/2_B", 1, 2)]))
    result = merge_cli(first, second, "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 2 and "each of 1/N..N/N" in result.stderr
    assert merge_cli(first, second, "--out", str(tmp_path / "m.json"), "--allow-partial").exit_code == 0
    # what it wrote is a run in progress, whose absent problems the site shows as pending, not as failures
    assert results.load(tmp_path / "m.json").finished_at == ""
    unfinished = write(tmp_path, "c.json", shard(3, 3, [("level1/3_C", 1, 3)], finished_at=""))
    result = merge_cli(first, second, unfinished, "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 2 and "did not finish" in result.stderr


def test_software_differences_between_shards_are_warned_about(tmp_path: Path, merge_cli) -> None:
    first = write(tmp_path, "a.json", shard(1, 2, [("level1/1_A", 1, 1)]))
    other = shard(2, 2, [("level1/2_B", 1, 2)])
    other = dataclasses.replace(other, environment=dataclasses.replace(other.environment, driver="590.0"))
    result = merge_cli(first, write(tmp_path, "b.json", other), "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 0 and "driver '590.0' differs" in result.stderr


@pytest.mark.parametrize(
    ("setup", "expected"),
    [
        (lambda p: None, "no such file"),
        (lambda p: p.write_text("{nope"), "invalid JSON"),
        (lambda p: p.write_text('{"slug": "x"}'), "not a results file"),
        (lambda p: p.write_text("[" * 100_000 + "]" * 100_000), "nest deeper than"),
        (lambda p: p.write_text('{"a": NaN}'), "NaN is not valid JSON"),
    ],
)
def test_unusable_shard_files_are_named_with_the_reason(tmp_path: Path, merge_cli, setup, expected: str) -> None:
    bad = tmp_path / "bad.json"
    setup(bad)
    result = merge_cli(str(bad), "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 2 and expected in result.stderr and "bad.json" in result.stderr


def test_the_output_may_not_overwrite_a_shard_or_be_a_directory(tmp_path: Path, merge_cli, two_shards) -> None:
    assert "is one of the shard files" in merge_cli(*two_shards, "--out", two_shards[0]).stderr
    assert "is a directory" in merge_cli(*two_shards, "--out", str(tmp_path)).stderr
    assert "given twice" in merge_cli(two_shards[0], two_shards[0], "--out", str(tmp_path / "m.json")).stderr


def test_an_unreadable_shard_is_left_out_and_recorded_while_the_others_merge(tmp_path: Path, merge_cli) -> None:
    good = write(tmp_path, "x.shard-1-of-2.json", shard(1, 2, [("level1/1_A", 1, 1)]))
    bad = tmp_path / "x.shard-2-of-2.json"
    bad.write_text("[" * 100_000 + "]" * 100_000)
    out = tmp_path / "m.json"
    result = merge_cli(good, str(bad), "--out", str(out))
    assert result.exit_code == 2 and "x.shard-2-of-2.json" in result.stderr and "Traceback" not in result.output
    merged = results.load(out)
    assert [p.key for p in merged.problems] == ["level1/1_A"]
    [recorded] = merged.environment.extra["unreadable_shards"]
    assert recorded["file"] == str(bad) and "nest deeper than" in recorded["error"]


def test_an_unreadable_shard_must_still_complete_the_split(tmp_path: Path, merge_cli) -> None:
    good = write(tmp_path, "x.shard-1-of-3.json", shard(1, 3, [("level1/1_A", 1, 1)]))
    bad = tmp_path / "x.shard-2-of-3.json"
    bad.write_text("{")
    result = merge_cli(good, str(bad), "--out", str(tmp_path / "m.json"))
    assert result.exit_code == 2 and "each of 1/N..N/N" in result.stderr

