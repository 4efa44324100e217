"""Issue 47, the first hour of a newcomer: every message a fresh clone met that stopped short, the exit-status table
defined once, local runs kept out of the committed results/, and the README's own check on a laptop."""

from __future__ import annotations

import io
import json
import re
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from tests.conftest import REPO
from validator.catalogue.problems import load_catalogue
from validator.compile.stage import BuildResult, BuildStatus
from validator.findings import EXIT_STATUSES, StageOutcome, StageStatus, exit_status_table
from validator.pipeline import _unbuilt_as_skipped
from validator.progress import results_table
from validator.results.layout import INTERPRETER_HARDWARE, hardware_key
from validator.results.records import ProblemResult, Status, UpstreamVerdict
from validator.submission.records import semantic_findings, submission_from_document

EXAMPLE = "kernelbench-team-examples"


def _example(tmp_path: Path, **changes: object) -> Path:
    """The example submission copied to tmp_path, its first kernel entry changed as given."""
    shutil.copytree(REPO / "submissions" / EXAMPLE, tmp_path / EXAMPLE)
    document = json.loads((REPO / "submissions" / f"{EXAMPLE}.json").read_text())
    document["kernels"][0].update(changes)
    path = tmp_path / f"{EXAMPLE}.json"
    path.write_text(json.dumps(document))
    return path


def _semantics(path: Path) -> list:
    document = json.loads(path.read_text())
    return semantic_findings(submission_from_document(document, path), load_catalogue(), str(path))


def test_readme_and_help_carry_the_one_exit_status_table(cli):
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert exit_status_table() in readme
    shown = cli("--help").stdout
    for code, meaning in EXIT_STATUSES.items():
        assert re.search(rf"^\s+{int(code)}\s+{re.escape(meaning.replace('`', ''))}$", shown, re.M), code


def test_a_wrong_hash_is_shown_whole_with_the_expected_ones_and_the_command_that_prints_them(tmp_path):
    wrong = "cbbfc9409662" + "0" * 52  # the right hash's first 12 characters: a prefix would hide the difference
    findings = _semantics(_example(tmp_path, problem_sha256=wrong))
    [finding] = [f for f in findings if f.code == "problem-hash-mismatch"]
    assert wrong in finding.message and load_catalogue().get(1, 19).sha256 in finding.message
    assert "kb-validate hash level1/19" in finding.message and finding.json_path == "$.kernels[0].problem_sha256"


def test_a_hash_of_another_problem_names_that_problem(tmp_path):
    other = load_catalogue().get(1, 20)
    [finding] = [f for f in _semantics(_example(tmp_path, problem_sha256=other.sha256))
                 if f.code == "problem-hash-mismatch"]
    assert f"it is the hash of {other.key}" in finding.message and "problem_id or level wrong" in finding.message


def test_an_old_version_hash_says_which_track_it_counts_on(tmp_path):
    old = next(p for p in load_catalogue().versions_of(1, 19) if not p.headline)
    [finding] = _semantics(_example(tmp_path, problem_sha256=old.sha256))
    assert finding.code == "problem-other-track" and finding.severity == "info"
    assert f"counts on the {old.version} track, not on the headline 423217d track" in finding.message


def test_an_unknown_problem_id_gives_the_valid_range(tmp_path):
    [finding] = [f for f in _semantics(_example(tmp_path, problem_id=999)) if f.code == "problem-unknown"]
    assert "level 1 has ids 1..100" in finding.message


def test_the_hash_verb_prints_each_known_version_and_refuses_an_unknown_id(cli):
    shown = cli("hash", "level1/19").stdout.splitlines()
    headline = load_catalogue().get(1, 19)
    assert shown[0] == f"{headline.sha256}  level1/19_ReLU  (423217d, the headline track)"
    assert len(shown) == len(load_catalogue().versions_of(1, 19))
    refused = cli("hash", "level1/999")
    assert refused.exit_code == 2 and "level 1 has ids 1..100" in refused.stderr and not refused.stdout


def test_a_mistyped_verb_is_named_as_such_with_the_verb_it_resembles(cli):
    result = cli("improt", "run/")
    assert result.exit_code == 2 and "did you mean 'kb-validate import'" in result.stderr


def _result(key: str, status: Status, upstream_correct: bool, error: str = "") -> ProblemResult:
    upstream = UpstreamVerdict(correct=upstream_correct, trials=14, max_abs_error=1e-3, max_rel_error=1e-3)
    return ProblemResult(key, 1, 19, "a" * 64, "k.py", "b" * 64, "triton", status, error=error, upstream=upstream)


def _render(renderable: object, width: int = 80) -> str:
    console = Console(file=io.StringIO(), width=width, color_system=None)
    console.print(renderable)
    return console.file.getvalue()


