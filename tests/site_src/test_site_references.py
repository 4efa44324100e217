"""Ranked entries lead; references (a `compiler` submission, eager, torch.compile) are shown as references on
every page and never lead, never rank and are never named best."""

from __future__ import annotations

import dataclasses
from datetime import date

import pytest

from site_src.model import SiteModel, build_model
from site_src.sources import SiteSources, load_inputs
from site_src.views import curves, heatmap, home, problems
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic

SPEC = SyntheticSpec(submissions=3, problems_per_level=(5, 4, 3), hardware=("nvidia-h200",))


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    tree = write_synthetic(tmp_path_factory.mktemp("data"), SPEC)
    return load_inputs(SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir,
                                   tree.problems_dir / "manifest.json"))


@pytest.fixture(scope="module")
def model(inputs) -> SiteModel:
    return build_model(inputs)


def leader_of(model: SiteModel, level: int = 1) -> tuple[home.LevelBoard, str]:
    combo = model.combos[0]
    board = home.level_board(model, combo, level)
    return board, home.leader_html(model, combo, level, board)


def as_reference(inputs, slug: str) -> SiteModel:
    """The model with `slug`'s submission turned into a reference (method `compiler`)."""
    doc = inputs.submissions[slug]
    reference = dataclasses.replace(doc, document={**doc.document, "method": "compiler"})
    return build_model(dataclasses.replace(inputs, submissions={**inputs.submissions, slug: reference}))


def test_the_leader_line_names_the_best_ranked_entry_and_its_margin_over_the_next(model):
    board, line = leader_of(model)
    first, second = board.ranked[0], board.ranked[1]
    assert f'href="submissions/{first.slug}/"' in line
    margin = home.points(first[home.HEADLINE] - second[home.HEADLINE])
    assert f"{margin} over #2 {model.submission_name(second.slug)}" in line
    assert "vs the best reference, torch.compile" in line


def test_a_level_without_a_ranked_entry_says_so_and_names_no_partial_entry(inputs):
    thin = tuple(dataclasses.replace(r, problems=tuple(p for p in r.problems if p.level != 1 or p.problem_id == 1))
                 for r in inputs.results)
    model = build_model(dataclasses.replace(inputs, results=thin))
    board, line = leader_of(model)
    assert not board.ranked and len(board.partial) == SPEC.submissions
    assert f"No ranked entry yet: {SPEC.submissions} submission(s) attempted fewer than 50%" in line
    assert "href=" not in line and "fast_1" not in line


def test_a_reference_never_leads_even_with_the_best_fast_1(inputs, model):
    top = leader_of(model)[0].ranked[0].slug
    referenced = as_reference(inputs, top)
    board, line = leader_of(referenced)
    assert [s.slug for s in board.compiler] == [top] and top not in [s.slug for s in board.ranked]
    assert f'href="submissions/{top}/"' not in line
    assert f'href="submissions/{board.ranked[0].slug}/"' in line


def test_best_vs_eager_never_names_a_reference_and_the_problem_page_ranks_it_apart(inputs, model):
    bests = model.best[model.best["baseline"] == "eager"]
    reference = bests["slug"].mode()[0]  # the submission named best on most problems
    referenced = as_reference(inputs, reference)
    assert reference not in set(referenced.best["slug"])
    rows = problems.ranked_rows(referenced.aligned, referenced.references)
    assert rows["reference"].any()
    for _, group in rows.groupby(["key", "hardware"]):
        table = problems.ranking_table(referenced, group, None, {})
        ranks = [row[0].display for row in table.rows]
        is_reference = [row[1].display.endswith("(reference)") for row in table.rows]
        assert [r == "ref" for r in ranks] == is_reference
        assert is_reference == sorted(is_reference)  # references come last
        assert [c for c, ref in zip(table.row_css or ("",) * len(ranks), is_reference, strict=True) if ref] == \
            ["kb-ref-row"] * sum(is_reference)


def test_the_heatmap_puts_references_in_a_labelled_column_at_the_edge(inputs, model):
    reference = leader_of(model)[0].ranked[0].slug
    referenced = as_reference(inputs, reference)
    figure = heatmap.level_figure(referenced, referenced.combos[0], 1)
    columns = figure["data"][0]["x"]
    assert columns[-1] == f"{referenced.submission_name(reference)} (reference)"
    assert not any(c.endswith("(reference)") for c in columns[:-1])
    separator = figure["layout"]["shapes"][0]
    assert separator["x0"] == len(columns) - 1.5 and separator["line"]["dash"] == "dash"


def test_the_curves_draw_references_as_grey_dashed_lines_labelled_and_listed_last(inputs, model):
    reference = leader_of(model)[0].ranked[0].slug
    referenced = as_reference(inputs, reference)
    named = curves.top_curves(referenced, referenced.combos[0], 1, 1)
    assert [c.reference for c in named] == [False, True]  # the limit counts submissions only
    figure = curves.curve_figure(named, "t")
    last = figure["data"][-1]
    assert last["name"] == f"{referenced.submission_name(reference)} (reference)"
    assert last["line"]["dash"] == "dash" and last["legendrank"] > 1000
    assert "dash" not in figure["data"][0].get("line", {})


def test_best_over_time_is_drawn_from_two_dated_ranked_entries_and_explained_before(model):
    board = home.level_board(model, model.combos[0], 1)
    assert "<svg" in home.best_over_time_html(model, board, 1)
    one = dataclasses.replace(board, ranked=board.ranked[:1])
    text = home.best_over_time_html(model, one, 1)
    assert "<svg" not in text and "once two ranked entries have a submission date (1 so far)" in text


def test_record_setters_keep_only_entries_that_raise_the_best():
    dated = [(date(2026, 1, 1), 0.2, "a"), (date(2026, 1, 2), 0.1, "b"), (date(2026, 1, 3), 0.3, "c")]
    assert [name for _, _, name in home.record_setters(dated)] == ["a", "c"]
