"""The paragraph that opens a run's results on its submission page: the board's verdicts counted beside KernelBench's
rule's, and the kernels the two disagree on, from statuses and flag codes only."""

from __future__ import annotations

import dataclasses
import html
import json
import re
import shutil
from pathlib import Path

import pytest

from site_src.generate import generate
from site_src.render import render
from site_src.scoring import aligned_from_results
from site_src.sources import SiteSources
from site_src.verdicts import Disagreement, DisagreementGroup, KernelVerdicts, compare_verdicts
from site_src.views.submissions import run_verdicts
from tests.site_kit.synthetic import SyntheticSpec, write_synthetic
from validator.catalogue.problems import Catalogue, Problem
from validator.protocol import PROTOCOL_VERSION
from validator.results.records import (
    Environment,
    Flag,
    ProblemResult,
    ResultsFile,
    Status,
    UpstreamVerdict,
    upstream_without_judging,
)

SANDBOX = Flag("sandbox", "ran in bubblewrap", "info")
HOSTILE = "<img src=x onerror=alert(1)> [link](https://evil.example)"


def catalogue(size: int) -> Catalogue:
    problems = tuple(Problem(1, i, f"{i}_P", Path(f"level1/{i}_P.py"), f"sha-1-{i}") for i in range(1, size + 1))
    return Catalogue(Path("problems"), problems, ())


def run_of(*records: ProblemResult) -> ResultsFile:
    environment = Environment("GPU", "1", "13.0", "2.14", "3.8", "3.11", "0.1", PROTOCOL_VERSION)
    return ResultsFile("s", "S", "s", "h100", environment, {}, records, "t0", "t1")


def record(i: int, status: Status, upstream: UpstreamVerdict | None, *flags: Flag, error: str = "") -> ProblemResult:
    return ProblemResult(f"level1/{i}_P", 1, i, f"sha-1-{i}", f"k{i}.py", "k", "triton", status, error=error,
                         flags=(SANDBOX, *flags), upstream=upstream)


def accepted(held: bool = False) -> UpstreamVerdict:
    return UpstreamVerdict(True, 5, held=held)


def refused(error: str = "not allclose", fooled: str = "") -> UpstreamVerdict:
    return UpstreamVerdict(False, 5, error=error, fooled=fooled)


def warning(code: str) -> Flag:
    return Flag(code, HOSTILE)


def error(code: str) -> Flag:
    return Flag(code, HOSTILE, "error")


def compare(*records: ProblemResult):
    return compare_verdicts([KernelVerdicts.of(r) for r in records])


def test_where_both_accept_or_both_refuse_every_kernel_they_agree():
    comparison = compare(
        record(1, Status.CORRECT, accepted()),
        record(2, Status.CORRECT, accepted(), warning("no-custom-kernel")),  # a warning on a correct one holds nothing
        record(3, Status.INCORRECT, refused(), error("output-mismatch")),
    )
    assert comparison.agree and comparison.disagreements == ()
    assert (comparison.kernels, comparison.upstream_accepts, comparison.compared) == (3, 2, 3)
    assert (comparison.correct, comparison.held, comparison.hold_reasons) == (2, 0, ())
    assert (comparison.incorrect, comparison.incorrect_reasons) == (1, (("output-mismatch", 1),))
    text = paragraph(comparison)
    assert "Of 3 kernels, KernelBench's rule (allclose at 1e-2 on the same calls) accepts 2." in text
    assert "This board: 2 correct, 1 incorrect (output-mismatch 1)." in text
    assert "KernelBench's rule and this board agree on every kernel." in text


def test_each_kind_of_disagreement_is_its_own_group_with_the_board_s_codes():
    comparison = compare(
        record(1, Status.CORRECT, accepted()),
        record(2, Status.NEEDS_REVIEW, accepted(held=True), warning("gpu-contention")),
        record(3, Status.REJECTED, accepted(), error("precision-lowered")),
        record(4, Status.INCORRECT, accepted(), error("output-mismatch")),
        record(5, Status.CORRECT, refused()),
        record(6, Status.RUNTIME_ERROR, accepted(), error("illegal-address")),
    )
    assert not comparison.agree
    assert comparison.disagreements == (
        DisagreementGroup("incorrect", (Disagreement("level1/4_P", ("output-mismatch",)),)),
        DisagreementGroup("rejected", (Disagreement("level1/3_P", ("precision-lowered",)),)),
        DisagreementGroup("needs_review", (Disagreement("level1/2_P", ("gpu-contention",)),)),
        DisagreementGroup("runtime_error", (Disagreement("level1/6_P", ("illegal-address",)),)),
        DisagreementGroup("correct", (Disagreement("level1/5_P"),)),
    )
    assert comparison.other_failures == (("runtime_error", 1),)
    text = paragraph(comparison)
    assert "agree on every kernel" not in text
    lines = text.split("<br>")[1:]
    assert [line.partition(":")[0].strip() for line in lines] == [
        "Accepted by KernelBench's rule, incorrect here",
        "Accepted by KernelBench's rule, rejected here",
        "Accepted by KernelBench's rule, held for review here",
        "Accepted by KernelBench's rule, runtime_error here",
        "Correct here, not accepted by KernelBench's rule",
    ]
    assert '<a href="../../problems/level1/3_P/">3_P</a> (precision-lowered).' in lines[1]
    assert '<a href="../../problems/level1/5_P/">5_P</a>.' in lines[4]