def test_a_kernel_only_the_strict_rule_rejects_says_both_verdicts():
    shown = _render(results_table([_result("level1/19_ReLU", Status.INCORRECT, True, "max abs error 1e-3")]))
    assert "correct at KernelBench's rule (1e-2), incorrect at the strict rule" in " ".join(shown.split())
    plain = _render(results_table([_result("level1/19_ReLU", Status.INCORRECT, False, "wrong")]))
    assert "KernelBench's rule" not in plain


def test_the_results_table_never_breaks_a_word_at_80_columns():
    long_note = "CUDA build skipped: torch is a CPU-only build (no CUDA headers to compile against)"
    rows = [_result("level2/76_Gemm_Add_ReLU", Status.NOT_RUN, False, long_note),
            _result("level1/23_Softmax", Status.CORRECT, True)]
    shown = _render(results_table(rows))
    words = {w for line in shown.splitlines() for w in line.split()}
    assert "level2/76_Gemm_Add_ReLU" in words and "against)" in words and "CPU-only" in words
    assert all(len(line) <= 80 for line in shown.splitlines())


def test_a_build_that_left_kernels_unbuilt_is_skipped_not_passed():
    def built(status: BuildStatus, message: str) -> BuildResult:
        return BuildResult(None, status, False, 0.0, message)  # type: ignore[arg-type]  # only status and message

    passed = StageOutcome("build", StageStatus.PASSED)
    results = (built(BuildStatus.SKIPPED, "CUDA build skipped: no nvcc"), built(BuildStatus.IMPORTED, ""))
    outcome = _unbuilt_as_skipped(passed, results)
    assert outcome.status == StageStatus.SKIPPED
    assert outcome.reason == "1 of 2 kernel(s) not built here, 1 built: CUDA build skipped: no nvcc"
    assert _unbuilt_as_skipped(passed, results[1:]).status == StageStatus.PASSED


def test_a_results_dir_named_but_missing_is_refused_before_anything_runs(cli, example_tree):
    missing = example_tree / "no-such-dir"
    result = cli(str(example_tree / "submissions" / f"{EXAMPLE}.json"), "--results-dir", str(missing), "--no-gpu")
    assert result.exit_code == 2 and f"--results-dir {missing}: does not exist" in result.stderr
    assert not missing.exists()


def test_local_runs_default_to_an_ignored_folder_the_site_never_reads(cli):
    assert "out/results/" in cli("validate", "--help").stdout
    assert "/out/" in (REPO / ".gitignore").read_text().splitlines()
    assert hardware_key("cpu (Triton interpreter)") == INTERPRETER_HARDWARE


def test_the_site_skips_an_interpreter_run_left_in_results(tmp_path):
    from site_src.sources import load_results_dir

    committed = REPO / "results" / "nvidia-h200" / f"{EXAMPLE}.json"
    for hardware in ("nvidia-h200", INTERPRETER_HARDWARE):
        (tmp_path / hardware).mkdir()
        data = json.loads(committed.read_text())
        data["hardware"] = hardware
        (tmp_path / hardware / f"{EXAMPLE}.json").write_text(json.dumps(data))
    assert [r.hardware for r in load_results_dir(tmp_path)] == ["nvidia-h200"]


def test_import_help_documents_eval_results_json(cli):
    shown = cli("import", "--help").stdout
    assert "eval_results.json" in shown and '"sample_id": 0, "compiled": true, "correctness": true' in shown


def test_the_readme_quick_start_shows_the_laptop_check_and_fits_one_screen():
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "--interpret" in quick and "kb-validate hash" in readme
    assert len(quick.split()) < 350 and len(quick.splitlines()) < 50


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed here")
def test_the_sandbox_works_from_a_virtual_environment_inside_the_checkout(tmp_path):
    """The README's `.venv` lies inside the clone, which the sandbox hides: its prefix must be bound on its own."""
    import subprocess
    import sys

    checkout = tmp_path / "clone"
    shutil.copytree(REPO / "validator", checkout / "validator", ignore=shutil.ignore_patterns("__pycache__"))
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(checkout / ".venv")],
                   check=True)
    probe = ("import json; from validator.isolation import bwrap; i = bwrap.probe(); "
             "print(json.dumps([i.sandbox, i.detail, i.properties.get('outside_hidden')]))")
    done = subprocess.run([str(checkout / ".venv" / "bin" / "python"), "-c", probe], cwd=checkout, check=True,
                          capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(checkout)})
    sandbox, detail, hidden = json.loads(done.stdout.splitlines()[-1])
    assert (sandbox, hidden) == ("bubblewrap", True), detail  # the checkout itself stays out of sight
