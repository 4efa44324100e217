"""The site generator and `mkdocs build --strict`: pages, data files and assets from committed or synthetic data."""

from __future__ import annotations

import dataclasses
import datetime
import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from site_src.figures import step_points
from site_src.generate import PLOTLY_URI, generate
from site_src.operators import operators
from site_src.output import page_root, page_url, source_root
from site_src.scoring import fast_p_curve
from site_src.sources import SiteDataError, SiteSources, load_results_dir
from site_src.views.methodology import attribute_docs
from site_src.views.submitting import schema_fields
from tests.paths import REPO
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic
from validator.protocol import PROTOCOL, Protocol

SCHEMA = REPO / "validator" / "submission" / "schema" / "submission-v1.schema.json"
SPEC = SyntheticSpec(submissions=3, problems_per_level=(5, 4, 3))


def sources_for(tree, results_dir: Path | None = None) -> SiteSources:
    return SiteSources(
        results_dir=results_dir or tree.results_dir,
        submissions_dir=tree.submissions_dir,
        problems_dir=tree.problems_dir,
        manifest_path=tree.problems_dir / "manifest.json",
    )


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    return write_synthetic(tmp_path_factory.mktemp("data"), SPEC)


@pytest.fixture(scope="module")
def built(tree):
    build = generate(sources_for(tree))
    return build, {f.uri: f for f in build.files}


def text_of(files, uri: str) -> str:
    content = files[uri].content
    return content.decode() if isinstance(content, bytes) else content


def mkdocs_build(site_dir: Path, **env: str) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("KB_")}
    environment.update(env, NO_MKDOCS_2_WARNING="1")
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(site_dir)]
    return subprocess.run(command, cwd=REPO, env=environment, capture_output=True, text=True, check=False)


def test_every_page_type_and_one_data_file_per_view_and_combo_are_generated(built):
    _, files = built
    for uri in ("index.md", "curves.md", "heatmap.md", "methodology.md", "submitting.md", "downloads.md"):
        assert uri in files
    assert {f"submissions/synthetic-00{i}.md" for i in range(3)} <= files.keys()
    assert "problems/level1/1_Synthetic_op_1_1.md" in files
    for hardware in SPEC.hardware:
        for view in ("leaderboard", "curves", "heatmap"):
            assert f"data/{hardware}--eager/{view}.json" in files
            assert f"data/{hardware}--eager~strict/{view}.json" in files  # the rule selector's other choice
            assert f"data/{hardware}--torch-compile/{view}.json" in files
    assert files[PLOTLY_URI].source.name == "plotly-kb.min.js"  # the partial bundle, not the full one
    assert files["schema/submission-v1.schema.json"].source == SCHEMA


def test_leaderboard_data_ranks_by_fast_1_with_every_submission_once_per_level(built):
    _, files = built
    payload = json.loads(text_of(files, f"data/{SPEC.hardware[0]}--eager/leaderboard.json"))
    assert set(payload["levels"]) == {"1", "2", "3"}
    table = payload["levels"]["1"]["table"]
    labels = [c["label"] for c in table["columns"]]
    fast_1 = labels.index("fast_1")
    assert table["sort"] == fast_1
    values = [row[fast_1][0] for row in table["rows"]]
    assert values == sorted(values, reverse=True)
    entries = [row for row in table["rows"] if row[0][1] != "ref"]
    assert len(entries) == SPEC.submissions
    assert [row[0][1] for row in entries] == [str(i) for i in range(1, SPEC.submissions + 1)]
    assert {row[labels.index("Run")][1] for row in entries} <= {"verified", "self-reported"}
    assert payload["levels"]["1"]["html"].count('<polyline fill="none"') == SPEC.submissions  # one curve each


def test_claimed_numbers_appear_only_marked_as_claimed(built):
    build, files = built
    slots = "".join(build.slots["submissions/synthetic-000.md"].values())
    claims = re.findall(r"[\d.]+× on H100 vs eager[^<]*", slots)
    assert claims
    assert all(c.endswith("(claimed)") for c in claims)
    assert "claimed" not in json.dumps(json.loads(text_of(files, f"data/{SPEC.hardware[0]}--eager/leaderboard.json")))


