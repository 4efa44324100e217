"""Two verdicts on every result (issue 20): the board's strict `status` and KernelBench's own `upstream`
(torch.allclose at atol = rtol = 1e-2 on five draws of the problem's own inputs), on the CPU judge path."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from tests.evaluate.worker.test_worker import make_job
from validator.evaluate.worker import run as worker
from validator.evaluate.worker.verdicts import upstream_check
from validator.protocol import PROTOCOL
from validator.results.records import ProblemResult, Status

PROBLEM = '''import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return {expression}


rows = 4096

def get_inputs():
    return [torch.rand(rows, 64)]


def get_init_inputs():
    return []
'''
OFF_BY_5E3 = "out = x * 2\n        return out + 5e-3  # within 1e-2 + 1e-2 |y|, far outside 1e-4"
IDENTITY = "return x.clone()  # ReLU's answer wherever the inputs are non-negative, as upstream's all are"
# One element off by 0.3x the strict rule's RMS-scaled atol: the strict rule allows it, upstream's fixed 1e-2
# does not at the element nearest zero (outputs of order 1000, so the RMS is too).
NEAR_ZERO_OFF = '''out = x * 1000
        rms = out.double().pow(2).mean().sqrt().item()
        out.view(-1)[out.abs().argmin()] += 0.3 * 1e-4 * max(1.0, rms)
        return out'''
WRONG = "return x * 3"
IN_PLACE = "return torch.relu_(x)  # upstream would accept it: the output is right, the caller's input is gone"


def judge(tmp_path: Path, expression: str, body: str) -> ProblemResult:
    problem = tmp_path / "level1" / "1_Case.py"
    problem.parent.mkdir(parents=True)
    problem.write_text(PROBLEM.format(expression=expression), encoding="utf-8")
    overlay = {"schema_version": 1, "problems": {"level1/1_Case": {"reduced_sizes": {"rows": 256}}}}
    (tmp_path / "overlay.json").write_text(json.dumps(overlay), encoding="utf-8")
    kernel = tmp_path / "kernel_triton.py"
    kernel.write_text(f"import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n"
                      f"        {body}\n", encoding="utf-8")
    job = make_job("level1/19_ReLU", kernel, tmp_path, interpret=True)
    job = replace(job, key="level1/1_Case", problem_path=str(problem),
                  problem_sha256=hashlib.sha256(problem.read_bytes()).hexdigest())
    return worker.evaluate_job(job)


@pytest.mark.parametrize(("expression", "body"), [("x * 2", OFF_BY_5E3), ("torch.relu(x)", IDENTITY)],
                         ids=["error-5e-3", "right-on-[0,1)-only"])
def test_a_kernel_correct_at_upstream_s_rule_only_is_incorrect_here_and_correct_there(tmp_path, expression, body):
    result = judge(tmp_path, expression, body)
    assert result.status is Status.INCORRECT and "output-mismatch" in {f.code for f in result.flags}
    assert result.upstream is not None and result.upstream.correct, result.upstream
    assert result.upstream.trials == PROTOCOL.upstream_trials and result.upstream.error == ""
    if body == OFF_BY_5E3:
        assert result.upstream.max_abs_error == pytest.approx(5e-3, rel=1e-3)


def test_a_kernel_the_strict_rule_passes_can_fail_upstream_s_fixed_absolute_tolerance(tmp_path):
    result = judge(tmp_path, "x * 1000", NEAR_ZERO_OFF)
    assert result.status is Status.CORRECT, result.error
    assert not result.upstream.correct and "not torch.allclose" in result.upstream.error
    assert result.upstream.trials == 1  # upstream's rule fails on its first draw; the strict one goes on


def test_a_kernel_wrong_under_both_rules_stops_at_the_first_trial_that_settles_both(tmp_path):
    result = judge(tmp_path, "x * 2", WRONG)
    assert result.status is Status.INCORRECT
    assert (result.upstream.correct, result.upstream.trials) == (False, 1)


def test_a_rejected_kernel_is_correct_under_neither_rule_whatever_its_values(tmp_path):
    result = judge(tmp_path, "torch.relu(x)", IN_PLACE)
    assert result.status is Status.REJECTED and "output-aliases-input" in {f.code for f in result.flags}
    assert not result.upstream.correct and "input" in result.upstream.error


def test_an_honest_kernel_is_correct_under_both(tmp_path):
    result = judge(tmp_path, "x * 2", "return x + x")
    assert result.status is Status.CORRECT, result.error
    assert result.upstream.correct and result.upstream.trials == 5 and result.upstream.max_abs_error == 0.0


def test_upstream_s_rule_is_torch_allclose_with_the_kernel_output_as_other():
    torch.manual_seed(0)
    reference = torch.randn(1000) * 10
    for noise in (1e-3, 1e-2, 3e-2, 1e-1):
        kernel = reference + noise * torch.randn(1000) * reference.abs()
        for atol, rtol in ((1e-2, 1e-2), (1e-4, 1e-4)):
            expected = torch.allclose(reference, kernel, atol=atol, rtol=rtol)
            assert upstream_check([kernel], [reference], atol, rtol).ok is expected
    with_nan = reference.clone()
    with_nan[3] = float("nan")
    assert not upstream_check([with_nan], [with_nan.clone()], 1e-2, 1e-2).ok  # equal_nan=False, as upstream


# Right (at upstream's rule) for its first five calls, the correctness trials on upstream's draws; wrong after.
RIGHT_WHILE_WATCHED = '''self.calls = getattr(self, "calls", 0) + 1
        return x * 2 + (5e-3 if self.calls <= 5 else 1.0)'''


def test_a_kernel_correct_at_upstream_s_rule_only_is_timed_and_its_timed_outputs_are_checked_at_that_rule(tmp_path):
    result = judge(tmp_path, "x * 2", RIGHT_WHILE_WATCHED)
    assert result.status is Status.INCORRECT
    assert "output-mismatch" in {f.code for f in result.flags} and "outside atol=0.0001" in result.error  # strict
    assert not result.upstream.correct and result.upstream.error.startswith("a timed call: not torch.allclose")
    assert result.upstream.trials == PROTOCOL.upstream_trials


def _cases() -> list[tuple[str, torch.Tensor, torch.Tensor]]:
    """Outputs beside their references, at and around both rules' tolerances, with NaN and Inf in either."""
    gen = torch.Generator().manual_seed(7)
    expected = torch.randn(3001, generator=gen) * 3
    cases = [("equal", expected.clone(), expected)]
    for scale in (1e-6, 1e-3, 9e-3, 1.1e-2, 0.05, 1.0):
        cases.append((f"noise {scale:g}", expected + scale * torch.randn(3001, generator=gen), expected))
    one_off = expected.clone()
    one_off[2999] += 0.5
    cases.append(("one element off in the last chunk", one_off, expected))
    for name, value in (("nan", float("nan")), ("inf", float("inf")), ("-inf", float("-inf"))):
        out = expected.clone()
        out[17] = value
        cases.append((f"{name} in the output only", out, expected))
        both = expected.clone()
        both[17] = value
        cases.append((f"{name} in both", both.clone(), both))
    return cases


