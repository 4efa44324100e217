"""A level that ranks nobody on one track names who leads it on the other tracks of the same hardware, baseline and
rule (the 2024 board's models are ranked on KernelBench 91bfc2c only), and nothing from another hardware or rule."""

from __future__ import annotations

from types import SimpleNamespace

from site_src.model import Combo
from site_src.views import home

HEADLINE = home.HEADLINE


def test_a_level_without_a_ranked_entry_names_the_leaders_of_its_other_tracks(monkeypatch):
    here = Combo("h200", "eager", "423217d", "upstream")
    other_track = Combo("h200", "eager", "91bfc2c", "upstream")
    other_rule = Combo("h200", "eager", "91bfc2c", "strict")
    other_gpu = Combo("h100", "eager", "91bfc2c", "upstream")

    class Score(dict):  # a score row as level_board gives it: the headline's fast_1 by key, the slug as attribute
        slug = "kb2024-x"

    leader = Score({HEADLINE: 0.25})
    boards = {other_track: [leader], other_rule: [leader], other_gpu: [leader], here: []}
    monkeypatch.setattr(home, "level_board", lambda model, combo, level: SimpleNamespace(ranked=boards[combo]))
    model = SimpleNamespace(combos=(here, other_track, other_rule, other_gpu),
                            submission_name=lambda slug: "Model <X>")
    text = home.elsewhere_html(model, here, 1)
    assert text.count("leads with") == 1 and "on KernelBench 91bfc2c" in text and "25.0% fast_1" in text
    assert "Model &lt;X&gt;" in text and 'href="submissions/kb2024-x/"' in text  # a name from a submission, escaped
    boards[other_track] = []
    assert home.elsewhere_html(model, here, 1) == ""