def test_kernel_sources_are_bundled_per_submission_and_level(built):
    build, files = built
    bundle = json.loads(text_of(files, "data/kernels/synthetic-000/level1.json"))
    assert all(path.startswith("level1_") and "class ModelNew" in src for path, src in bundle.items())
    sources = build.slots["submissions/synthetic-000.md"]["sources"]
    assert 'data-kb-bundle="../../data/kernels/synthetic-000/level1.json"' in sources


def test_a_kernel_reached_through_a_symlink_is_not_published(tmp_path):
    tree = write_synthetic(tmp_path, SyntheticSpec(submissions=1, problems_per_level=(2,), hardware=()))
    kernel_dir = tree.submissions_dir / "synthetic-000"
    victim = kernel_dir / "level1_1.py"
    victim.unlink()
    victim.symlink_to(REPO / "pyproject.toml")
    build = generate(sources_for(tree))
    bundle = json.loads(text_of({f.uri: f for f in build.files}, "data/kernels/synthetic-000/level1.json"))
    assert "level1_1.py" not in bundle
    assert "missing from the repository" in build.slots["submissions/synthetic-000.md"]["sources"]


def test_names_from_submission_files_are_escaped_in_pages_and_tables(tmp_path):
    tree = write_synthetic(tmp_path, SyntheticSpec(submissions=1, problems_per_level=(2,), hardware=("nvidia-h200",)))
    path = tree.submissions_dir / "synthetic-000.json"
    document = json.loads(path.read_text())
    document["name"] = "<script>alert(1)</script>"
    path.write_text(json.dumps(document))
    build = generate(sources_for(tree))
    files = {f.uri: f for f in build.files}
    assert "<script>alert" not in text_of(files, "submissions/synthetic-000.md")
    assert "&lt;script&gt;" in text_of(files, "submissions/synthetic-000.md")
    assert "<script>alert" not in build.slots["submissions/index.md"]["index"]


def test_without_results_the_pages_say_so_and_no_data_files_are_written(tree, tmp_path):
    build = generate(sources_for(tree, results_dir=tmp_path / "none"))
    files = {f.uri: f for f in build.files}
    assert "No measured results yet" in text_of(files, "index.md")
    assert not [uri for uri in files if uri.startswith("data/") and not uri.startswith("data/kernels/")]
    assert "Submitted, not yet measured" in text_of(files, "index.md")
    assert "(claimed)" in build.slots["index.md"]["pending"]


def test_an_unreadable_results_file_is_named_in_the_error(tree, tmp_path):
    broken = tmp_path / "results" / "nvidia-h200"
    broken.mkdir(parents=True)
    (broken / "x.json").write_text("{not json")
    with pytest.raises(SiteDataError, match=r"nvidia-h200/x\.json"):
        generate(sources_for(tree, results_dir=tmp_path / "results"))


def test_manifest_entries_of_another_problem_version_are_ignored(tree, tmp_path):
    manifest = json.loads((tree.problems_dir / "manifest.json").read_text())
    entry, second = list(manifest["problems"].values())[:2]
    entry["sha256"] = "0" * 64
    moved = tmp_path / "manifest.json"
    moved.write_text(json.dumps(manifest))
    sources = SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir, moved)
    files = {f.uri: f for f in generate(sources).files}
    assert "not in `problems/manifest.json` yet" in text_of(files, f"problems/{entry['key']}.md")
    assert "not in `problems/manifest.json` yet" not in text_of(files, f"problems/{second['key']}.md")


