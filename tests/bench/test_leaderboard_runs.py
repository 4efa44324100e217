"""bench/leaderboard_runs.py on a hand-written stand-in for the 2024 leaderboard's raw_data.json: the sample it
draws, and that the run directories it writes are ones the importer reads as KernelBench's own."""

from __future__ import annotations

import json
from pathlib import Path

from tests.paths import REPO, bench_module
from validator.catalogue.problems import load_catalogue
from validator.submission.importer import Pick, plan_import

KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()


def _bench():
    return bench_module("leaderboard_runs")


def _checkout(root: Path) -> Path:
    """Two models' kernels for level 1's 23_Softmax (id 22 there: the leaderboard counts from 0), one for
    19_ReLU (18), one for level 2's first problem (0)."""
    entries = [
        {"level": 1, "problem_id": 22, "display_name": "model-b", "code": KERNEL, "kernel_eval_time": 1.5,
         "file": "aa"},
        {"level": 1, "problem_id": 22, "display_name": "model-a", "code": KERNEL, "kernel_eval_time": 2.5,
         "file": "bb"},
        {"level": 1, "problem_id": 18, "display_name": "model-a", "code": KERNEL, "kernel_eval_time": 0.5,
         "file": "cc"},
        {"level": 2, "problem_id": 0, "display_name": "model-b", "code": KERNEL, "kernel_eval_time": 3.0,
         "file": "dd"},
    ]
    raw = root / "docs" / "assets" / "raw_data.json"
    raw.parent.mkdir(parents=True)
    raw.write_text(json.dumps(entries), encoding="utf-8")
    return root


def test_the_sample_takes_one_kernel_per_problem_and_the_same_ones_for_the_same_seed(tmp_path: Path):
    bench = _bench()
    entries = json.loads((_checkout(tmp_path) / bench.RAW).read_text())
    first = bench.sample(entries, {1: 5, 2: 1}, seed=7)
    assert len(first) == 3 and len({(e["level"], e["problem_id"]) for e in first}) == 3
    assert first == bench.sample(entries, {1: 5, 2: 1}, seed=7)
    assert [e["level"] for e in bench.sample(entries, {1: 1, 2: 0}, seed=7)] == [1]


def test_the_written_runs_are_read_by_the_importer_with_ids_counted_from_one(tmp_path: Path):
    bench = _bench()
    out = tmp_path / "runs"
    assert bench.main([str(_checkout(tmp_path / "lb")), "--out", str(out), "--per-level", "2,1", "--seed", "1"]) == 0
    models = json.loads((out / "models.json").read_text())
    assert sorted(models.values()) == ["model-a", "model-b"]
    level1 = out / "level1"
    names = sorted(p.name for p in level1.glob("*.py"))
    assert [n.split("_sample_")[0] for n in names] == ["level_1_problem_19", "level_1_problem_23"]
    verdicts = json.loads((level1 / "eval_results.json").read_text())
    assert set(verdicts) == {"19", "23"} and verdicts["19"][0]["correctness"] is True
    plan = plan_import(level1, load_catalogue(), Pick("best"), "91bfc2c")
    assert plan.version == "91bfc2c" and not plan.skipped
    assert sorted(c.candidate.problem_id for c in plan.chosen) == [19, 23]


def test_an_unreadable_checkout_exits_2(tmp_path: Path, capsys):
    assert _bench().main([str(tmp_path / "absent"), "--out", str(tmp_path / "out")]) == 2
    assert "raw_data.json" in capsys.readouterr().err


def test_entries_without_the_expected_fields_exit_2_naming_the_file(tmp_path: Path, capsys):
    raw = tmp_path / "docs" / "assets" / "raw_data.json"
    raw.parent.mkdir(parents=True)
    raw.write_text(json.dumps([{"level": 1}]), encoding="utf-8")
    assert _bench().main([str(tmp_path), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "raw_data.json" in err and "expected a list of entries" in err
