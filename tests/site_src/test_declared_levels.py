"""An entry below COVERAGE of a level is ranked there when its submission declares the level attempted in full
(`attempted_levels`), and every page that shows it says so in its own text; one that does not declare it stays
partial, and a reference is never ranked, declaration or not."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from site_src.generate import generate
from site_src.model import SiteModel, build_model
from site_src.sources import SiteSources, load_inputs
from site_src.views import compare, curves, home, submissions
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic

SPEC = SyntheticSpec(submissions=4, problems_per_level=(6, 4, 3), hardware=("nvidia-h200",), coverage=1.0)
DECLARED, UNDECLARED, REFERENCE = "synthetic-001", "synthetic-002", "synthetic-003"
"""On level 1 each has a result for its first problem only (1 of 6, under COVERAGE); synthetic-000 keeps them all."""


def thinned(inputs):
    """Level 1 of every run but synthetic-000's cut to its first problem."""
    def cut(results):
        if results.slug == "synthetic-000":
            return results
        kept = tuple(p for p in results.problems if p.level != 1 or p.problem_id == 1)
        return dataclasses.replace(results, problems=kept)
    return dataclasses.replace(inputs, results=tuple(cut(r) for r in inputs.results))


def declaring(inputs, changes: dict[str, dict]):
    """The inputs with each named submission's document updated by its dict."""
    docs = dict(inputs.submissions)
    for slug, change in changes.items():
        docs[slug] = dataclasses.replace(docs[slug], document={**docs[slug].document, **change})
    return dataclasses.replace(inputs, submissions=docs)


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_synthetic(tmp_path_factory.mktemp("data"), SPEC)


@pytest.fixture(scope="module")
def inputs(tree):
    loaded = load_inputs(SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir,
                                     tree.problems_dir / "manifest.json"))
    return thinned(loaded)


@pytest.fixture(scope="module")
def model(inputs) -> SiteModel:
    return build_model(declaring(inputs, {
        DECLARED: {"attempted_levels": [1, 2]},
        REFERENCE: {"attempted_levels": [1], "method": "compiler"},
    }))


def board(model: SiteModel, level: int = 1) -> home.LevelBoard:
    return home.level_board(model, model.combos[0], level)


def row_of(table, slug: str):
    (row,) = [r for r in table.rows if r[1].link == f"submissions/{slug}/"]
    return row


def test_without_a_declaration_an_entry_under_coverage_is_partial(inputs):
    undeclared = board(build_model(inputs))
    assert [s.slug for s in undeclared.ranked] == ["synthetic-000"]
    assert {s.slug for s in undeclared.partial} == {DECLARED, UNDECLARED, REFERENCE}


def test_a_declared_entry_under_coverage_is_ranked_and_an_undeclared_one_is_not(model):
    level = board(model)
    ranked = {s.slug: s for s in level.ranked}
    assert set(ranked) == {"synthetic-000", DECLARED}
    assert ranked[DECLARED].n_attempted < home.COVERAGE * ranked[DECLARED].n_problems
    assert ranked[DECLARED].get("declared") and not ranked["synthetic-000"].get("declared")
    assert [s.slug for s in level.partial] == [UNDECLARED]
    assert [s.slug for s in level.compiler] == [REFERENCE]  # a reference's declaration ranks nothing


def test_a_declared_level_the_entry_covers_anyway_is_not_marked(model):
    level2 = {s.slug: s for s in board(model, 2).ranked}
    assert DECLARED in level2 and not level2[DECLARED].get("declared")
    row = row_of(home.leaderboard_table(model, board(model, 2)), DECLARED)
    assert "declared" not in row[-1].display


def test_the_table_marks_the_row_and_the_page_says_what_it_means_beside_it(model):
    level = board(model)
    row = row_of(home.leaderboard_table(model, level), DECLARED)
    attempted = row[-1]
    assert attempted.display == f"{int(attempted.value)}/{SPEC.problems_per_level[0]} · declared"
    assert "kb-declared" in attempted.css and "attempted_levels" in attempted.title
    assert row[0].display.isdigit()  # ranked: it has a rank, not "–"
    page = home.level_html(model, model.combos[0], 1, level)
    assert "· declared" in page and f"declared</span>: {home.DECLARED_MEANS}. 1 ranked entry has" in page
    assert page.index(home.DECLARED_MEANS) < page.index("kb-partial-note")  # under the ranked table, before the rest
    assert home.DECLARED_MEANS not in home.level_html(model, model.combos[0], 2, board(model, 2))


def test_a_declared_leader_says_so_in_the_leader_line(inputs):
    others = dataclasses.replace(inputs, results=tuple(r for r in inputs.results if r.slug != "synthetic-000"))
    only = build_model(declaring(others, {DECLARED: {"attempted_levels": [1]}}))
    level = board(only)
    assert [s.slug for s in level.ranked] == [DECLARED]
    line = home.leader_html(only, only.combos[0], 1, level)
    assert f'href="submissions/{DECLARED}/"' in line and home.DECLARED_NOTE in line


