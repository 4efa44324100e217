"""fast_p and the leaderboard numbers, checked against cases worked out by hand."""

from __future__ import annotations

import dataclasses
import math
from pathlib import Path

import numpy as np
import pytest

from site_src.score_intervals import ambiguous, fast_p_interval
from site_src.scoring import (
    aligned_from_results,
    best_per_problem,
    curves,
    fast_p,
    fast_p_curve,
    level_scores,
)
from validator.catalogue.problems import Catalogue, Problem
from validator.protocol import PROTOCOL_VERSION
from validator.results.records import Environment, Flag, ProblemResult, ResultsFile, Status, UpstreamVerdict

ENV = Environment("GPU", "1", "13.0", "2.14", "3.8", "3.11", "0.1", PROTOCOL_VERSION)


def catalogue(level_sizes: dict[int, int]) -> Catalogue:
    problems = tuple(
        Problem(level, i, f"{i}_P", Path(f"level{level}/{i}_P.py"), f"sha-{level}-{i}")
        for level, size in level_sizes.items()
        for i in range(1, size + 1)
    )
    return Catalogue(Path("problems"), problems, ())


def record(level: int, i: int, status: Status, speedup: float | None = None, **extra) -> ProblemResult:
    return ProblemResult(
        key=f"level{level}/{i}_P",
        level=level,
        problem_id=i,
        problem_sha256=extra.pop("sha", f"sha-{level}-{i}"),
        kernel_path=f"k{i}.py",
        kernel_sha256="k",
        backend="triton",
        status=status,
        speedup=speedup,
        **extra,
    )


def results(
    slug: str, *records: ProblemResult, hardware: str = "h100", verified: bool = False, finished: str = "t1"
) -> ResultsFile:
    return ResultsFile(slug, slug.title(), "s", hardware, ENV, {}, records, "t0", finished, verified=verified)


def score_row(
    files: list[ResultsFile], sizes: dict[int, int], level: int = 1, baseline: str = "eager", rule: str = "strict"
) -> dict:
    """The score row of one level; records without an upstream verdict are scored at the strict rule."""
    scores = level_scores(aligned_from_results(files, catalogue(sizes)))
    picked = scores[(scores.level == level) & (scores.baseline == baseline) & (scores.rule == rule)]
    assert len(picked) == 1
    return picked.iloc[0].to_dict()


C = Status.CORRECT


def test_fast_p_counts_only_speedups_strictly_above_p():
    assert fast_p([1.0, 1.5, 2.0, 0.5], 4, 1.0) == 0.5
    assert fast_p([1.0, 1.5, 2.0, 0.5], 4, 0.5) == 0.75
    assert fast_p([1.0, 1.5, 2.0, 0.5], 4, 2.0) == 0.0


def test_a_speedup_exactly_at_a_threshold_is_not_counted_in_the_table():
    row = score_row(
        [
            results(
                "a", record(1, 1, C, 1.0), record(1, 2, C, 1.5), record(1, 3, C, 2.0), record(1, 4, C, 0.5)
            )
        ],
        {1: 4},
    )
    assert row["fast_0"] == 1.0
    assert row["fast_0.5"] == 0.75
    assert row["fast_0.8"] == 0.75
    assert row["fast_1"] == 0.5
    assert row["fast_1.5"] == 0.25
    assert row["fast_2"] == 0.0


def test_missing_problems_count_as_failures_in_n():
    row = score_row([results("a", record(1, 1, C, 3.0), record(1, 2, C, 3.0))], {1: 5})
    assert row["n_problems"] == 5
    assert row["fast_1"] == pytest.approx(0.4)
    assert row["n_attempted"] == 2
    assert row["compile_rate"] == 1.0
    assert row["correct_rate"] == 1.0


def test_a_run_in_progress_waits_for_its_unmeasured_problems_and_counts_them_as_failures_meanwhile():
    files = [results("a", record(1, 1, C, 3.0), record(1, 2, C, 3.0), finished=""),
             results("b", record(1, 1, C, 3.0))]
    aligned = aligned_from_results(files, catalogue({1: 4}))
    by_slug = {slug: sorted(group["status"]) for slug, group in aligned.groupby("slug")}
    assert by_slug == {"a": ["correct", "correct", "pending", "pending"],
                       "b": ["correct", "missing", "missing", "missing"]}
    running = score_row(files[:1], {1: 4})
    assert (running["n_pending"], running["n_attempted"], running["fast_1"]) == (2, 2, 0.5)
    assert score_row(files[1:], {1: 4})["n_pending"] == 0


