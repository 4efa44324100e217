"""The compare view's static tables: every full entry of a level side by side, built for readers without
JavaScript (the interactive view enhances them)."""

from __future__ import annotations

import json
import re

import pytest

from site_src.generate import generate
from site_src.sources import SiteSources
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic

SPEC = SyntheticSpec(submissions=4, problems_per_level=(5, 4, 3))


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tree = write_synthetic(tmp_path_factory.mktemp("compare"), SPEC)
    sources = SiteSources(tree.results_dir, tree.submissions_dir, tree.problems_dir,
                          tree.problems_dir / "manifest.json")
    build = generate(sources)
    return build, {f.uri: f.content for f in build.files if isinstance(f.content, str)}


def ranked_links(files, combo: str, level: int) -> list[str]:
    rows = json.loads(files[f"data/{combo}/leaderboard.json"])["levels"][str(level)]["table"]["rows"]
    return [row[1][2] for row in rows if row[0][1].isdigit()]


@pytest.mark.parametrize("hardware", SPEC.hardware)
@pytest.mark.parametrize("level", [1, 2, 3])
def test_a_static_page_per_hardware_and_level_has_every_ranked_entry_in_rank_order(built, hardware, level):
    build, files = built
    uri = f"compare/{hardware}--eager/level{level}.md"
    assert f"]({uri})" in files["compare.md"]
    table = build.slots[uri]["table"]
    legend = re.findall(r'<li value="(\d+)">#\d+ = <a href="\.\./\.\./\.\./(submissions/[^"]+)">', table)
    assert [link for _, link in legend] == ranked_links(files, f"{hardware}--eager", level)
    assert [int(rank) for rank, _ in legend] == list(range(1, len(legend) + 1))
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    assert headers == ["Problem", *(f"#{rank}" for rank, _ in legend)]
    rows = re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1])
    assert len(rows) == SPEC.problems_per_level[level - 1]
    assert all(row.count("<td") == len(headers) for row in rows)
    assert re.search(r"<td[^>]*>\d[\d.]*×</td>", table)  # a counted kernel shows its speedup


def test_no_static_page_for_the_compile_baseline(built):
    _, files = built
    assert not [uri for uri in files if uri.startswith("compare/") and "--torch-compile" in uri]
