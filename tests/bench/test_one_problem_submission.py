"""bench/one_problem_submission.py --track: each kernel points at that track's file of its problem, by the track's
own hash list, whichever track it is."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.paths import REPO
from validator.catalogue.problems import known_versions

KERNEL = "level1_20_leakyrelu_triton.py"


def _made(tmp_path: Path, track: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(REPO / "bench" / "one_problem_submission.py"), str(tmp_path), KERNEL,
                           "--from", str(REPO / "submissions" / "kernelbench-team.json"), "--track", track],
                          check=False, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("track", ["91bfc2c", "423217d"])
def test_a_kernel_points_at_its_track_s_file(tmp_path: Path, track: str):
    made = _made(tmp_path, track)
    assert made.returncode == 0, made.stderr
    kernel = json.loads(Path(made.stdout.strip()).read_text())["kernels"][0]
    assert kernel["problem_sha256"] == known_versions(REPO / "problems")[track]["level1/20_LeakyReLU.py"]


def test_an_unknown_track_is_an_error_that_names_the_kernel(tmp_path: Path):
    made = _made(tmp_path, "0000000")
    assert made.returncode == 2 and f"{KERNEL}: the track 0000000 has no version of level1/20" in made.stderr