def test_failed_builds_lower_the_compile_rate_and_fast_p():
    files = [
        results(
            "a",
            record(1, 1, Status.COMPILE_ERROR),
            record(1, 2, Status.INCORRECT),
            record(1, 3, C, 2.0),
            record(1, 4, C, 0.9),
        )
    ]
    row = score_row(files, {1: 4})
    assert row["n_built"] == 3
    assert row["compile_rate"] == 0.75
    assert row["correct_rate"] == 0.5
    assert row["fast_0"] == 0.5
    assert row["fast_1"] == 0.25
    assert row["geomean_speedup"] == pytest.approx(math.sqrt(2.0 * 0.9))


def test_needs_review_and_rejected_are_not_correct_and_rejected_is_not_built():
    flag = (Flag("speedup-implausible", "held"),)
    files = [
        results(
            "a",
            record(1, 1, Status.NEEDS_REVIEW, 12.0, flags=flag),
            record(1, 2, Status.REJECTED, 5.0),
            record(1, 3, C, 1.2),
        )
    ]
    row = score_row(files, {1: 3})
    assert row["fast_0"] == pytest.approx(1 / 3)
    assert row["fast_2"] == 0.0
    assert row["n_needs_review"] == 1
    assert row["n_rejected"] == 1
    assert row["n_built"] == 2
    assert row["compile_rate"] == pytest.approx(2 / 3)


def test_a_record_of_another_problem_version_is_stale_and_not_attempted():
    files = [results("a", record(1, 1, C, 4.0, sha="old"), record(1, 2, C, 4.0))]
    row = score_row(files, {1: 2})
    assert row["fast_1"] == 0.5
    assert row["n_attempted"] == 1
    aligned = aligned_from_results(files, catalogue({1: 2}))
    assert aligned.set_index("key").loc["level1/1_P", "status"] == "stale"


def test_not_run_and_correct_without_a_speedup_fail_every_threshold():
    files = [results("a", record(1, 1, Status.NOT_RUN), record(1, 2, C, None), record(1, 3, C, 1.1))]
    row = score_row(files, {1: 3})
    assert row["n_attempted"] == 2
    assert row["n_correct"] == 2
    assert row["fast_0"] == pytest.approx(1 / 3)


def test_levels_are_scored_apart_with_their_own_n():
    files = [results("a", record(1, 1, C, 2.0), record(2, 1, C, 2.0), record(2, 2, C, 2.0))]
    assert score_row(files, {1: 4, 2: 2}, level=1)["fast_1"] == 0.25
    assert score_row(files, {1: 4, 2: 2}, level=2)["fast_1"] == 1.0


def test_the_compile_baseline_uses_speedup_vs_compile_and_exists_only_where_measured():
    files = [
        results(
            "a", record(1, 1, C, 2.0, speedup_vs_compile=0.9), record(1, 2, C, 3.0, speedup_vs_compile=1.2)
        ),
        results("b", record(1, 1, C, 2.0)),
    ]
    row = score_row(files[:1], {1: 2}, baseline="torch-compile")
    assert row["fast_1"] == 0.5
    scores = level_scores(aligned_from_results(files, catalogue({1: 2})))
    assert set(scores[scores.slug == "b"].baseline) == {"eager"}


def test_a_key_recorded_twice_keeps_the_last_record():
    row = score_row([results("a", record(1, 1, C, 0.5), record(1, 1, C, 2.0))], {1: 1})
    assert row["fast_1"] == 1.0


def test_verified_is_carried_per_submission_and_hardware():
    files = [
        results("a", record(1, 1, C, 2.0), verified=True),
        results("a", record(1, 1, C, 2.0), hardware="h200"),
    ]
    scores = level_scores(aligned_from_results(files, catalogue({1: 1})))
    assert dict(zip(scores.hardware, scores.verified, strict=True)) == {"h100": True, "h200": False}


def test_the_curve_steps_down_at_each_speedup_and_merges_ties():
    curve = fast_p_curve([1.0, 1.0, 2.0], 4)
    assert curve.start == 0.75
    assert curve.breakpoints == (1.0, 2.0)
    assert curve.values == (0.25, 0.0)
    assert curve.value_at(0.99) == 0.75
    assert curve.value_at(1.0) == 0.25
    assert curve.value_at(1.99) == 0.25
    assert curve.value_at(2.0) == 0.0


def test_the_curve_agrees_with_the_table_at_every_threshold():
    speedups = [0.5, 0.8, 1.0, 1.3, 1.5, 2.0, 2.5]
    curve = fast_p_curve(speedups, 10)
    for p in (0.0, 0.5, 0.8, 1.0, 1.5, 2.0, 3.0):
        assert curve.value_at(p) == fast_p(speedups, 10, p)