def test_a_malformed_manifest_stops_the_build_naming_the_file_the_entry_and_the_field(tree, tmp_path):
    manifest = json.loads((tree.problems_dir / "manifest.json").read_text())
    key = next(iter(manifest["problems"]))
    manifest["problems"][key]["flops"] = "many"
    moved = tmp_path / "manifest.json"
    moved.write_text(json.dumps(manifest))
    sources = SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir, moved)
    with pytest.raises(SiteDataError) as raised:
        generate(sources)
    assert str(raised.value) == (f'{moved}: $.problems["{key}"].flops: expected a FLOP count or null, '
                                 'got "many"')


def test_the_schema_table_lists_every_field_with_nested_paths_and_required_flags():
    schema = json.loads(SCHEMA.read_text())
    fields = {f.path: f for f in schema_fields(schema)}
    assert set(schema["properties"]) <= fields.keys()
    assert fields["slug"].required and not fields["description"].required
    assert fields["kernels[].claimed.speedup"].required
    assert fields["kernels[].backend"].type.startswith("one of")
    assert any(c.startswith("pattern:") for c in fields["slug"].constraints)


def test_the_methodology_page_shows_the_protocol_constants_and_their_documentation(built):
    _, files = built
    page = text_of(files, "methodology.md")
    assert f"Evaluation protocol, version {PROTOCOL.version}" in page
    assert f"| `review_speedup` | {PROTOCOL.review_speedup:g} |" in page
    assert f"| `upstream_trials` | {PROTOCOL.upstream_trials} |" in page
    assert "| float32 | 0.0001 | 0.0001 |" in page
    assert attribute_docs(Protocol)["l2_flush_factor"] in page
    assert "strict `>`" in page


def test_step_points_end_at_zero_and_drop_exactly_at_each_speedup():
    xs, ys = step_points(fast_p_curve([0.05, 1.5, 3.0], 4), 0.1, 10.0)
    assert xs == [0.1, 1.5, 3.0, 10.0]
    assert ys == [0.5, 0.25, 0.0, 0.0]


def test_page_urls_and_relative_roots_follow_directory_urls():
    assert page_url("index.md") == ""
    assert page_url("curves.md") == "curves/"
    assert page_url("submissions/index.md") == "submissions/"
    assert page_root("index.md") == "./"
    assert page_root("submissions/x.md") == "../../"
    assert page_root("problems/level1/19_ReLU.md") == "../../../"
    assert source_root("problems/level1/19_ReLU.md") == "../../"


@pytest.mark.slow
def test_mkdocs_strict_builds_the_committed_repository(tmp_path):
    done = mkdocs_build(tmp_path / "site")
    assert done.returncode == 0, done.stderr[-3000:]
    assert (tmp_path / "site" / "index.html").is_file()
    assert (tmp_path / "site" / PLOTLY_URI).is_file()


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_mkdocs_strict_builds_with_no_results_when_asked_to_and_says_so(tmp_path):
    done = mkdocs_build(tmp_path / "site", KB_RESULTS_DIR=str(tmp_path / "no-results"), KB_ALLOW_EMPTY="1")
    assert done.returncode == 0, done.stderr[-3000:]
    assert "No measured results yet" in (tmp_path / "site" / "index.html").read_text()


def test_mkdocs_fails_on_a_mistyped_results_directory_instead_of_building_an_empty_board(tmp_path):
    done = mkdocs_build(tmp_path / "site", KB_RESULTS_DIR=str(tmp_path / "reslts"))
    assert done.returncode != 0
    assert f"{tmp_path / 'reslts'} (KB_RESULTS_DIR=" in done.stderr
    assert "no such directory" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "site" / "index.html").exists()


@pytest.mark.parametrize("variable", ["KB_RESULTS_DIR", "KB_SUBMISSIONS_DIR"])
@pytest.mark.parametrize("contents", ["missing", "empty", "wrong-level", "unrelated-files"])
def test_a_data_directory_that_is_missing_or_holds_no_data_file_is_an_error(tree, tmp_path, variable, contents):
    directory = tmp_path / "data"
    if contents != "missing":
        directory.mkdir()
    if contents == "wrong-level":  # a results file one level too high, a submission one level too low
        (directory / "sub").mkdir()
        wrong = directory / "x.json" if variable == "KB_RESULTS_DIR" else directory / "sub" / "x.json"
        wrong.write_text("{}")
    if contents == "unrelated-files":
        (directory / "notes.txt").write_text("results go here")
    sources = sources_for(tree)
    field = {"KB_RESULTS_DIR": "results_dir", "KB_SUBMISSIONS_DIR": "submissions_dir"}[variable]
    sources = dataclasses.replace(sources, **{field: directory})
    with pytest.raises(SiteDataError) as caught:
        sources.require_data({variable: str(directory)})
    assert str(directory) in str(caught.value)
    assert variable in str(caught.value)