def test_every_code_of_a_result_counts_once_most_frequent_first_and_info_flags_never():
    comparison = compare(
        record(1, Status.NEEDS_REVIEW, accepted(True), warning("timing-unresolved"), warning("gpu-contention")),
        record(2, Status.NEEDS_REVIEW, accepted(True), warning("gpu-contention"), warning("gpu-contention")),
        record(3, Status.NEEDS_REVIEW, accepted(True), warning("speed-of-light"), Flag("gpu-turn", "x", "info")),
        record(4, Status.REJECTED, accepted(), error("precision-lowered"), error("no-own-kernel")),
        record(5, Status.REJECTED, refused(), error("no-own-kernel")),
    )
    assert comparison.hold_reasons == (("gpu-contention", 2), ("speed-of-light", 1), ("timing-unresolved", 1))
    assert comparison.rejection_reasons == (("no-own-kernel", 2), ("precision-lowered", 1))
    held = comparison.disagreements[1]
    assert held.status == "needs_review"
    assert held.kernels[0] == Disagreement("level1/1_P", ("timing-unresolved", "gpu-contention"))
    text = paragraph(comparison)
    assert ("This board: 0 correct, 3 held for review (gpu-contention 2, speed-of-light 1, timing-unresolved 1), "
            "2 rejected (no-own-kernel 2, precision-lowered 1).") in text
    assert "sandbox" not in text and "gpu-turn" not in text


def test_a_failure_upstream_also_rejects_is_counted_and_no_disagreement():
    crashed = record(1, Status.COMPILE_ERROR, upstream_without_judging(Status.COMPILE_ERROR, HOSTILE), error=HOSTILE)
    timed_out = record(2, Status.TIMEOUT, upstream_without_judging(Status.TIMEOUT, "hung"))
    comparison = compare(crashed, timed_out, record(3, Status.COMPILE_ERROR, refused()),
                         record(4, Status.INCORRECT, refused(), error("output-mismatch")))
    assert comparison.agree and comparison.upstream_accepts == 0
    assert comparison.other_failures == (("compile_error", 2), ("timeout", 1))
    text = paragraph(comparison)
    assert "This board: 0 correct, 1 incorrect (output-mismatch 1), other failures: compile_error 2, timeout 1." in text
    assert "agree on every kernel." in text


def test_a_kernel_upstream_s_rule_passes_on_its_own_draws_alone_is_accepted_by_it_and_said_so():
    fooled = record(1, Status.INCORRECT, refused(fooled="passed its draws; the board rejects it"),
                    error("output-mismatch"))
    comparison = compare(fooled, record(2, Status.CORRECT, accepted()))
    assert (comparison.upstream_accepts, comparison.own_draws_only) == (2, 1)
    assert comparison.disagreements == (DisagreementGroup("incorrect", (Disagreement("level1/1_P",
                                                                                     ("output-mismatch",)),)),)
    assert "accepts 2 (1 of them on its own draws alone, which the hidden inputs fail)." in paragraph(comparison)


def test_kernels_without_both_verdicts_are_counted_but_never_compared():
    old = record(1, Status.CORRECT, None)  # written before upstream's verdict was recorded
    unrun = record(2, Status.NOT_RUN, upstream_without_judging(Status.NOT_RUN, ""))
    kernels = [KernelVerdicts.of(old), KernelVerdicts.of(unrun), KernelVerdicts("level1/3_P", "stale"),
               KernelVerdicts.of(record(4, Status.CORRECT, accepted()))]
    comparison = compare_verdicts(kernels)
    assert (comparison.kernels, comparison.compared, comparison.upstream_unknown) == (4, 1, 1)
    assert comparison.other_failures == (("not_run", 1), ("stale", 1))
    text = paragraph(comparison)
    assert "accepts 1; its verdict is not recorded for 1." in text
    assert "agree on every kernel they both judged." in text


def test_the_paragraph_shows_codes_escaped_and_never_a_message():
    comparison = compare(record(1, Status.REJECTED, accepted(), error(HOSTILE), error="SECRET-ERROR"),
                         record(2, Status.NEEDS_REVIEW, accepted(True), Flag("<b>held</b>", "SECRET-FLAG")))
    text = paragraph(comparison)
    assert "<img" not in text and "<b>" not in text
    assert html.escape(HOSTILE) + " 1" in text and "&lt;b&gt;held&lt;/b&gt; 1" in text
    assert "SECRET" not in text and "onerror=alert(1)> " not in text