def test_curves_are_keyed_by_submission_hardware_baseline_and_level():
    files = [results("a", record(1, 1, C, 2.0), record(1, 2, Status.INCORRECT))]
    curve = curves(aligned_from_results(files, catalogue({1: 2})))[("a", "h100", "eager", "strict", 1)]
    assert curve.start == 0.5
    assert curve.breakpoints == (2.0,)


def test_the_best_kernel_per_problem_is_the_fastest_counted_one_and_ties_go_to_the_first_slug():
    files = [
        results("b", record(1, 1, C, 3.0), record(1, 2, C, 1.5)),
        results("a", record(1, 1, C, 3.0), record(1, 2, Status.NEEDS_REVIEW, 50.0)),
        results("c", record(1, 2, C, 1.2)),
    ]
    best = best_per_problem(aligned_from_results(files, catalogue({1: 3})))
    eager = best[(best.baseline == "eager") & (best.rule == "strict")].set_index("key")
    assert eager.loc["level1/1_P", "slug"] == "a"
    assert eager.loc["level1/2_P", "slug"] == "b"
    assert eager.loc["level1/2_P", "speedup"] == 1.5
    assert "level1/3_P" not in eager.index


def test_a_result_of_an_edited_or_unlisted_kernel_is_stale_shown_with_its_reason_and_not_ranked():
    files = [results("a", record(1, 1, Status.CORRECT, 3.0), record(1, 2, Status.CORRECT, 2.0),
                     record(1, 3, Status.CORRECT, 1.5))]
    committed = {"a": {(1, 1): "k", (1, 2): "edited-since"}}  # problem 3's kernel is no longer listed
    aligned = aligned_from_results(files, catalogue({1: 3}), committed)
    rows = aligned.set_index("problem_id")
    assert list(rows["status"]) == ["correct", "stale", "stale"]
    assert "kernel file changed" in rows.loc[2, "stale_reason"] and "no longer lists" in rows.loc[3, "stale_reason"]
    assert rows.loc[1, "stale_reason"] == "" and math.isnan(rows.loc[2, "speedup"])
    score = level_scores(aligned).query("baseline == 'eager'").iloc[0]
    assert score["fast_1"] == pytest.approx(1 / 3) and score["n_attempted"] == 1
    assert list(best_per_problem(aligned)["problem_id"]) == [1]


def test_results_of_a_submission_without_a_committed_document_are_compared_by_problem_only():
    files = [results("gone", record(1, 1, Status.CORRECT, 3.0))]
    aligned = aligned_from_results(files, catalogue({1: 1}), {"other": {(1, 1): "zzz"}})
    assert list(aligned["status"]) == ["correct"]


def test_a_run_on_another_versions_track_is_scored_on_that_tracks_problems_only():
    headline = catalogue({1: 3})
    changed = Problem(1, 2, "2_P", Path("tracks/old/level1/2_P.py"), "sha-old-2", version="old", headline=False)
    same = [dataclasses.replace(p, version="old", headline=False) for p in headline.problems if p.problem_id != 2]
    with_track = dataclasses.replace(headline, other_versions=(*same, changed))
    assert [p.key for p in with_track.tracks()["old"]] == ["level1/1_P", "level1/2_P@old", "level1/3_P"]
    new = results("new", *(record(1, i, Status.CORRECT, 2.0) for i in (1, 2, 3)))
    old_two = dataclasses.replace(record(1, 2, Status.CORRECT, 3.0, sha="sha-old-2"), key="level1/2_P@old")
    old = results("old", record(1, 1, Status.CORRECT, 2.0), old_two)
    scored = level_scores(aligned_from_results([new, old], with_track))
    scores = scored.query("baseline == 'eager' and rule == 'strict'")
    by_slug = scores.set_index("slug")
    assert by_slug.loc["old", "track"] == "old" and by_slug.loc["new", "track"] == "423217d"
    assert by_slug.loc["old", "n_problems"] == 3 and by_slug.loc["old", "fast_1"] == pytest.approx(2 / 3)
    assert by_slug.loc["new", "fast_1"] == 1.0
    aligned = aligned_from_results([new, old], with_track)
    assert set(aligned[aligned.slug == "new"].key) == {"level1/1_P", "level1/2_P", "level1/3_P"}
    assert set(aligned[aligned.slug == "old"].key) == {"level1/1_P", "level1/2_P@old", "level1/3_P"}


