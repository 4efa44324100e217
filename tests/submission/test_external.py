"""Kernels referenced at a pinned commit of a public repository: fetched (from a local mirror: no test touches
the network), verified by sha256 before anything runs, imported as references, kept in results and linked on the
site. The schema's refusals of each bad field are cases in tests/fixtures/bad_submissions/source-*.json."""

from __future__ import annotations

import email.message
import hashlib
import io
import json
import shutil
import urllib.error
from pathlib import Path

import pytest

from tests.conftest import EXAMPLE_SLUG, REPO
from validator import pipeline
from validator.evaluate import stage as evaluate_stage
from validator.evaluate.jobs import Job
from validator.evaluate.scheduler import Device, SchedulerConfig, WorkItem
from validator.findings import ExitCode
from validator.results.records import Environment, ProblemResult, ResultsFile, Status, from_dict, to_dict
from validator.run_context import Stage, StageRun
from validator.submission import external
from validator.submission.external import Failure, FetchError
from validator.submission.records import submission_from_document
from validator.submission.schema import schema_findings
from validator.submission.source import KernelSource

COMMIT = "0123456789abcdef0123456789abcdef01234567"
REPOSITORY = "https://github.com/some-lab/kernel-runs"
KERNEL = REPO / "submissions" / EXAMPLE_SLUG / "level1_23_softmax_triton.py"
REMOTE_PATH = "runs/my run/level_1_problem_23_sample_0_kernel.py"  # a space: quoted in every URL
SHA = hashlib.sha256(KERNEL.read_bytes()).hexdigest()


def _document(**source: str) -> dict:
    """The example submission cut to its softmax kernel, referenced at COMMIT instead of carried."""
    document = json.loads((REPO / "submissions" / f"{EXAMPLE_SLUG}.json").read_text())
    kernel = next(k for k in document["kernels"] if k["problem_id"] == 23)
    kernel["source"] = {"repository": REPOSITORY, "commit": COMMIT, "path": REMOTE_PATH, "sha256": SHA, **source}
    document["kernels"] = [kernel]
    return document


