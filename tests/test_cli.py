"""The command line: exit statuses, usage errors, report formats, and the committed example."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import EXAMPLE_SLUG, REPO

EXAMPLE = str(REPO / "submissions" / f"{EXAMPLE_SLUG}.json")


def test_example_submission_passes_and_lists_gpu_stages_as_skipped(cli, tmp_path):
    report = tmp_path / "r.json"
    result = cli(EXAMPLE, "--no-gpu", "--json", str(report))
    assert result.exit_code == 0, result.output
    stages = {s["stage"]: s for s in json.loads(report.read_text())["submissions"][0]["stages"]}
    assert [stages[name]["status"] for name in ("load", "schema", "semantics")] == ["passed"] * 3
    assert stages["evaluate"]["status"] == "skipped"
    assert stages["evaluate"]["reason"]
    assert "skipped" in result.stdout


def test_json_report_has_versioned_top_level_and_exit_code(cli, tmp_path):
    report = tmp_path / "r.json"
    cli(EXAMPLE, "--no-gpu", "--json", str(report))
    data = json.loads(report.read_text())
    assert data["report_version"] == 1
    assert data["exit_code"] == 0
    assert data["submissions"][0]["slug"] == EXAMPLE_SLUG
    assert data["submissions"][0]["verdict"] == "passed"


def test_markdown_report_is_a_table_per_submission(cli, tmp_path):
    markdown = tmp_path / "summary.md"
    cli(EXAMPLE, "--no-gpu", "--markdown", str(markdown))
    text = markdown.read_text()
    assert text.startswith("## kb-validate")
    assert "| stage | status | note |" in text
    assert "| schema | ✅ passed |" in text


def test_markdown_cells_escape_pipes_from_user_text(example_tree, cli):
    document = example_tree / "submissions" / f"{EXAMPLE_SLUG}.json"
    data = json.loads(document.read_text())
    data["method"] = "a|b"
    document.write_text(json.dumps(data))
    markdown = example_tree / "summary.md"
    cli(str(document), "--markdown", str(markdown), "--no-gpu")
    finding_rows = [line for line in markdown.read_text().splitlines() if "schema-enum" in line]
    assert finding_rows and all(row.count(" | ") == 3 for row in finding_rows)


def test_worst_outcome_decides_the_exit_status_of_several_paths(cli, tmp_path):
    missing = tmp_path / "absent.json"
    result = cli(EXAMPLE, str(missing), "--no-gpu")
    assert result.exit_code == 2
    assert "file-missing" in result.stdout


def test_no_arguments_is_a_usage_error(cli):
    result = cli()
    assert result.exit_code == 2
    assert "required: PATH" in result.stderr


def test_unknown_option_is_a_usage_error(cli):
    result = cli(EXAMPLE, "--frobnicate")
    assert result.exit_code == 2
    assert "--frobnicate" in result.stderr


def test_missing_problems_directory_is_unusable_input(cli, tmp_path):
    result = cli(EXAMPLE, "--problems-dir", str(tmp_path / "nowhere"))
    assert result.exit_code == 2
    assert "nowhere" in result.stderr and "does not exist" in result.stderr


def test_problems_directory_without_problems_is_unusable_input(cli, tmp_path):
    result = cli(EXAMPLE, "--problems-dir", str(tmp_path))
    assert result.exit_code == 2
    assert "holds no" in result.stderr


def test_report_into_a_missing_directory_fails_before_any_work(cli, tmp_path):
    result = cli(EXAMPLE, "--json", str(tmp_path / "no" / "such" / "r.json"))
    assert result.exit_code == 2
    assert "does not exist" in result.stderr


def test_report_onto_a_directory_is_refused(cli, tmp_path):
    result = cli(EXAMPLE, "--markdown", str(tmp_path))
    assert result.exit_code == 2
    assert "is a directory" in result.stderr


def test_help_lists_verbs_and_exit_statuses(cli):
    result = cli("--help")
    assert result.exit_code == 0
    assert "validate" in result.stdout and "Exit status" in result.stdout


def test_verb_help_and_version_exit_zero(cli):
    assert cli("validate", "--help").exit_code == 0
    version = cli("--version", "x")
    assert version.exit_code == 0 and "kb-validate" in version.stdout


@pytest.mark.slow  # over 4 s alone on a 2-core machine
def test_python_dash_m_runs_the_same_program_without_tracebacks(tmp_path):
    bad = tmp_path / "kernelbench-team-examples.json"
    bad.write_bytes(b"\xff\xfe{")
    proc = subprocess.run(
        [sys.executable, "-m", "validator", str(bad), "--no-gpu"], capture_output=True, text=True, cwd=REPO, check=False
    )
    assert proc.returncode == 2
    assert "json-not-utf8" in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_a_working_directory_removed_under_the_shell_is_a_usage_error_not_a_crash(tmp_path):
    gone = tmp_path / "gone"
    gone.mkdir()

    def enter_and_remove() -> None:  # in the child: the shell's directory is deleted before kb-validate starts
        os.chdir(gone)
        gone.rmdir()

    proc = subprocess.run([sys.executable, "-m", "validator", EXAMPLE, "--no-gpu"], capture_output=True, text=True,
                          preexec_fn=enter_and_remove, check=False, env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 2 and "working directory no longer exists" in proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr and not list(tmp_path.glob("kb-validate-crash-*"))


def test_internal_errors_exit_3_with_a_trace_file_not_a_traceback(cli, monkeypatch, tmp_path):
    import tempfile

    from validator.commands import validate

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(validate, "load_catalogue", broken)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the trace file goes here, not into /tmp
    result = cli(EXAMPLE)
    assert result.exit_code == 3
    assert "internal error" in result.stderr and "Trace written to" in result.stderr
    assert "Traceback" not in result.output
    assert "RuntimeError: boom" in next(tmp_path.glob("kb-validate-crash-*.txt")).read_text()
