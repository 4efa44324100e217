"""A maintainer's decision on a held result: kept in reviews/decisions.json, applied by the site only to exactly the
bytes it names, written by `kb-validate review`."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from site_src.generate import generate
from site_src.scoring import upstream_status
from site_src.sources import SiteDataError, SiteSources, load_inputs
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic
from validator import commands
from validator.results import records as results
from validator.results.records import Environment, ProblemResult, ResultsFile, Status, UpstreamVerdict
from validator.results.reviews import Review, ReviewsError, apply_reviews, load_reviews, parse_reviews, save_reviews

HELD_KEY = "level1/40_LayerNorm"


def record(key: str, status: Status, kernel: str = "a") -> ProblemResult:
    held = status is Status.NEEDS_REVIEW
    problem_id = int(key.split("/")[1].split("_", maxsplit=1)[0])
    return ProblemResult(key, 1, problem_id, "c" * 64, "kernel.py", kernel * 64, "cuda", status,
                         error="speedup 12x is above 10x" if held else "", speedup=12.0,
                         upstream=UpstreamVerdict(True, 5, 1e-6, 1e-6, held=held))


def run(*problems: ProblemResult) -> ResultsFile:
    environment = Environment("NVIDIA H200", "580", "13.0", "2.11", "3.6", "3.12", "0.1.0", "9")
    return ResultsFile("team-x", "Team X", "s" * 64, "nvidia-h200", environment, {"version": "9"}, problems,
                       "2026-11-27T10:00:00+00:00", "2026-11-27T11:00:00+00:00", verified=True)


def review(decision: str = "cleared", **changes) -> Review:
    made = Review("nvidia-h200", "team-x", HELD_KEY, "c" * 64, "a" * 64, decision, "octocat", "2026-11-27",
                  "eager gives each of the 16 rows one block")
    return dataclasses.replace(made, **changes)


def test_a_cleared_result_counts_under_both_rules_and_says_who_cleared_it() -> None:
    decided, used = apply_reviews(run(record(HELD_KEY, Status.NEEDS_REVIEW)), [review()])
    [cleared] = decided.problems
    assert cleared.status is Status.CORRECT and upstream_status(cleared) == "correct" and used == {review()}
    assert cleared.error == "" and cleared.speedup == 12.0
    [flag] = [f for f in cleared.flags if f.code == "review-cleared"]
    assert "@octocat" in flag.message and "2026-11-27" in flag.message and "16 rows" in flag.message


def test_a_rejected_result_counts_under_neither_rule() -> None:
    decided, _ = apply_reviews(run(record(HELD_KEY, Status.NEEDS_REVIEW)), [review("rejected")])
    [rejected] = decided.problems
    assert rejected.status is Status.REJECTED and upstream_status(rejected) == "incorrect"
    assert "rejected on review by @octocat" in rejected.error
    assert [f.severity for f in rejected.flags if f.code == "review-rejected"] == ["error"]


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"kernel_sha256": "e" * 64}, "the kernel changed since the decision"),
        ({"problem_sha256": "e" * 64}, "another version of the problem"),
        ({"hardware": "nvidia-h100"}, "another hardware"),
        ({"slug": "team-y"}, "another submission"),
        ({"problem": "level1/41_Other"}, "another problem"),
    ],
)
def test_a_decision_applies_only_to_the_bytes_it_names(change: dict, why: str) -> None:
    held = run(record(HELD_KEY, Status.NEEDS_REVIEW))
    decided, used = apply_reviews(held, [review(**change)])
    assert decided.problems[0].status is Status.NEEDS_REVIEW and used == set(), why


def test_a_decision_never_changes_a_result_that_is_not_held() -> None:
    for status in (Status.INCORRECT, Status.REJECTED, Status.CORRECT):
        decided, used = apply_reviews(run(record(HELD_KEY, status)), [review()])
        assert decided.problems[0].status is status and used == set()


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ({"decision": "maybe"}, "$.reviews[0].decision"),
        ({"kernel_sha256": "K" * 64}, "$.reviews[0].kernel_sha256"),
        ({"date": "2026-02-30"}, "$.reviews[0].date: '2026-02-30' is not a calendar date"),
        ({"reason": ""}, "$.reviews[0].reason"),
        ({"extra": 1}, "$.reviews[0]: Additional properties"),
    ],
)
def test_a_bad_entry_is_named_by_file_and_json_path(entry: dict, expected: str) -> None:
    data = {"schema_version": 1, "reviews": [{**dataclasses.asdict(review()), **entry}]}
    with pytest.raises(ReviewsError) as raised:
        parse_reviews(data, "reviews/decisions.json")
    assert str(raised.value).startswith("reviews/decisions.json: ") and expected in str(raised.value)


def test_two_decisions_on_the_same_bytes_are_refused(tmp_path: Path) -> None:
    data = {"schema_version": 1, "reviews": [dataclasses.asdict(review()), dataclasses.asdict(review("rejected"))]}
    (tmp_path / "decisions.json").write_text(json.dumps(data))
    with pytest.raises(ReviewsError, match=r"\$\.reviews\[1\]: decides the same result as \$\.reviews\[0\]"):
        load_reviews(tmp_path / "decisions.json")


def test_no_file_is_no_decision_and_unreadable_json_names_the_file(tmp_path: Path) -> None:
    assert load_reviews(tmp_path / "decisions.json") == ()
    (tmp_path / "decisions.json").write_text("{not json")
    with pytest.raises(ReviewsError, match=r"decisions\.json"):
        load_reviews(tmp_path / "decisions.json")


@pytest.fixture
def review_cli(cli, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setitem(commands.VERBS, "review", "validator.commands.review")
    return lambda *args: cli("review", *args)


def decisions(results_dir: Path) -> Path:
    return results_dir.parent / "reviews" / "decisions.json"


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    path = tmp_path / "results" / "nvidia-h200" / "team-x.json"
    results.save(run(record(HELD_KEY, Status.NEEDS_REVIEW), record("level1/19_ReLU", Status.CORRECT)), path)
    return tmp_path / "results"


def test_the_command_writes_the_decision_with_the_recorded_hashes_and_replaces_an_earlier_one(
    review_cli, results_dir: Path
) -> None:
    target = str(results_dir / "nvidia-h200" / "team-x.json")
    first = review_cli(target, HELD_KEY, "--clear", "--by", "octocat", "--reason", "real", "--date", "2026-11-27")
    assert first.exit_code == 0, first.stderr
    assert load_reviews(decisions(results_dir)) == (review(reason="real"),)
    second = review_cli(target, HELD_KEY, "--reject", "--by", "octocat", "--reason", "replayed", "--date",
                        "2026-11-28")
    assert second.exit_code == 0 and "replaced" in second.stdout
    [kept] = load_reviews(decisions(results_dir))
    assert (kept.decision, kept.reason, kept.date) == ("rejected", "replayed", "2026-11-28")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["level1/19_ReLU", "--clear", "--by", "octocat", "--reason", "x"], "is correct, not needs_review"),
        (["level1/99_Nope", "--clear", "--by", "octocat", "--reason", "x"], "has no result for 'level1/99_Nope'"),
        ([HELD_KEY, "--clear", "--by", "not a login", "--reason", "x"], "--by:"),
        ([HELD_KEY, "--clear", "--by", "octocat", "--reason", "x", "--date", "27/11/2026"], "--date:"),
        ([HELD_KEY, "--clear", "--by", "octocat", "--reason", "see $.date: " + "x" * 2000], "--reason:"),
        ([HELD_KEY, "--by", "octocat", "--reason", "x"], "one of the arguments --clear --reject is required"),
    ],
)
def test_the_command_refuses_what_is_not_a_decision_on_a_held_result(
    review_cli, results_dir: Path, args: list[str], expected: str
) -> None:
    result = review_cli(str(results_dir / "nvidia-h200" / "team-x.json"), *args)
    assert result.exit_code == 2 and expected in result.stderr and "Traceback" not in result.stderr
    assert not decisions(results_dir).exists()


def test_the_command_asks_where_the_decisions_go_for_a_results_file_outside_results(
    review_cli, results_dir: Path, tmp_path: Path
) -> None:
    loose = tmp_path / "team-x.json"
    shutil.copy(results_dir / "nvidia-h200" / "team-x.json", loose)
    refused = review_cli(str(loose), HELD_KEY, "--clear", "--by", "octocat", "--reason", "x")
    assert refused.exit_code == 2 and "pass --reviews FILE" in refused.stderr
    chosen = tmp_path / "mine.json"
    assert review_cli(str(loose), HELD_KEY, "--clear", "--by", "octocat", "--reason", "x", "--reviews",
                      str(chosen)).exit_code == 0
    assert [r.decision for r in load_reviews(chosen)] == ["cleared"]


def test_a_decisions_file_that_is_a_directory_is_a_clear_error(review_cli, results_dir: Path, tmp_path: Path) -> None:
    result = review_cli(str(results_dir / "nvidia-h200" / "team-x.json"), HELD_KEY, "--clear", "--by", "octocat",
                        "--reason", "x", "--reviews", str(tmp_path))
    assert result.exit_code == 2 and str(tmp_path) in result.stderr and "Traceback" not in result.stderr


def test_the_command_refuses_a_shard_and_a_broken_reviews_file(review_cli, results_dir: Path) -> None:
    whole = results_dir / "nvidia-h200" / "team-x.json"
    shard = whole.with_name("team-x.shard-1-of-2.json")
    shutil.copy(whole, shard)
    assert "review the merged file" in review_cli(str(shard), HELD_KEY, "--clear", "--by", "o", "--reason", "x").stderr
    decisions(results_dir).parent.mkdir()
    decisions(results_dir).write_text('{"schema_version": 1, "reviews": [{}]}')
    broken = review_cli(str(whole), HELD_KEY, "--clear", "--by", "o", "--reason", "x")
    assert broken.exit_code == 2 and "decisions.json: $.reviews[0]" in broken.stderr
    assert decisions(results_dir).read_text() == '{"schema_version": 1, "reviews": [{}]}'


def test_the_site_applies_decisions_and_lists_every_one(tmp_path: Path) -> None:
    tree = write_synthetic(tmp_path, SyntheticSpec(submissions=3, problems_per_level=(6, 4, 3), seed=3))
    sources = SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir,
                          tree.problems_dir / "manifest.json")
    run_file = load_inputs(sources).results[0]
    problem = next(p for p in run_file.problems if p.status is Status.CORRECT)
    path = tree.results_dir / run_file.hardware / f"{run_file.slug}.json"
    problems = tuple(dataclasses.replace(p, status=Status.NEEDS_REVIEW) if p.key == problem.key else p
                     for p in run_file.problems)
    results.save(dataclasses.replace(results.load(path), problems=problems), path)
    decision = Review(run_file.hardware, run_file.slug, problem.key, problem.problem_sha256, problem.kernel_sha256,
                      "cleared", "octocat", "2026-11-27", "checked <b>by hand</b>")
    stale = dataclasses.replace(decision, kernel_sha256="e" * 64)
    save_reviews(sources.reviews_file, [decision, stale])
    inputs = load_inputs(sources)
    [after] = [p for r in inputs.results if (r.slug, r.hardware) == (run_file.slug, run_file.hardware)
               for p in r.problems if p.key == problem.key]
    assert after.status is Status.CORRECT and inputs.unused_reviews == (stale,)
    page = next(f.content for f in generate(sources).files if f.uri == "methodology.md")
    assert page.count("octocat") == 2 and "no: no held result has these hashes now" in page
    assert "<b>" not in page and "&lt;b&gt;" in page
    sources.reviews_file.write_text('{"schema_version": 2, "reviews": []}')
    with pytest.raises(SiteDataError, match=r"decisions.json: \$.schema_version"):
        load_inputs(sources)