def test_the_committed_data_and_synthetic_trees_are_accepted_as_they_are(tree):
    SiteSources.from_env({}).require_data({})
    sources_for(tree).require_data({"KB_RESULTS_DIR": str(tree.results_dir)})


def test_an_empty_board_is_built_only_on_purpose_and_a_given_manifest_must_exist(tree, tmp_path):
    sources = sources_for(tree, results_dir=tmp_path / "none")
    with pytest.raises(SiteDataError, match="KB_ALLOW_EMPTY=1"):
        sources.require_data({})
    sources.require_data({"KB_ALLOW_EMPTY": "1"})
    moved = dataclasses.replace(sources_for(tree), manifest_path=tmp_path / "manifest.json")
    with pytest.raises(SiteDataError, match="KB_MANIFEST"):
        moved.require_data({"KB_MANIFEST": str(tmp_path / "manifest.json")})


@pytest.mark.slow
def test_mkdocs_strict_builds_synthetic_results_into_pages_that_load_nothing_from_other_hosts(tree, tmp_path):
    site = tmp_path / "site"
    done = mkdocs_build(
        site,
        KB_RESULTS_DIR=str(tree.results_dir),
        KB_SUBMISSIONS_DIR=str(tree.submissions_dir),
        KB_PROBLEMS_DIR=str(tree.problems_dir),
    )
    assert done.returncode == 0, done.stderr[-3000:]
    home = (site / "index.html").read_text()
    assert 'class="kb-controls"' in home
    ranked = (site / "problems" / "level1" / "1_Synthetic_op_1_1" / "index.html").read_text()
    assert "get_init_inputs" in ranked and "kb-table" in ranked
    remote = r'="(https?:)?//'
    loads = re.compile(rf"<(script|img|iframe)[^>]+src{remote}|<link[^>]+rel=.(stylesheet|icon)[^>]+href{remote}")
    for page in site.rglob("*.html"):
        assert not loads.search(page.read_text()), page
    # Readable without JavaScript: the default combo's tables and curves are in the page itself.
    assert home.count("<table") >= len(SPEC.problems_per_level) and home.count("<svg") >= len(SPEC.problems_per_level)
    assert "kb-leaders" in home and "plotly" not in home
    # Nothing unused ships: no source maps, no search segmenters for languages the site does not use.
    assert not list(site.rglob("*.map")) and not (site / "assets" / "javascripts" / "lunr").exists()
    assert not [p for p in site.rglob("*.js") if b"sourceMappingURL" in p.read_bytes()]
    assert home_weight(site) <= HOME_BUDGET_BYTES


HOME_BUDGET_BYTES = 1_000_000


def home_weight(site: Path) -> int:
    """Bytes of the home page and every same-site file it names (scripts, styles, icons) plus the search index
    the theme fetches on load; charts need no library there."""
    home = (site / "index.html").read_text()
    named = set(re.findall(r'(?:src|href)="((?!https?:|#|\.\./|mailto:)[^"?#]+\.(?:js|css|svg|png|ico|json))"', home))
    files = [site / "index.html", site / "search" / "search_index.json", *(site / n for n in named)]
    return sum(f.stat().st_size for f in files if f.is_file())


