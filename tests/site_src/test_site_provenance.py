"""What the site says about where a result comes from: its KernelBench track (scored apart), a run without the
runner's sandbox, and the ambiguous counts where scoring provides them."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

import site_src.model
from site_src.generate import generate
from site_src.sources import SiteSources
from tests.site_kit.synthetic import SyntheticSpec, add_track, move_run_to_track, write_synthetic
from validator.protocol import PROTOCOL_VERSION

SPEC = SyntheticSpec(submissions=3, problems_per_level=(5, 4, 3))
H200 = "nvidia-h200"
OLD = "0ldc0de"


def sources(root: Path) -> SiteSources:
    problems = root / "problems"
    return SiteSources(root / "results", root / "submissions", problems, problems / "manifest.json")


def rewrite(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("provenance")
    tree = write_synthetic(root / "data", SPEC)
    for part in ("problems", "submissions", "results"):
        shutil.copytree(getattr(tree, f"{part}_dir"), root / part)
    move_run_to_track(root / "results" / H200 / "synthetic-001.json", add_track(root / "problems", OLD), OLD)

    def unconfined(data: dict) -> None:
        data["environment"]["extra"].update(sandbox="none", sandbox_detail="bwrap is not installed",
                                            cpu_model="AMD EPYC 9454 48-Core Processor")

    def earlier(data: dict) -> None:  # measured under protocol 1 (the others at the protocol in force)
        data["environment"]["protocol_version"] = data["protocol"]["version"] = "1"

    rewrite(root / "results" / H200 / "synthetic-000.json", unconfined)
    rewrite(root / "results" / H200 / "synthetic-002.json", earlier)
    rewrite(root / "results" / "nvidia-h100-80gb-hbm3" / "synthetic-000.json", earlier)
    return root


@pytest.fixture(scope="module")
def files(root) -> dict[str, str]:
    return {f.uri: f.content for f in generate(sources(root)).files if isinstance(f.content, str)}


def leaderboard(files: dict[str, str], combo: str, level: int = 1) -> list[list]:
    return json.loads(files[f"data/{combo}/leaderboard.json"])["levels"][str(level)]["table"]["rows"]


def linked(rows: list[list]) -> set[str]:
    return {row[1][2] for row in rows if len(row[1]) > 2 and row[1][2]}


def test_a_run_on_another_track_is_ranked_only_on_that_track(files):
    old = leaderboard(files, f"{H200}--eager--{OLD}")
    assert linked(old) == {"submissions/synthetic-001/"}
    assert "submissions/synthetic-001/" not in linked(leaderboard(files, f"{H200}--eager"))
    attempted = [row[-1][1] for row in old if row[1][2] == "submissions/synthetic-001/"]
    assert attempted and attempted[0].endswith(f"/{SPEC.problems_per_level[0]}")
    assert "submissions/synthetic-001/" in linked(leaderboard(files, "nvidia-h100-80gb-hbm3--eager"))
    for view in ("curves", "heatmap"):
        assert f"data/{H200}--eager--{OLD}/{view}.json" in files


def test_the_pages_offer_a_track_selector_and_each_run_names_its_track(files):
    for page in ("index.md", "curves.md", "heatmap.md"):
        assert 'class="kb-track"' in files[page] and f'<option value="{OLD}">{OLD}</option>' in files[page]
    assert f"KernelBench track {OLD} ·" in files["submissions/synthetic-001.md"]
    assert "KernelBench track 423217d (headline)" in files["submissions/synthetic-002.md"]


def test_a_run_without_the_sandbox_is_a_warning_on_its_page_and_a_marker_in_every_table(root, files):
    page = files["submissions/synthetic-000.md"]
    assert "!!! warning \"Measured without the runner's sandbox\"" in page and "bwrap is not installed" in page
    assert "sandbox none" in page and "sandbox not recorded" in page  # the other hardware's run predates it
    runs = {row[1][2]: row[2] for row in leaderboard(files, f"{H200}--eager") if len(row[1]) > 2}
    assert runs["submissions/synthetic-000/"][1].endswith(", no sandbox")
    assert "kb-nosandbox" in runs["submissions/synthetic-000/"][3]
    assert not any("no sandbox" in cell[1] for slug, cell in runs.items() if slug != "submissions/synthetic-000/")
    index = generate(sources(root)).slots["submissions/index.md"]["index"]
    assert len(re.findall(r"NVIDIA H200 \((verified|self-reported), no sandbox\)", index)) == 1
    other = leaderboard(files, "nvidia-h100-80gb-hbm3--eager")
    assert not any("no sandbox" in row[2][1] for row in other)


def test_a_run_measured_under_an_earlier_protocol_says_which_protocol_the_methodology_describes(files):
    behind = f"protocol 1 (the [methodology](../methodology.md) describes protocol {PROTOCOL_VERSION}: so this " \
             "run's results are stale, shown and never ranked until it is measured again)"
    assert behind in files["submissions/synthetic-002.md"]
    current = files["submissions/synthetic-000.md"]  # its H200 run at the protocol in force, its other at 1
    assert f"protocol {PROTOCOL_VERSION} · harness" in current and current.count("describes protocol") == 1
    assert current.count("host CPU AMD EPYC 9454 48\\-Core Processor") == 1  # its H200 run's; the other has none


def test_a_run_measured_under_an_earlier_protocol_is_never_ranked_and_its_rows_say_why(root, files):
    """The H200 run of synthetic-002 is at protocol 1: it leaves the leaderboard, its problems are stale with the
    protocol named, and the current runs on the same view still rank."""
    ranked = linked(leaderboard(files, f"{H200}--eager"))
    assert "submissions/synthetic-002/" not in ranked and "submissions/synthetic-000/" in ranked
    rows = generate(sources(root)).slots["submissions/synthetic-002.md"][f"results-{H200}"]
    reason = f"measured under protocol 1; the methodology describes protocol {PROTOCOL_VERSION}"
    assert reason in rows and "kb-stale" in rows
    current = generate(sources(root)).slots["submissions/synthetic-000.md"][f"results-{H200}"]
    assert "describes protocol" not in current


def test_a_leader_s_ambiguous_count_is_shown_in_its_line_only_when_there_is_one(root, monkeypatch):
    scores = site_src.model.level_scores

    def leaders(count: int) -> str:
        monkeypatch.setattr(site_src.model, "level_scores", lambda aligned: scores(aligned).assign(ambiguous_1=count))
        built = {f.uri: f.content for f in generate(sources(root)).files if isinstance(f.content, str)}
        return json.loads(built[f"data/{H200}--eager/leaderboard.json"])["leaders"]

    assert "2 ambiguous" in leaders(2)
    assert "ambiguous" not in leaders(0)


def test_another_tracks_problems_have_pages_that_its_results_link_to(root, files):
    key = f"level1/1_Synthetic_op_1_1@{OLD}"
    page = files[f"problems/{key}.md"]
    assert page.startswith("---") and f"# 1_Synthetic_op_1_1 · KernelBench {OLD}" in page
    assert "# the older version" in page  # that version's own file
    assert len([uri for uri in files if uri.startswith("problems/level") and uri.endswith(f"@{OLD}.md")]) == sum(
        SPEC.problems_per_level)
    build = generate(sources(root))
    assert f'href="../../problems/{key}/"' in build.slots["submissions/synthetic-001.md"][f"results-{H200}"]


def test_the_pages_open_on_the_hardware_most_results_were_measured_on():
    """A first run on another GPU (a key that sorts first) does not move the board's default view off the GPU most
    submissions were measured on; ties go by key. Files at an earlier protocol (stale) count only after those at
    the current one: three of them do not outweigh two current ones."""
    from types import SimpleNamespace

    from site_src.model import SiteModel

    def run(hardware: str, version: str = PROTOCOL_VERSION) -> SimpleNamespace:
        return SimpleNamespace(hardware=hardware, environment=SimpleNamespace(gpu=hardware.upper(),
                                                                              protocol_version=version))

    def order(results: list[SimpleNamespace]) -> list[str]:
        return list(SiteModel.hardware_names.func(SimpleNamespace(inputs=SimpleNamespace(results=results))))

    results = [run("nvidia-h200"), run("nvidia-h100"), run("nvidia-h200"), run("nvidia-b200"), run("nvidia-a100")]
    assert order(results) == ["nvidia-h200", "nvidia-a100", "nvidia-b200", "nvidia-h100"]
    assert SiteModel.hardware_names.func(SimpleNamespace(inputs=SimpleNamespace(results=results)))[
        "nvidia-h200"] == "NVIDIA-H200"
    stale = [run("nvidia-h200", "1"), run("nvidia-h200", "1"), run("nvidia-h200", "1"), run("nvidia-h100"),
             run("nvidia-h100"), run("nvidia-a100", "1")]
    assert order(stale) == ["nvidia-h100", "nvidia-h200", "nvidia-a100"]
