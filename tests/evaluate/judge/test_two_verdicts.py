"""Two verdicts on every result: the board's strict `status` and the headline `upstream` (KernelBench's
torch.allclose at atol = rtol = 1e-2 on every read call, upstream's draws and the hidden variants alike), with
upstream's own rule (its draws alone) recorded where it would be fooled; on the CPU judge path."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from tests.evaluate.judge.test_run import make_job
from validator.evaluate.judge import run as worker
from validator.evaluate.judge.verdicts import upstream_check
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


REQUIRED = PROTOCOL.upstream_trials + 2 + len([s for s in PROTOCOL.input_scales if s != 1.0])
"""The required trials: upstream's draws, negated, standard-normal and each scale."""


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_a_kernel_correct_at_the_headline_only_is_incorrect_here_and_correct_there(tmp_path):
    result = judge(tmp_path, "x * 2", OFF_BY_5E3)
    assert result.status is Status.INCORRECT and "output-mismatch" in {f.code for f in result.flags}
    assert result.upstream is not None and result.upstream.correct, result.upstream
    assert result.upstream.trials >= REQUIRED and result.upstream.error == "" and not result.upstream.fooled
    assert result.upstream.max_abs_error == pytest.approx(5e-3, rel=1e-3)


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_a_kernel_right_only_on_upstream_s_draws_fails_the_headline_and_the_result_says_upstream_is_fooled(tmp_path):
    result = judge(tmp_path, "torch.relu(x)", IDENTITY)
    assert result.status is Status.INCORRECT and not result.upstream.correct
    assert "negated" in result.upstream.error or "standard-normal" in result.upstream.error
    fooled = [f.message for f in result.flags if f.code == "upstream-fooled"]
    assert fooled == ([result.upstream.fooled] if result.upstream.fooled else [])
    assert not fooled or "KernelBench's own rule" in fooled[0]


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_a_kernel_off_by_more_than_upstream_s_fixed_absolute_tolerance_fails_both_rules(tmp_path):
    """The strict rule's atol scales with the output's RMS; KernelBench's does not. Failing KernelBench's tolerance
    fails the strict rule too: a strict verdict is never laxer than the headline's."""
    result = judge(tmp_path, "x * 1000", NEAR_ZERO_OFF)
    assert result.status is Status.INCORRECT and not result.upstream.fooled
    assert not result.upstream.correct and "upstream's own draw: not torch.allclose" in result.upstream.error
    assert result.upstream.trials <= REQUIRED  # at its first upstream draw (variants scale atol with the output)


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_a_kernel_wrong_under_both_rules_stops_at_the_first_read_call(tmp_path):
    result = judge(tmp_path, "x * 2", WRONG)
    assert result.status is Status.INCORRECT
    assert (result.upstream.correct, result.upstream.trials) == (False, 1)


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_a_rejected_kernel_is_correct_under_neither_rule_whatever_its_values(tmp_path):
    result = judge(tmp_path, "torch.relu(x)", IN_PLACE)
    assert result.status is Status.REJECTED and "output-aliases-input" in {f.code for f in result.flags}
    assert not result.upstream.correct and "input" in result.upstream.error


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_an_honest_kernel_is_correct_under_both(tmp_path):
    result = judge(tmp_path, "x * 2", "return x + x")
    assert result.status is Status.CORRECT, result.error
    assert result.upstream.correct and result.upstream.trials >= REQUIRED and result.upstream.max_abs_error == 0.0


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


# Right (at upstream's rule) for its first ten calls, as many as the required trials; wrong after.
RIGHT_WHILE_WATCHED = f'''self.calls = getattr(self, "calls", 0) + 1
        return x * 2 + (5e-3 if self.calls <= {REQUIRED} else 1.0)'''


@pytest.mark.slow  # judges a kernel end to end through the interpreter: ~9 s
def test_a_kernel_right_for_the_required_trials_only_is_caught_on_a_later_read_call(tmp_path):
    result = judge(tmp_path, "x * 2", RIGHT_WHILE_WATCHED)
    assert result.status is Status.INCORRECT
    assert not result.upstream.correct and "outside atol=0.01" in result.upstream.error  # a later, variant call
    assert result.upstream.trials > REQUIRED


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
def test_upstream_s_worst_errors_are_over_every_chunk_s_finite_positions(monkeypatch, name, out, expected):
    """What upstream's metadata calls max_difference, in float64 over the positions finite in both, whichever of
    several chunks holds it (the chunks' maxima are kept on the device and read once)."""
    import numpy as np

    from validator.evaluate import correctness

    monkeypatch.setattr(correctness, "CHUNK", 1000)
    e, o = expected.double().numpy(), out.double().numpy()
    finite = np.isfinite(e) & np.isfinite(o)
    with np.errstate(invalid="ignore"):  # inf - inf where both are infinite: not a finite position anyway
        diff = np.where(finite, np.abs(e - o), 0.0)
    rel = np.where(finite & (e != 0), diff / np.where(e != 0, np.abs(e), 1.0), 0.0)
    verdict = upstream_check([out], [expected], 1e-2, 1e-2)
    assert (verdict.max_abs, verdict.max_rel) == (pytest.approx(diff.max(), rel=1e-12), pytest.approx(rel.max(),
                                                                                                      rel=1e-12))
