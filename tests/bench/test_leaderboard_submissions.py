"""bench/leaderboard_submissions.py on a small git repository laid out as the 2024 leaderboard's: one submission per
model, every kernel a `source` reference to its solution file at the commit, with that file's hash, and valid for the
validator's schema and fetch; each declares the levels whose every problem the board's data.json lists."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO, bench_module
from validator.catalogue.problems import load_catalogue
from validator.submission.external import MIRROR_ENV

KERNEL = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()


def _bench():
    return bench_module("leaderboard_submissions")


def _board(levels: dict[int, int | None]) -> dict[str, list]:
    """A data.json keyed by the first `levels[L]` problems of each level L of the 91bfc2c track (None: all of them)."""
    board: dict[str, list] = {}
    for problem in load_catalogue().tracks()["91bfc2c"]:
        count = levels.get(problem.level, 0)
        if count is None or problem.problem_id <= count:
            board[f"Level {problem.level}: {problem.name}"] = []
    return board


def _repository(root: Path, codes: dict[str, str], board: dict[str, list] | None = None) -> tuple[Path, str]:
    """A git repository whose raw_data.json lists 23_Softmax (id 22 there) for two models and 19_ReLU (18) for one,
    and whose data.json (`board`; by default every problem of level 1 and a few of level 2) lists the problems."""
    entries = [
        {"level": "1", "problem_id": "22", "display_name": "Model B", "code": codes["aa"], "kernel_eval_time": "1.5",
         "file": "aa"},
        {"level": "1", "problem_id": "22", "display_name": "model-a", "code": codes["bb"], "kernel_eval_time": "2.5",
         "file": "bb"},
        {"level": "1", "problem_id": "18", "display_name": "model-a", "code": codes["cc"], "kernel_eval_time": "0.5",
         "file": "cc"},
    ]
    solutions = root / "docs" / "assets" / "solutions"
    solutions.mkdir(parents=True)
    (root / "docs" / "assets" / "raw_data.json").write_text(json.dumps(entries))
    (root / "docs" / "assets" / "data.json").write_text(json.dumps(_board({1: None, 2: 3}) if board is None else board))
    for name, code in codes.items():
        (solutions / f"{name}.py").write_text(code)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "data"], check=True)
    return root / ".git", subprocess.run([*git, "rev-parse", "HEAD"], check=True, capture_output=True,
                                         text=True).stdout.strip()


def _run(git_dir: Path, out: Path, *more: str) -> None:
    out.mkdir()
    script = REPO / "bench" / "leaderboard_submissions.py"
    subprocess.run([sys.executable, str(script), str(git_dir), "--out", str(out), *more], check=True, cwd=REPO,
                   capture_output=True)


@pytest.mark.slow  # a kb-validate run (over 5 s on a 2-core machine)
def test_one_submission_per_model_each_kernel_a_pinned_reference(tmp_path: Path, monkeypatch):
    codes = {"aa": KERNEL, "bb": KERNEL + "\n# b\n", "cc": KERNEL + "\n# c\n"}
    git_dir, commit = _repository(tmp_path / "lb", codes)
    _run(git_dir, tmp_path / "out", "--mirror", str(tmp_path / "mirror"))
    written = {p.name: json.loads(p.read_text()) for p in (tmp_path / "out").glob("*.json")}
    assert sorted(written) == ["kb2024-model-a.json", "kb2024-model-b.json"]
    kernels = written["kb2024-model-a.json"]["kernels"]
    assert [(k["level"], k["problem_id"]) for k in kernels] == [(1, 19), (1, 23)]
    for kernel, name in zip(kernels, ("cc", "bb"), strict=True):
        assert kernel["source"] == {"repository": "https://github.com/anneouyang/KernelBenchLeaderboard",
                                    "commit": commit, "path": f"docs/assets/solutions/{name}.py",
                                    "sha256": hashlib.sha256(codes[name].encode()).hexdigest()}
    assert not list((tmp_path / "out").glob("*/"))  # references only: no kernel file is written
    assert all(d["attempted_levels"] == [1] for d in written.values())  # level 2 is on the board only in part
    # the validator takes it, fetching each reference from the mirror the script laid out as GitHub's raw files
    monkeypatch.setenv(MIRROR_ENV, str(tmp_path / "mirror"))
    done = subprocess.run([sys.executable, "-m", "validator", str(tmp_path / "out" / "kb2024-model-a.json"),
                           "--no-gpu", "--cache-dir", str(tmp_path / "cache")],
                          check=False, cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "fetch      passed" in done.stdout


def test_a_solution_file_that_differs_from_its_entry_s_code_is_refused(tmp_path: Path):
    git_dir, _ = _repository(tmp_path / "lb", {"aa": KERNEL, "bb": KERNEL, "cc": KERNEL})
    root = git_dir.parent
    (root / "docs" / "assets" / "solutions" / "cc.py").write_text("changed")
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "x"],
                   check=True)
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _run(git_dir, tmp_path / "out")
    assert b"cc.py differs from its entry's code" in failed.value.stderr


def test_the_declared_levels_are_those_whose_every_problem_the_board_lists():
    bench, catalogue = _bench(), load_catalogue()
    assert bench.board_levels(_board({1: None, 2: None, 3: None}), catalogue) == (1, 2, 3)
    assert bench.board_levels(_board({1: None, 2: 99, 3: None}), catalogue) == (1, 3)  # one level-2 problem short
    assert bench.board_levels(_board({2: 3}), catalogue) == ()
    renamed = _board({1: None})
    renamed["Level 1: 19_Relu"] = renamed.pop("Level 1: 19_ReLU")  # a key that names another problem
    assert bench.board_levels(renamed, catalogue) == ()
    with pytest.raises(SystemExit, match="not of the form"):
        bench.board_levels({"Softmax": []}, catalogue)


def test_a_level_the_board_evaluated_is_declared_even_where_the_model_has_no_kernel(tmp_path: Path):
    git_dir, _ = _repository(tmp_path / "lb", {"aa": KERNEL, "bb": KERNEL, "cc": KERNEL},
                             board=_board({1: None, 2: None}))
    out = tmp_path / "out"
    out.mkdir()
    script = REPO / "bench" / "leaderboard_submissions.py"
    done = subprocess.run([sys.executable, str(script), str(git_dir), "--out", str(out)], check=True, cwd=REPO,
                          capture_output=True, text=True)
    written = json.loads((out / "kb2024-model-a.json").read_text())
    assert written["attempted_levels"] == [1, 2] and {k["level"] for k in written["kernels"]} == {1}
    assert "kb2024-model-a.json: 2 of 2 kernels; attempted_levels [1, 2]; no kernel on level(s) 2" in done.stdout


def test_a_leaderboard_without_data_json_is_refused(tmp_path: Path):
    git_dir, _ = _repository(tmp_path / "lb", {"aa": KERNEL, "bb": KERNEL, "cc": KERNEL})
    root = git_dir.parent
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "rm", "-q",
                    "docs/assets/data.json"], check=True)
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"],
                   check=True)
    with pytest.raises(subprocess.CalledProcessError) as failed:
        _run(git_dir, tmp_path / "out")
    assert b"docs/assets/data.json is missing" in failed.value.stderr
