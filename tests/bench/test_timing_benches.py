"""The device-only timing benches run their own code on a CPU before they spend device time: round_costs.py's timers
around a real judge run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.slow
def test_round_costs_times_every_request_of_a_judged_kernel_under_interpret(tmp_path: Path) -> None:
    out = tmp_path / "rounds.json"
    done = subprocess.run([sys.executable, str(BENCH / "round_costs.py"), "--interpret", "--kernels",
                           "level1_23_softmax_triton.py", "--out", str(out)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, check=False, env={**os.environ, "TRITON_INTERPRET": "1"})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "correct" in done.stdout
    rows = json.loads(out.read_text())
    assert all(row["step"].startswith("level1_23_softmax_triton ") for row in rows)  # each step under its kernel
    steps = {row["step"].split(" ", 1)[1]: row for row in rows}
    for step in ("request:load", "request:prepare", "request:go", "pause", "resume", "round", "judge_call"):
        assert steps[step]["n"] >= 1, step
    assert steps["request:load"]["n"] == 2  # the kernel's runner and the twin of the reference
    assert steps["request:go"]["n"] == 2 * steps["round"]["n"]  # each round: the kernel's span and the twin's


@pytest.mark.slow
def test_span_parts_splits_both_sides_spans_of_another_track_s_problem_under_interpret(tmp_path: Path) -> None:
    kernel = BENCH.parent / "submissions" / "kernelbench-team" / "level1_20_leakyrelu_triton.py"
    out = tmp_path / "parts.json"
    done = subprocess.run([sys.executable, str(BENCH / "span_parts.py"), "level1/19_ReLU@91bfc2c", str(kernel),
                           "--calls", "2", "--spans", "2", "--interpret", "--json", str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "level1/19_ReLU@91bfc2c (full sizes)" in done.stdout
    parts = json.loads(out.read_text())["before"]["parts"]
    for side in ("reference", "kernel"):
        assert all(len(parts[side][part]) == 2 for part in ("make", "timed", "device", "digest", "excess")), side