def test_the_submission_page_states_the_declaration(model):
    doc = model.inputs.submissions[DECLARED]
    on_level = {level: sum(1 for k in doc.kernels if k["level"] == level) for level in (1, 2)}
    text = submissions.declared_text(doc, model.level_sizes)
    assert text.startswith(f"level 1 ({on_level[1]} of 6 problems with a kernel), "
                           f"level 2 ({on_level[2]} of 4 problems with a kernel)")
    assert "counts as a failure" in text and "ranked on each of them" in text
    reference = submissions.declared_text(model.inputs.submissions[REFERENCE], model.level_sizes, reference=True)
    assert "never ranked" in reference
    assert submissions.declared_text(model.inputs.submissions[UNDECLARED], model.level_sizes) == ""
    scores = model.scores[(model.scores["slug"] == DECLARED) & (model.scores["rule"] == "upstream")
                          & (model.scores["baseline"] == "eager")]
    rows = {row[2].value: row for row in submissions.score_table(scores, doc.attempted_levels).rows}
    assert rows[1][-1].display.endswith("· declared") and "declared" not in rows[2][-1].display


def test_the_compare_tables_take_the_declared_entry_and_say_so(model):
    slugs, declared = compare.full_entries(model, model.combos[0], 1)
    assert set(slugs) == {"synthetic-000", DECLARED} and declared == {DECLARED}
    legend = compare.legend_html(model, slugs, "../", declared)
    assert legend.count(home.DECLARED_NOTE) == 1


def test_a_built_site_ranks_the_declared_entry_and_states_it_on_its_page(tree, tmp_path):
    submissions_dir, results_dir = tmp_path / "submissions", tmp_path / "results"
    shutil.copytree(tree.submissions_dir, submissions_dir)
    shutil.copytree(tree.results_dir, results_dir)
    for slug in (DECLARED, UNDECLARED):
        path = next((results_dir / "nvidia-h200").glob(f"{slug}.json"))
        data = json.loads(path.read_text())
        data["problems"] = [p for p in data["problems"] if p["level"] != 1 or p["problem_id"] == 1]
        path.write_text(json.dumps(data))
    document_path = submissions_dir / f"{DECLARED}.json"
    document_path.write_text(json.dumps({**json.loads(document_path.read_text()), "attempted_levels": [1]}))
    build = generate(SiteSources(results_dir, submissions_dir, tree.problems_dir, tree.problems_dir / "manifest.json"))
    files = {f.uri: f for f in build.files}
    level = json.loads(files["data/nvidia-h200--eager/leaderboard.json"].content)["levels"]["1"]
    ranked = {row[1][2]: row for row in level["table"]["rows"]}
    assert ranked[f"submissions/{DECLARED}/"][-1][1].endswith("· declared")
    assert f"submissions/{UNDECLARED}/" not in ranked
    assert [row[1][2] for row in level["partial"]["rows"]] == [f"submissions/{UNDECLARED}/"]
    assert home.DECLARED_MEANS in build.slots["index.md"]["level-1"]
    meta = build.slots[f"submissions/{DECLARED}.md"]["meta"]
    assert "<th>Attempted levels</th>" in meta and "level 1 (" in meta
    assert "Attempted levels" not in build.slots[f"submissions/{UNDECLARED}.md"]["meta"]


def test_a_run_whose_every_record_is_stale_awaits_a_rerun_declared_or_not(inputs):
    """Measured under an earlier protocol: the declared entry and the compiler run leave the ranking and the
    reference rows, and the leader line and the table under it say why; synthetic-000, current, still leads."""
    def earlier(results):
        if results.slug not in (DECLARED, REFERENCE):
            return results
        return dataclasses.replace(results, environment=dataclasses.replace(results.environment, protocol_version="1"))

    stale = dataclasses.replace(inputs, results=tuple(earlier(r) for r in inputs.results))
    model = build_model(declaring(stale, {DECLARED: {"attempted_levels": [1, 2]},
                                          REFERENCE: {"attempted_levels": [1], "method": "compiler"}}))
    level = board(model)
    assert [s.slug for s in level.ranked] == ["synthetic-000"] and not level.compiler
    assert {s.slug for s in level.awaiting} == {DECLARED, REFERENCE}
    assert all(s.n_stale and not s.n_attempted for s in level.awaiting)
    page = home.level_html(model, model.combos[0], 1, level)
    assert f"Awaiting a rerun: {home.AWAITING_NOTE}" in page
    drawn = {c.name for c in curves.top_curves(model, model.combos[0], 1, None)}
    assert model.submission_name(DECLARED) not in drawn and model.submission_name("synthetic-000") in drawn
    alone = build_model(declaring(dataclasses.replace(stale, results=tuple(
        r for r in stale.results if r.slug in (DECLARED, REFERENCE))), {DECLARED: {"attempted_levels": [1]}}))
    line = home.leader_html(alone, alone.combos[0], 1, board(alone))
    assert "No ranked entry yet: 2 run(s) await a rerun" in line and 'href="submissions/' not in line