def _mirror(root: Path, data: bytes | None = None) -> Path:
    """A local copy of GitHub, <owner>/<name>/<commit>/<path>, holding the kernel (or `data`)."""
    file = root / "mirror" / "some-lab" / "kernel-runs" / COMMIT / REMOTE_PATH
    file.parent.mkdir(parents=True)
    file.write_bytes(KERNEL.read_bytes() if data is None else data)
    return root / "mirror"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """tmp_path/submissions/<slug>.json with no kernel directory, a private cache, and a mirror as the fetcher."""
    (tmp_path / "submissions").mkdir()
    (tmp_path / "submissions" / f"{EXAMPLE_SLUG}.json").write_text(json.dumps(_document()))
    monkeypatch.setenv("KB_VALIDATE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(external.MIRROR_ENV, str(_mirror(tmp_path)))
    return tmp_path


def _validate(cli, tree: Path, document: dict | None = None):
    path = tree / "submissions" / f"{EXAMPLE_SLUG}.json"
    if document is not None:
        path.write_text(json.dumps(document))
    report = tree / "report.json"
    result = cli(str(path), "--problems-dir", str(REPO / "problems"), "--no-gpu", "--json", str(report))
    stages = json.loads(report.read_text())["submissions"][0]["stages"]
    return result, {s["stage"]: s for s in stages}, str(path)


def _error(stages: dict, code: str, shown: str) -> dict:
    finding = next(f for f in stages["fetch"]["findings"] if f["code"] == code)
    assert finding["file"] == shown and finding["json_path"].startswith("$.kernels[0].source")
    return finding


def test_schema_accepts_a_source_reference_with_or_without_a_local_copy():
    assert schema_findings(_document(), "s.json") == []


def test_a_verified_reference_is_an_ordinary_kernel_file_for_every_later_stage(cli, tree):
    result, stages, _ = _validate(cli, tree)
    assert result.exit_code == ExitCode.OK, result.output
    assert [stages[s]["status"] for s in ("fetch", "semantics", "policy")] == ["passed"] * 3
    assert not (tree / "submissions" / EXAMPLE_SLUG).exists()  # nothing written beside the submission
    copies = list((tree / "cache" / "external" / "runs").rglob("level1_23_softmax_triton.py"))
    assert [c.read_bytes() for c in copies] == [KERNEL.read_bytes()]
    assert (tree / "cache" / "external" / "sha256" / SHA).read_bytes() == KERNEL.read_bytes()


def test_a_rerun_takes_the_verified_file_from_the_cache_without_fetching(tmp_path):
    calls: list[KernelSource] = []

    def fetch(source: KernelSource) -> bytes:
        calls.append(source)
        return KERNEL.read_bytes()

    submission = submission_from_document(_document(), tmp_path / f"{EXAMPLE_SLUG}.json")
    first = external.fetch_kernels(submission, "s.json", tmp_path / "cache", fetch)
    again = external.fetch_kernels(submission, "s.json", tmp_path / "cache", fetch)
    assert first.findings == again.findings == () and len(calls) == 1
    assert calls[0].raw_url == ("https://raw.githubusercontent.com/some-lab/kernel-runs/"
                                f"{COMMIT}/runs/my%20run/level_1_problem_23_sample_0_kernel.py")
    assert again.submission.kernels[0].file.read_bytes() == KERNEL.read_bytes()


def test_a_hash_mismatch_fails_naming_the_kernel_url_and_both_hashes(cli, tree):
    other = "f" * 64
    result, stages, shown = _validate(cli, tree, _document(sha256=other))
    assert result.exit_code == ExitCode.FAILED and "Traceback" not in result.output
    finding = _error(stages, "external-hash-mismatch", shown)
    assert finding["json_path"] == "$.kernels[0].source.sha256"
    assert all(part in finding["message"] for part in (other, SHA, "level 1 problem 23", "raw.githubusercontent"))
    assert "external-hash-mismatch" in result.stdout


def test_a_file_missing_at_the_commit_fails_as_missing(cli, tree):
    result, stages, shown = _validate(cli, tree, _document(path="runs/nowhere.py"))
    assert result.exit_code == ExitCode.FAILED
    assert "does not exist" in _error(stages, "external-file-missing", shown)["message"]


def test_an_unreachable_repository_is_its_own_exit_status(cli, tree, monkeypatch):
    monkeypatch.setenv(external.MIRROR_ENV, str(tree / "no-such-mirror"))
    result, stages, shown = _validate(cli, tree)
    assert result.exit_code == ExitCode.NOT_FETCHED and result.exit_code != ExitCode.INTERNAL
    assert "could not be fetched" in _error(stages, "external-unreachable", shown)["message"]


def test_a_file_over_the_kernel_size_limit_is_refused(cli, tree):
    shutil.rmtree(tree / "mirror")
    _mirror(tree, b"#" * (external.MAX_KERNEL_BYTES + 1))
    result, stages, shown = _validate(cli, tree)
    assert result.exit_code == ExitCode.FAILED
    _error(stages, "external-too-large", shown)


def test_a_local_copy_that_differs_from_the_reference_is_refused(cli, tree):
    kernel_dir = tree / "submissions" / EXAMPLE_SLUG
    kernel_dir.mkdir()
    (kernel_dir / "level1_23_softmax_triton.py").write_text(KERNEL.read_text() + "# edited\n")
    result, stages, shown = _validate(cli, tree)
    assert result.exit_code == ExitCode.FAILED
    assert _error(stages, "external-local-differs", shown)["json_path"] == "$.kernels[0].source.sha256"


def test_nothing_is_checked_built_or_run_after_a_failed_fetch(cli, tree, monkeypatch):
    ran: list[tuple[str, bytes]] = []

    def stand_in(name: str) -> Stage:
        def run(context) -> StageRun:
            ran.append((name, context.submission.kernels[0].file.read_bytes()))
            return StageRun([])
        return Stage(name, lambda machine, options: None, run)

    monkeypatch.setattr(pipeline, "LATER_STAGES", tuple(stand_in(n) for n in ("policy", "build", "evaluate")))
    result, stages, _ = _validate(cli, tree, _document(sha256="0" * 64))
    assert result.exit_code == ExitCode.FAILED and ran == []
    assert {stages[s]["status"] for s in ("semantics", "policy", "build", "evaluate")} == {"not_reached"}
    result, _, _ = _validate(cli, tree, _document())  # the control: a verified kernel reaches them all
    assert result.exit_code == ExitCode.OK
    assert ran == [(name, KERNEL.read_bytes()) for name in ("policy", "build", "evaluate")]


class _Response(io.BytesIO):
    def __enter__(self) -> _Response:
        return self


class _Opener:
    def __init__(self, outcome: bytes | Exception) -> None:
        self.outcome, self.urls = outcome, []

    def open(self, request, timeout: float):
        self.urls.append((request.full_url, timeout))
        if isinstance(self.outcome, Exception):
            raise self.outcome
        return _Response(self.outcome)


def _http_error(code: int) -> urllib.error.HTTPError:
    return urllib.error.HTTPError("https://raw.githubusercontent.com/x", code, "nope", email.message.Message(), None)


@pytest.mark.parametrize(("outcome", "failure"), [
    (_http_error(404), Failure.MISSING),
    (_http_error(503), Failure.UNREACHABLE),
    (urllib.error.URLError("Name or service not known"), Failure.UNREACHABLE),
    (TimeoutError("timed out"), Failure.UNREACHABLE),
], ids=["404", "503", "dns", "timeout"])
def test_the_github_fetcher_tells_a_missing_file_from_an_unreachable_host(outcome, failure):
    fetch = external.github_fetcher(timeout_s=7, opener=_Opener(outcome))  # type: ignore[arg-type]
    with pytest.raises(FetchError) as caught:
        fetch(KernelSource.from_json(_document()["kernels"][0]["source"]))
    assert caught.value.failure == failure


def test_the_github_fetcher_reads_the_pinned_url_with_a_timeout_and_a_size_cap():
    opener = _Opener(b"x" * 100)
    data = external.github_fetcher(timeout_s=7, max_bytes=10, opener=opener)(  # type: ignore[arg-type]
        KernelSource.from_json(_document()["kernels"][0]["source"]))
    assert len(data) == 11  # one byte past the cap: enough to refuse, never the whole body
    assert opener.urls == [(KernelSource.from_json(_document()["kernels"][0]["source"]).raw_url, 7)]


def test_a_redirect_off_githubs_hosts_is_refused():
    handler = external._GithubOnly()
    with pytest.raises(FetchError) as caught:
        handler.redirect_request(None, None, 302, "Found", {}, "https://evil.example/k.py")
    assert caught.value.failure == Failure.REDIRECTED


def _import(cli, tree: Path, *origin: str):
    run = tree / "run"
    run.mkdir()
    shutil.copy(KERNEL, run / "level_1_problem_23_sample_0_kernel.py")
    return cli("import", str(run), "--slug", "lab-run", "--name", "Lab run", "--method", "one-shot", "--author",
               "A. Person", "--hardware", "H100", "--date", "2026-11-01", "--kernelbench-commit", "423217d",
               "--submissions-dir", str(tree / "submissions"), "--problems-dir", str(REPO / "problems"), *origin)


def test_the_importer_writes_references_with_the_local_files_hashes(cli, tree, monkeypatch):
    result = _import(cli, tree, "--repository", REPOSITORY, "--commit", COMMIT, "--path-prefix", "runs/my run/")
    assert result.exit_code == ExitCode.OK, result.output
    written = json.loads((tree / "submissions" / "lab-run.json").read_text())
    assert written["kernels"][0]["source"] == {"repository": REPOSITORY, "commit": COMMIT, "path": REMOTE_PATH,
                                               "sha256": SHA}
    assert not (tree / "submissions" / "lab-run").exists()  # references carry no file
    report = tree / "report.json"
    checked = cli(str(tree / "submissions" / "lab-run.json"), "--problems-dir", str(REPO / "problems"), "--no-gpu",
                  "--json", str(report))
    assert checked.exit_code == ExitCode.OK, checked.output


@pytest.mark.parametrize(("flags", "named"), [
    (("--repository", REPOSITORY, "--commit", "main"), "--commit"),
    (("--repository", "https://github.com/a/b/c", "--commit", COMMIT), "--repository"),
    (("--repository", REPOSITORY, "--commit", COMMIT, "--path-prefix", "../up"), "--path-prefix"),
    (("--repository", REPOSITORY), "--commit"),
])
def test_the_importer_refuses_a_bad_origin_naming_the_option(cli, tree, flags, named):
    result = _import(cli, tree, *flags)
    assert result.exit_code == ExitCode.UNUSABLE and named in result.stderr and "Traceback" not in result.output
    assert not (tree / "submissions" / "lab-run.json").exists()


def _result(source: KernelSource | None = None) -> ProblemResult:
    return ProblemResult("level1/23_Softmax", 1, 23, "a" * 64, "level1_23_softmax_triton.py", SHA, "triton",
                         Status.CORRECT, source=source)


def test_results_keep_the_source_of_each_kernel_through_a_save_and_a_run(tmp_path):
    source = KernelSource.from_json(_document()["kernels"][0]["source"])
    header = ResultsFile("lab-run", "Lab run", "0" * 64, "cpu", Environment("cpu", "", "", "", "", "", "", ""), {},
                         (), "", "")
    job = Job(key="level1/23_Softmax", level=1, problem_id=23, problem_path="p.py", problem_sha256="a" * 64,
              kernel_path="k.py", kernel_sha256=SHA, backend="triton", extensions_dir="", seed=0, protocol={})
    planned = [(WorkItem(job, "level1_23_softmax_triton.py", source=source), _result())]  # decided: nothing runs
    final = evaluate_stage.evaluate(planned, header, tmp_path / "r.json", SchedulerConfig((Device("cpu", ""),), 5))
    assert final.problems[0].source == source
    assert from_dict(json.loads(json.dumps(to_dict(final)))).problems[0].source == source
    old = to_dict(final)
    del old["problems"][0]["source"]  # a file written before sources were recorded
    assert from_dict(old).problems[0].source is None