@pytest.mark.parametrize("name,out,expected", _cases(), ids=[c[0] for c in _cases()])
def test_the_timing_phase_s_verdict_only_checks_agree_with_the_full_ones(monkeypatch, name, out, expected):
    """The timing phase's spot checks skip the errors (four fifths of their time on outputs of gigabytes): their
    verdict must be the full check's on every kind of output, and a failure must still say what differs."""
    from validator.evaluate.worker import correctness, verdicts

    monkeypatch.setattr(correctness, "CHUNK", 1000)  # several chunks, the last one short
    monkeypatch.setattr(verdicts, "CHUNK", 1000)
    tolerances = {"float32": {"atol": 1e-2, "rtol": 1e-2}}
    full, quick = correctness.check_values([out], [expected], tolerances), \
        correctness.check_values([out], [expected], tolerances, errors=False)
    assert quick.ok == full.ok
    if not full.ok:
        assert (quick.code, quick.message) == (full.code, full.message)
    full, quick = upstream_check([out], [expected], 1e-2, 1e-2), upstream_check([out], [expected], 1e-2, 1e-2,
                                                                               errors=False)
    assert quick.ok == full.ok
    if not full.ok:
        assert (quick.code, quick.message) == (full.code, full.message)


@pytest.mark.parametrize("name,out,expected", _cases(), ids=[c[0] for c in _cases()])
def test_upstream_s_worst_errors_are_over_every_chunk_s_finite_positions(monkeypatch, name, out, expected):
    """What upstream's metadata calls max_difference, in float64 over the positions finite in both, whichever of
    several chunks holds it (the chunks' maxima are kept on the device and read once)."""
    import numpy as np

    from validator.evaluate.worker import verdicts

    monkeypatch.setattr(verdicts, "CHUNK", 1000)
    e, o = expected.double().numpy(), out.double().numpy()
    finite = np.isfinite(e) & np.isfinite(o)
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: not a finite position anyway
        diff = np.where(finite, np.abs(e - o), 0.0)
    rel = np.where(finite & (e != 0), diff / np.where(e != 0, np.abs(e), 1.0), 0.0)
    verdict = upstream_check([out], [expected], 1e-2, 1e-2)
    assert (verdict.max_abs, verdict.max_rel) == (pytest.approx(diff.max(), rel=1e-12), pytest.approx(rel.max(),
                                                                                                      rel=1e-12))
