"""The one JSON reader: every document the project reads is held to a size and a nesting limit and to strict
JSON; what it refuses is a JsonError (a ValueError) naming the file, never a RecursionError or a crash."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from validator import files
from validator.evaluate.jobs import Job
from validator.evaluate.scheduler import WorkItem, _read_output
from validator.results import records

CASES = {
    "deep": ("[" * 100_000 + "]" * 100_000, "json-too-deep"),
    "deep-objects": ('{"a":' * 50_000 + "1" + "}" * 50_000, "json-too-deep"),
    "nan": ('{"x": NaN}', "json-invalid-value"),
    "duplicate": ('{"a": 1, "a": 2}', "json-invalid-value"),
    "syntax": ('{"a": }', "json-syntax"),
    "empty": ("  \n", "json-empty"),
    "nul": ('{"a": "\x00"}', "json-binary"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_unusable_json_is_refused_with_a_code_and_the_file_name(tmp_path: Path, name: str) -> None:
    text, code = CASES[name]
    path = tmp_path / f"{name}.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(files.JsonError) as caught:
        files.read_json(path, 10 * files.MiB)
    assert caught.value.problem.code == code and str(path) in str(caught.value)


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = '{"a": "' + "[" * 10_000 + '\\"]"}'
    assert files.nesting_depth(text) == 1
    assert files.parse_json(text.encode(), "x", 1 << 20) == {"a": "[" * 10_000 + '"]'}


# Each text fills the artifact limit (5 MiB); every quote opens a string that the escaped quotes after it never
# close, the shape that made the old pre-check rescan the rest of the text from each quote (64 KB took 50 s).
HOSTILE = {
    "escaped quotes": '["' + '\\"' * (files.ARTIFACT_BYTES // 2 - 1),
    "trailing backslash": '"\\' * (files.ARTIFACT_BYTES // 2),
    "open brackets": "[" * files.ARTIFACT_BYTES,
    "empty pairs": "[]" * (files.ARTIFACT_BYTES // 2),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_the_nesting_check_is_linear_on_a_hostile_artifact_sized_input(name: str) -> None:
    raw = HOSTILE[name].encode()
    assert len(raw) <= files.ARTIFACT_BYTES
    started = time.perf_counter()
    with pytest.raises(files.JsonError):
        files.parse_json(raw, "artifact.json", files.ARTIFACT_BYTES)
    assert time.perf_counter() - started < 1.5


def test_too_deep_nesting_is_refused_by_the_pre_check_naming_the_limit() -> None:
    with pytest.raises(files.JsonError) as caught:
        files.parse_json(b'{"a": ' * 33 + b"1" + b"}" * 33, "meta.json", files.ARTIFACT_BYTES)
    assert caught.value.problem.code == "json-too-deep"
    assert str(caught.value) == f"meta.json: objects and arrays nest deeper than {files.MAX_DEPTH} levels"
    assert files.parse_json(b"[" * 32 + b"]" * 32, "ok.json", files.ARTIFACT_BYTES) is not None


def test_an_unterminated_string_hides_the_brackets_after_it() -> None:
    assert files.nesting_depth('[["a\\"' + "[" * 100) == 2
    assert files.nesting_depth('[1, "x\\') == 1


def test_the_size_limit_is_checked_before_parsing(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_text("[" + "1," * 1000 + "1]")
    with pytest.raises(files.JsonError, match="at most 100"):
        files.read_json(path, 100)


def test_a_results_file_nested_too_deep_is_a_value_error_not_a_recursion_error(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError, match="nest deeper"):
        records.load(path)


def test_a_hostile_worker_result_is_that_problems_error_not_a_crash(tmp_path: Path) -> None:
    job = Job("level1/1_A", 1, 1, "/p.py", "p" * 64, "/k.py", "k" * 64, "cuda", "/ext", 1, {})
    out = tmp_path / "out.json"
    for text in ("[" * 100_000 + "]" * 100_000, "[1, 2]", '{"key": 1}', "\xff"):
        out.write_text(text, encoding="latin-1")
        result, why = _read_output(WorkItem(job, "k.py"), out)
        assert result is None and why.startswith("wrote an unreadable result")
    out.unlink()
    assert _read_output(WorkItem(job, "k.py"), out) == (None, "wrote no result file")
