"""bench/reference_drift.py reads the reference's drift, its blocks' spread and its baseline placements' spread from
results, and counts the holds by the reference's size."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from tests.paths import REPO


def _script():
    spec = importlib.util.spec_from_file_location("reference_drift", REPO / "bench" / "reference_drift.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _problem(key: str, message: str, blocks: list[float], held: bool) -> dict:
    flags = [{"code": "reference-drift", "message": message, "severity": "info"}]
    if held:
        flags.append({"code": "reference-slowed", "message": "held", "severity": "warning"})
    return {"key": key, "status": "needs_review" if held else "correct", "flags": flags,
            "blocks": [{"reference_ms": ms} for ms in blocks]}


def test_placements_are_read_where_the_message_names_them_and_holds_are_counted_by_size(tmp_path: Path, capsys):
    placed = ("the reference's median: 0.12 ms in the timed rounds, 0.1 ms in the twin's spans before the kernel was "
              "loaded (+20.0%) (the slowest of 0.08, 0.1, 0.09 ms on 3 placements); the judge's span per call: 1 ms")
    single = "the reference's median: 4.04 ms in the timed rounds, 4 ms in the twin's spans before the kernel loaded"
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"problems": [_problem("level1/1_a", placed, [0.1, 0.12, 0.15], True),
                                             _problem("level1/2_b", single, [4.0, 4.04], False),
                                             {"key": "level1/3_c", "status": "incorrect", "flags": []}]}))
    script = _script()
    small, large = sorted(script.rows(str(path)))
    assert small[0] == 0.1 and abs(small[1] - 0.2) < 1e-9
    assert abs(small[2] - 0.5) < 1e-9 and abs(small[3] - 0.25) < 1e-9 and small[4:] == ("level1/1_a", "held")
    assert large[3] is None and large[5] == "correct"
    assert script.main([str(path)]) == 0
    out = capsys.readouterr().out
    assert "references under 0.35 ms: 1, blocks' spread median 50.0%, 1 held" in out
    assert "0.35 ms or more: 1" in out and "0 held" in out