def test_fast_p_has_an_interval_from_each_kernel_s_uncertainty_and_counts_the_ambiguous():
    files = [results("a", record(1, 1, C, 3.0, speedup_ci=(2.9, 3.1)), record(1, 2, C, 1.02, speedup_ci=(0.97, 1.07)),
                     record(1, 3, C, 0.5, speedup_ci=(0.45, 0.55)), record(1, 4, Status.INCORRECT))]
    row = score_row(files, {1: 4})
    assert row["fast_1"] == 0.5 and row["ambiguous_1"] == 1  # only the 1.02x kernel straddles 1
    assert row["fast_1_lo"] == 0.25 and row["fast_1_hi"] == 0.5  # it lands below 1 in a share of the draws
    assert row["fast_2_lo"] == row["fast_2"] == row["fast_2_hi"] == 0.25 and row["ambiguous_2"] == 0
    assert row["fast_0_lo"] == row["fast_0_hi"] == 0.75  # an incorrect kernel fails in every draw
    assert score_row(files, {1: 4}) == row  # seeded


def test_the_fast_p_interval_covers_the_true_fast_p_of_kernels_measured_with_honest_intervals():
    rng = np.random.default_rng(3)
    covered, trials = 0, 200
    for t in range(trials):
        true = np.exp(rng.normal(0.0, 0.15, 40))  # 40 kernels around 1x, many near the threshold
        seen = true * np.exp(rng.normal(0, 0.03, 40))
        low, high = seen * np.exp(-1.96 * 0.03), seen * np.exp(1.96 * 0.03)
        lo, hi = fast_p_interval(seen, low, high, 40, 1.0, draws=500, seed=t)
        covered += lo <= fast_p(true, 40, 1.0) <= hi
    assert covered / trials >= 0.9
    assert ambiguous([0.9, 1.0, 1.1], [1.1, 1.2, 1.3], 1.0) == 2  # low <= p < high


def test_a_submission_page_cell_shows_fast_p_with_its_interval_and_ambiguous_count():
    from site_src.views.submissions import fast_cell

    values = {"fast_1": 0.5, "fast_1_lo": 0.25, "fast_1_hi": 0.5, "ambiguous_1": 1}
    assert fast_cell(values, 1.0) == (0.5, "50.0% [25.0%–50.0%] · 1 ambiguous", None, "", "")
    assert fast_cell({"fast_1": 0.5, "fast_1_lo": 0.5, "fast_1_hi": 0.5, "ambiguous_1": 0}, 1.0).display == "50.0%"


def test_the_site_generator_imports_no_torch():
    """The site is deployed from an environment without torch (.github/workflows/deploy-site.yml)."""
    import subprocess
    import sys

    from tests.paths import REPO

    probe = "import sys, site_src.generate; sys.exit('torch' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], cwd=REPO, check=False,
                          env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).returncode == 0


def upstream(correct: bool, held: bool = False) -> UpstreamVerdict:
    return UpstreamVerdict(correct=correct, trials=5 if correct else 1, held=held)


def test_both_rules_are_scored_and_each_counts_only_what_it_finds_correct():
    files = [results("a",
                     record(1, 1, C, 2.0, upstream=upstream(True)),  # correct under both
                     record(1, 2, Status.INCORRECT, 3.0, upstream=upstream(True)),  # upstream's rule only
                     record(1, 3, C, 1.5, upstream=upstream(False)),  # the strict rule only
                     record(1, 4, Status.REJECTED, upstream=upstream(False)),
                     record(1, 5, Status.INCORRECT, 4.0, upstream=upstream(True, held=True)))]  # held for review
    strict, upstream_rule = score_row(files, {1: 5}), score_row(files, {1: 5}, rule="upstream")
    assert (strict["n_correct"], strict["fast_1"], strict["fast_1.5"]) == (2, 0.4, 0.2)
    assert (upstream_rule["n_correct"], upstream_rule["fast_1"], upstream_rule["fast_2"]) == (2, 0.4, 0.2)
    assert upstream_rule["geomean_speedup"] == pytest.approx(math.sqrt(6.0))
    best = best_per_problem(aligned_from_results(files, catalogue({1: 5})))
    assert set(best[best.rule == "upstream"].key) == {"level1/1_P", "level1/2_P"}


def test_a_record_without_an_upstream_verdict_is_unknown_under_upstream_s_rule_never_correct():
    files = [results("a", record(1, 1, C, 2.0), record(1, 2, C, 2.0, upstream=upstream(True)))]
    row = score_row(files, {1: 2}, rule="upstream")
    assert (row["n_correct"], row["n_unknown"], row["fast_1"]) == (1, 1, 0.5)
    assert score_row(files, {1: 2})["n_unknown"] == 0