def test_a_results_file_whose_path_disagrees_with_its_contents_is_refused(tree, tmp_path):
    moved = tmp_path / "results" / "nvidia-h200"
    moved.mkdir(parents=True)
    source = next((tree.results_dir / "nvidia-h200").glob("*.json"))
    (moved / "other-slug.json").write_text(source.read_text())
    with pytest.raises(SiteDataError, match=r"its path says 'nvidia-h200' and 'other-slug'"):
        generate(sources_for(tree, results_dir=tmp_path / "results"))


def test_a_shard_file_is_left_off_the_site_until_the_shards_are_merged(tree, tmp_path):
    results = tmp_path / "results" / "nvidia-h200"
    results.mkdir(parents=True)
    source = next((tree.results_dir / "nvidia-h200").glob("*.json"))
    (results / f"{source.stem}.shard-1-of-4.json").write_text(source.read_text())
    assert load_results_dir(tmp_path / "results") == ()
    (results / source.name).write_text(source.read_text())
    assert [r.slug for r in load_results_dir(tmp_path / "results")] == [source.stem]


def test_a_run_in_progress_is_marked_with_the_problems_it_has_not_measured_yet(tree, tmp_path):
    results = tmp_path / "results" / "nvidia-h200"
    results.mkdir(parents=True)
    source = next((tree.results_dir / "nvidia-h200").glob("*.json"))
    data = json.loads(source.read_text())
    level1 = [p for p in data["problems"] if p["level"] == 1]
    data["problems"], data["finished_at"] = level1[:2], ""  # two measured; the rest of level 1 still to come
    (results / source.name).write_text(json.dumps(data))
    files = {f.uri: f for f in generate(sources_for(tree, results_dir=tmp_path / "results")).files}
    level = json.loads(text_of(files, "data/nvidia-h200--eager/leaderboard.json"))["levels"]["1"]
    assert not [r for r in level["table"]["rows"] if r[1][2] == f"submissions/{source.stem}/"]  # 2 of 5: partial
    (row,) = [r for r in level["partial"]["rows"] if r[1][2] == f"submissions/{source.stem}/"]
    pending = SPEC.problems_per_level[0] - 2
    assert row[-1][:2] == [2, f"2/{SPEC.problems_per_level[0]} · {pending} pending"]
    assert "kb-partial" in row[-1][3] and "lower bounds" in row[-1][4]
    page = text_of(files, f"submissions/{source.stem}.md")
    assert "**in progress** since" in page and "*pending*" in page


def test_a_submission_slug_that_is_not_its_file_name_is_refused(tree, tmp_path):
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    document = json.loads((tree.submissions_dir / "synthetic-000.json").read_text())
    document["slug"] = "../escape"
    (submissions / "synthetic-000.json").write_text(json.dumps(document))
    sources = SiteSources(tree.results_dir, submissions, tree.problems_dir, tree.problems_dir / "manifest.json")
    with pytest.raises(SiteDataError, match=r"synthetic-000\.json: \$\.slug must be 'synthetic-000'"):
        generate(sources)


def test_the_nav_leaves_out_optional_pages_until_they_exist(tmp_path):
    from site_src.hooks import _prune_nav

    (tmp_path / "policy-rules.md").write_text("# Policy rules\n")
    nav = [
        {"Leaderboard": "index.md"},
        {"Methodology": [{"Policy rules": "policy-rules.md"}, {"Threat model": "threat-model.md"}]},
        {"Submit": [{"Maintainers": "maintainers.md"}]},
    ]
    assert _prune_nav(nav, tmp_path) == [
        {"Leaderboard": "index.md"},
        {"Methodology": [{"Policy rules": "policy-rules.md"}]},
    ]


