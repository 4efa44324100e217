"""Names are compared by how they look: a look-alike of a baseline's or another submission's name, a word
mixing scripts or an invisible character is refused by the validator and by the site; honest names in any
one script pass."""

from __future__ import annotations

import json
import shutil

import pytest

from site_src.sources import SiteDataError, load_submissions
from tests.conftest import EXAMPLE_SLUG, REPO
from validator.submission.identity import Claim, collisions, skeleton, text_problem

BASELINE = "torch.compile (inductor, default mode)"
CYRILLIC_O = "\u043e"


@pytest.mark.parametrize("fake", [
    BASELINE.replace("o", CYRILLIC_O, 1),  # the finding's case: one Cyrillic letter
    BASELINE.upper(),
    BASELINE.replace("mode", "mode\u200d"),
    BASELINE.replace("o", "0").replace("l", "1"),
    BASELINE.replace(" ", "  "),
])
def test_a_look_alike_of_the_baseline_name_is_refused_to_any_other_slug(fake):
    codes = [code for code, _ in collisions(Claim("fake.json", "fake", fake), [])]
    assert codes == ["name-impersonates-baseline"]
    assert collisions(Claim("torch-compile-inductor.json", "torch-compile-inductor", BASELINE), []) == []


def test_an_exact_duplicate_names_both_files():
    other = Claim("submissions/team-a.json", "team-a", "Fast kernels")
    [(code, message)] = collisions(Claim("submissions/team-b.json", "team-b", "Fast kernels"), [other])
    assert code == "name-collides"
    assert "submissions/team-a.json" in message and "submissions/team-b.json" in message


@pytest.mark.parametrize("honest", ["東京大学チーム", "Команда Яндекса", "清华 KEG", "서울대 커널팀", "Ünïcödé ⚡ team",
                                    "KernelBench Команда"])
def test_honest_names_in_one_script_per_word_pass(honest):
    assert text_problem(honest) is None
    assert collisions(Claim("a.json", "a", honest), [Claim("b.json", "b", "KernelBench leaderboard team")]) == []


@pytest.mark.parametrize(("text", "expected"), [
    ("Fast k\u0435rnels", "mixes scripts (cyrillic, latin)"),
    ("Fast\u200dteam", "U+200D (ZERO WIDTH JOINER)"),
    ("Fast\u200bteam", "U+200B"),
    ("team\U000e0041", "U+E0041"),
])
def test_mixed_scripts_and_invisible_characters_are_named(text, expected):
    problem = text_problem(text)
    assert problem is not None and expected in problem


def test_skeletons_keep_distinct_names_distinct():
    names = ["KernelBench leaderboard team: hand-written kernels", "KernelBench leaderboard team: worked examples",
             BASELINE, "torch.compile (inductor, max-autotune)", "東京大学チーム", "東京大学チーム 2"]
    assert len({skeleton(n) for n in names}) == len(names)


def test_the_committed_submissions_collide_with_nothing():
    docs = load_submissions(REPO / "submissions")
    claims = [Claim(str(d.path), slug, d.name) for slug, d in docs.items()]
    assert all(collisions(c, claims) == [] and text_problem(c.name) is None for c in claims)


def test_the_site_refuses_a_hand_edited_impersonation_naming_both_files(tmp_path):
    shutil.copy(REPO / "submissions" / "torch-compile-inductor.json", tmp_path)
    fake = json.loads((REPO / "submissions" / f"{EXAMPLE_SLUG}.json").read_text())
    fake["name"] = BASELINE.replace("o", CYRILLIC_O, 1)
    (tmp_path / f"{EXAMPLE_SLUG}.json").write_text(json.dumps(fake))
    with pytest.raises(SiteDataError) as caught:
        load_submissions(tmp_path)
    assert f"{EXAMPLE_SLUG}.json" in str(caught.value) and "torch-compile-inductor.json" in str(caught.value)