def test_the_view_takes_the_table_s_rows_a_stale_record_by_its_status_alone():
    measured_elsewhere = dataclasses.replace(record(3, Status.REJECTED, accepted(), error("precision-lowered")),
                                             problem_sha256="another version of the problem")
    run = run_of(record(1, Status.CORRECT, accepted()),
                  record(2, Status.REJECTED, accepted(), error("precision-lowered")), measured_elsewhere)
    rows = aligned_from_results([run], catalogue(4))
    rows = rows[rows["status"] != "missing"]
    kernels = run_verdicts(rows, run)
    assert [(k.key, k.status) for k in kernels] == [("level1/1_P", "correct"), ("level1/2_P", "rejected"),
                                                    ("level1/3_P", "stale")]
    assert kernels[2] == KernelVerdicts("level1/3_P", "stale")
    assert kernels[1].failure_codes == ("precision-lowered",)


def paragraph(comparison) -> str:
    """The paragraph as rendered, on one line."""
    names = {f"level1/{i}_P": f"{i}_P" for i in range(1, 10)}
    return " ".join(render("verdicts.html.j2", comparison=comparison, names=names, root="../../").split())


HELD = {"correct": True, "held": True}
SCENARIOS = (  # (status, upstream, flags) of a run's first kernels; the others are correct under both
    ("needs_review", HELD, [("gpu-contention", "warning"), ("timing-unresolved", "warning")]),
    ("needs_review", HELD, [("gpu-contention", "warning")]),
    ("rejected", {"correct": True}, [("precision-lowered", "error")]),
    ("incorrect", {"correct": False, "error": "not allclose"}, [("output-mismatch", "error")]),
)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """A synthetic board whose synthetic-000 run on the H200 has every kernel correct but four: two held (one with
    two codes), one rejected for lowered precision that KernelBench's rule accepts, one incorrect under both."""
    root = tmp_path_factory.mktemp("verdicts")
    tree = write_synthetic(root / "tree", SyntheticSpec(submissions=2, problems_per_level=(6, 4),
                                                        hardware=("nvidia-h200",), coverage=1.0))
    results_dir = root / "results"
    shutil.copytree(tree.results_dir, results_dir)
    shas = {key: entry["sha256"] for key, entry in
            json.loads((tree.problems_dir / "manifest.json").read_text())["problems"].items()}
    for slug, scenarios in (("synthetic-000", SCENARIOS), ("synthetic-001", ())):
        path = results_dir / "nvidia-h200" / f"{slug}.json"
        data = json.loads(path.read_text())
        for i, problem in enumerate(data["problems"]):
            status, upstream, flags = scenarios[i] if i < len(scenarios) else ("correct", {"correct": True}, [])
            problem["status"] = status
            problem["upstream"] = {"trials": 5, "error": "", "held": False, "fooled": "", **upstream}
            problem["flags"] = [{"code": "sandbox", "message": HOSTILE, "severity": "info"},
                                *({"code": c, "message": HOSTILE, "severity": s} for c, s in flags)]
            problem["error"] = HOSTILE if status != "correct" else ""
            problem["problem_sha256"] = shas[problem["key"]]  # the committed file's: no row goes stale
        path.write_text(json.dumps(data))
        if slug == "synthetic-000":
            edited = data["problems"]
    build = generate(SiteSources(results_dir, tree.submissions_dir, tree.problems_dir,
                                 tree.problems_dir / "manifest.json"))
    return build, edited


def test_a_built_submission_page_opens_its_results_with_the_paragraph(site):
    build, problems = site
    slots = build.slots["submissions/synthetic-000.md"]
    text = " ".join(slots["verdicts-nvidia-h200"].split())
    n = len(problems)
    assert text.startswith(f'<p class="kb-verdicts">Of {n} kernels, KernelBench\'s rule (allclose at 1e-2 on the '
                           f"same calls) accepts {n - 1}. This board: {n - 4} correct, 2 held for review "
                           "(gpu-contention 2, timing-unresolved 1), 1 rejected (precision-lowered 1), 1 incorrect "
                           "(output-mismatch 1).")
    rejected = problems[2]["key"]
    assert (f"Accepted by KernelBench's rule, rejected here: <a href=\"../../problems/{rejected}/\">"
            f"{rejected.partition('/')[2]}</a> (precision-lowered).") in text
    held = re.search(r"held for review here: (.*?)\.\s", text + " ").group(1)
    assert held.count("<a href") == 2 and "(gpu-contention, timing-unresolved)" in held
    assert "incorrect here" not in text  # KernelBench's rule refuses it too
    assert "onerror" not in text and "evil.example" not in text
    page = next(f.content for f in build.files if f.uri == "submissions/synthetic-000.md")
    assert page.index("<!-- kb-slot:verdicts-nvidia-h200 -->") < page.index("<!-- kb-slot:results-nvidia-h200 -->")
    agreeing = " ".join(build.slots["submissions/synthetic-001.md"]["verdicts-nvidia-h200"].split())
    assert "KernelBench's rule and this board agree on every kernel." in agreeing and "here:" not in agreeing