def test_mkdocs_reports_unusable_data_as_one_error_line_without_a_traceback(tmp_path):
    done = mkdocs_build(tmp_path / "site", KB_PROBLEMS_DIR=str(tmp_path / "no-problems"))
    assert done.returncode != 0
    assert "site generator: problems directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_problems_judged_by_their_own_scales_or_tolerances_say_so_on_their_page_and_the_methodology(tmp_path):
    tree = write_synthetic(tmp_path, SPEC)
    problem = sorted((tree.problems_dir / "level3").glob("*.py"))[0]
    key = f"level3/{problem.stem}"
    upstream = problem.read_text(encoding="utf-8")
    entry = {"input_scales": [1.0, 0.01], "tolerances": {"float32": [1e-3, 2e-3]}, "hidden_variants": ["negated"],
             "reason": "the evidence, measured"}
    overlay = {"schema_version": 1, "problems": {key: entry}}
    (tree.problems_dir / "overlay.json").write_text(json.dumps(overlay), encoding="utf-8")
    files = {f.uri: f for f in generate(sources_for(tree)).files}
    page = html.unescape(text_of(files, f"problems/{key}.md"))  # Jinja escapes the apostrophes
    assert ("Correctness: input scales ×1, ×0.01 (the board's overlay; the protocol's are ×1, ×0.01, ×3, ×100) · "
            "float32 atol 0.001, rtol 0.002 (the board's overlay; the protocol's are 0.0001 and 0.0001)") in page
    assert "**Correctness**: input scales ×1, ×0.01" in page and "the evidence, measured" in page
    assert upstream.splitlines()[-1] in page.split("## Reference code", 1)[1]  # upstream's file, shown apart
    methodology = html.unescape(text_of(files, "methodology.md"))
    assert f"| [{key}](problems/{key}.md) | ×1, ×0.01 | float32 atol 0.001, rtol 0.002 | negated |" in methodology
    assert ("hidden input variants: negated (the board's overlay; the protocol's are negated, standard-normal)"
            in page)
    plain_key = sorted((tree.problems_dir / "level1").glob("*.py"))[0].stem
    plain = html.unescape(text_of(files, f"problems/level1/{plain_key}.md"))
    assert "Correctness: input scales ×1, ×0.01, ×3, ×100 · the protocol's tolerances" in plain
    assert methodology.count("](problems/level") == 1


def _home(files) -> dict:
    return json.loads(text_of(files, f"data/{SPEC.hardware[0]}--eager/leaderboard.json"))


def test_the_home_page_carries_its_default_tables_as_static_html_and_leaders_first(built):
    build, files = built
    slots = build.slots["index.md"]
    payload = _home(files)
    for level in ("1", "2", "3"):
        assert slots[f"level-{level}"] == payload["levels"][level]["html"]
        assert "<table" in slots[f"level-{level}"] and "<svg" in slots[f"level-{level}"]
    page = text_of(files, "index.md")
    assert page.index("kb-slot:leaders") < page.index("kb-slot:level-1") < page.index("How to read it")
    leaders = slots["leaders"]
    assert leaders.count('class="kb-leader"') == 3
    table = payload["levels"]["1"]["table"]
    leader = next(row for row in table["rows"] if row[0][1] == "1")
    assert leader[1][1] in leaders and "over #2" in leaders and "vs the best reference, torch.compile" in leaders
    assert f"attempted {leader[-1][0]}/{SPEC.problems_per_level[0]}" in leaders


def test_reference_rows_are_in_the_table_styled_apart_and_never_ranked(built):
    _, files = built
    level = _home(files)["levels"]["1"]
    labels = [c["label"] for c in level["table"]["columns"]]
    refs = {row[1][1]: row for row in level["table"]["rows"] if row[0][1] == "ref"}
    assert set(refs) == {"PyTorch eager (reference)", "torch.compile (reference, baseline timings)"}
    eager = refs["PyTorch eager (reference)"]
    measured = eager[labels.index("Attempted")][0]  # problems some run timed eager on
    assert 0 < measured <= SPEC.problems_per_level[0]
    assert eager[labels.index("fast_1")][0] == 0.0  # 1× is not > 1
    assert eager[labels.index("fast_0.5")][0] == measured / SPEC.problems_per_level[0]
    assert level["html"].count('class="kb-ref-row"') == 2
    compiled = refs["torch.compile (reference, baseline timings)"]
    assert compiled[labels.index("fast_1")][0] > 0.5  # synthetic compile times are 0.5–1.0× eager's


def test_a_compiler_submission_is_a_reference_row_and_an_entry_below_coverage_is_listed_apart(tree, tmp_path):
    copy = dataclasses.replace(tree, submissions_dir=tmp_path / "submissions", results_dir=tmp_path / "results")
    shutil.copytree(tree.submissions_dir, copy.submissions_dir)
    shutil.copytree(tree.results_dir, copy.results_dir)
    compiler = copy.submissions_dir / "synthetic-000.json"
    document = json.loads(compiler.read_text())
    document["method"] = "compiler"
    compiler.write_text(json.dumps(document))
    thin = next((copy.results_dir / "nvidia-h200").glob("synthetic-001*.json"))
    data = json.loads(thin.read_text())
    data["problems"] = [p for p in data["problems"] if p["level"] != 1 or p["problem_id"] == 1]
    thin.write_text(json.dumps(data))
    files = {f.uri: f for f in generate(sources_for(copy)).files}
    level = json.loads(text_of(files, "data/nvidia-h200--eager/leaderboard.json"))["levels"]["1"]
    ranks = {row[1][2]: row[0][1] for row in level["table"]["rows"] if row[1][2]}
    assert ranks["submissions/synthetic-000/"] == "ref"
    assert "submissions/synthetic-001/" not in ranks
    assert [row[1][2] for row in level["partial"]["rows"]] == ["submissions/synthetic-001/"]
    assert [r for r in ranks.values() if r != "ref"] == ["1"]
    names = [row[1][1] for row in level["table"]["rows"]]
    assert "torch.compile (reference, baseline timings)" not in names  # the measured compiler run stands for it


def test_operators_are_read_from_the_reference_source_without_scaffolding():
    source = (
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "class Model(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.conv = nn.Conv2d(3, 8, 3)\n"
        "    def forward(self, x):\n        return torch.nn.functional.gelu(torch.softmax(self.conv(x), 1))\n"
        "def get_inputs():\n    return [torch.randn(2, 3, 8, 8)]\n"
    )
    assert operators(source) == ["nn.Conv2d", "F.gelu", "torch.softmax"]
    assert operators("def broken(:\n") == []


def test_the_compare_view_has_one_data_file_per_run_and_every_submission_page_links_to_it(built):
    _, files = built
    index = json.loads(text_of(files, "data/compare/index.json"))
    assert set(index["hardware"]) == set(SPEC.hardware)
    assert len(index["problems"]) == sum(SPEC.problems_per_level)
    slug = index["hardware"][SPEC.hardware[0]]["slugs"][0]
    run = json.loads(text_of(files, f"data/compare/{SPEC.hardware[0]}/{slug}.json"))
    assert set(run["problems"]) == set(index["problems"])
    statuses = {entry[0] for entry in run["problems"].values()}
    assert statuses and all(isinstance(s, str) for s in statuses)
    correct = [e for e in run["problems"].values() if e[0] == "correct"]
    assert correct and all(e[1] > 0 and e[2] <= e[1] <= e[3] for e in correct)
    assert "compare.md" in files
    page = text_of(files, f"submissions/{slug}.md")
    assert f"compare/?s={slug}&amp;hw=" in page


def test_fast_1_interval_holds_fast_1_and_its_ambiguous_count_is_the_straddling_kernels_on_either_baseline(tree):
    from site_src.model import build_model
    from site_src.sources import load_inputs

    model = build_model(load_inputs(sources_for(tree)))
    scores = model.scores
    assert ((scores["fast_1_lo"] <= scores["fast_1"]) & (scores["fast_1"] <= scores["fast_1_hi"])).all()
    a = model.aligned
    correct = a[(a["status"] == "correct")]
    for baseline, column in (("eager", "speedup"), ("torch-compile", "speedup_vs_compile")):
        first = scores[(scores["baseline"] == baseline)].iloc[0]
        rows = correct[(correct["slug"] == first["slug"]) & (correct["hardware"] == first["hardware"])
                       & (correct["level"] == first["level"])]
        ratio = rows[column] / rows["speedup"]
        low, high = rows["ci_low"] * ratio, rows["ci_high"] * ratio
        assert first["ambiguous_1"] == ((low <= 1) & (high > 1)).sum()


def test_best_over_time_steps_up_only_at_entries_that_beat_every_earlier_one(built):
    _, files = built
    level = _home(files)["levels"]["1"]
    labels = [c["label"] for c in level["table"]["columns"]]
    fast_1 = labels.index("fast_1")
    ranked = [row for row in level["table"]["rows"] if row[0][1] != "ref"]
    dates = {f"synthetic-00{i}": (datetime.date(2026, 1, 1) + datetime.timedelta(days=3 * i)) for i in range(3)}
    by_date = sorted((dates[row[1][2].split("/")[1]], row[fast_1][0]) for row in ranked)
    best, expected = -1.0, []
    for day, value in by_date:
        if value > best:
            best = value
            expected.append(f"{day}: ")
    circles = re.findall(r"<circle[^>]*><title>([^<]*)</title>", level["html"])
    assert [c[: len("2026-01-01: ")] for c in circles] == expected


def test_curve_hovers_name_the_problem_each_step_drops_at(built):
    _, files = built
    figure = json.loads(text_of(files, f"data/{SPEC.hardware[0]}--eager/curves.json"))["levels"]["1"]["figure"]
    names = {f"{i}_Synthetic_op_1_{i}" for i in range(1, SPEC.problems_per_level[0] + 1)}
    for trace in figure["data"]:
        assert len(trace["customdata"]) == len(trace["x"]) and trace["customdata"][0] == trace["customdata"][-1] == ""
        inner = trace["customdata"][1:-1]
        assert inner and all(set(c.split(", ")) <= names for c in inner)
    assert "%{customdata}" in figure["data"][0]["hovertemplate"]


def test_the_rule_selector_offers_both_rules_and_pages_show_both_verdicts_with_a_dash_where_unknown(built):
    from types import SimpleNamespace

    from site_src.views.submissions import upstream_cell

    build, files = built
    home = text_of(files, "index.md")
    assert 'class="kb-rule"' in home and 'value="strict"' in home and 'value="upstream"' in home
    assert "~" not in home.split('data-kb-default="', 1)[1][:80].split('"')[0]  # the headline is upstream's rule
    results = "".join(build.slots["submissions/synthetic-000.md"].values())
    assert "KernelBench" in results and "Strict rule" in results
    unknown = upstream_cell(SimpleNamespace(upstream_status="unknown", upstream_error=""))
    assert unknown.display == "–"
    assert upstream_cell(SimpleNamespace(upstream_status="incorrect", upstream_error="x")).display == "incorrect"
    fooled = upstream_cell(SimpleNamespace(upstream_status="incorrect", upstream_error="x", upstream_fooled="why"))
    assert fooled.display == "incorrect (upstream's rule: correct)" and fooled.title == "why"


def test_the_manifest_reaches_every_track_s_problem_pages_for_the_file_each_key_names():
    """The committed manifest's entry for 91bfc2c's ReLU is read (its page shows FLOPs, bytes and the bound); an
    entry whose file has changed since is not."""
    from site_src.sources import load_manifest
    from validator.catalogue.problems import load_catalogue

    catalogue = load_catalogue()
    entries = load_manifest(catalogue.root / "manifest.json", catalogue)
    assert entries["level1/19_ReLU@91bfc2c"].min_bytes == 2 * 16 * 16384 * 4
    assert len(entries) == len(catalogue.problems) + len(catalogue.other_versions)
    (changed,) = [p for p in catalogue.other_versions if p.key == "level1/19_ReLU@91bfc2c"]
    edited = dataclasses.replace(catalogue, other_versions=tuple(
        dataclasses.replace(p, sha256="0" * 64) if p is changed else p for p in catalogue.other_versions))
    assert "level1/19_ReLU@91bfc2c" not in load_manifest(catalogue.root / "manifest.json", edited)
