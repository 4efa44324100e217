"""Judge v2 (protocol 17): one kind of call. Every call of the kernel is a timed call on fresh inputs of one of the
problem's input kinds, the required trials first in a secret order; the calls read are drawn after their span; every
read call is judged under every rule. These tests hold the schedule and the rules to that, on the CPU."""

from __future__ import annotations

import random
from dataclasses import replace
from types import SimpleNamespace

import pytest
import torch

from tests.evaluate.judge.test_evaluate import _blocked_matmul, _Matmul
from validator.evaluate.judge.precision import Float64
from validator.evaluate.judge.trial_inputs import TrialInputs
from validator.evaluate.judge.verdicts import Verdicts
from validator.protocol import PROTOCOL

PROBLEM = SimpleNamespace(get_inputs=lambda: [torch.rand(64, 32)], get_init_inputs=lambda: [], __file__="x.py")
"""Upstream's kind of problem: its inputs drawn uniform on [0, 1), all of one sign."""
SIGNED = SimpleNamespace(get_inputs=lambda: [torch.randn(64, 32)], get_init_inputs=lambda: [], __file__="y.py")


class Schedule(TrialInputs):
    def __init__(self, secret: int, protocol=PROTOCOL, problem=PROBLEM) -> None:
        self.job, self.protocol, self.problem = SimpleNamespace(seed=secret), protocol, problem
        self.device, self.gpu = torch.device("cpu"), False


@pytest.fixture(autouse=True)
def no_overlay(monkeypatch):
    from validator.catalogue import problem_module

    monkeypatch.setattr(problem_module, "problem_hidden_variants", lambda module, protocol: protocol)
    monkeypatch.setattr(problem_module, "problem_input_scales", lambda module, protocol: protocol)


def test_the_first_calls_are_the_required_trials_in_a_secret_order_and_the_rest_mix_every_kind():
    one, other = Schedule(1, problem=SIGNED), Schedule(2, problem=SIGNED)
    kinds = one.kinds
    assert kinds == ("upstream", "negated", "standard-normal", "scaled-x0.01", "scaled-x3", "scaled-x100")
    required = len(one.required)
    assert required == PROTOCOL.upstream_trials + len(kinds) - 1
    first = [one.kind(n) for n in range(required)]
    assert sorted(first) == sorted(["upstream"] * PROTOCOL.upstream_trials + list(kinds[1:]))
    assert first != [other.kind(n) for n in range(required)]  # the order is the run's secret
    later = [one.kind(n) for n in range(required, required + 3000)]
    assert {k: later.count(k) for k in kinds} == pytest.approx(dict.fromkeys(kinds, 500), abs=90)


def test_a_call_s_spec_is_a_seed_and_a_kind_never_a_tensor_and_the_judge_makes_the_same_inputs_from_it():
    schedule = Schedule(3, problem=SIGNED)
    specs = [schedule.spec(n) for n in range(40)]
    assert all(set(s) == {"seed", "variant", "variant_seed"} for s in specs)
    assert len({s["seed"] for s in specs}) == 40  # every call on a draw of its own
    alone = [schedule.spec(n, "alone") for n in range(60)]  # the baselines before the kernel loads: the same mix
    assert {s["variant"] for s in alone} == set(schedule.kinds) and not {s["seed"] for s in alone} & {
        s["seed"] for s in specs}
    negated = next(s for s in specs if s["variant"] == "negated")
    assert torch.equal(schedule.inputs(negated)[0], -schedule.inputs({**negated, "variant": "upstream"})[0])
    assert torch.equal(schedule.inputs(negated)[0], schedule.inputs(dict(negated))[0])


def test_the_required_trials_are_always_read_and_later_calls_at_the_share_per_span():
    schedule = Schedule(4)
    rng = random.Random(0)
    required = len(schedule.required)
    assert all(schedule.read(n, rng, 0.5, 8) for n in range(required))
    reads = sum(schedule.read(n, rng, 0.5, 8) for n in range(required, required + 80_000))
    assert reads == pytest.approx(80_000 * 0.5 / 8, rel=0.05)


def _verdicts(**changes) -> Verdicts:
    return Verdicts(PROTOCOL.tolerances, replace(PROTOCOL, **changes))


def _judged(kernel, kind: str = "upstream", k: int = 256) -> Verdicts:
    """A K=`k` matmul of U[0,1) draws (upstream's kind) or standard-normal ones, judged as a read call."""
    gen = torch.Generator().manual_seed(9)
    draw = torch.rand if kind == "upstream" else torch.randn
    rows = 8 if k > 4096 else 32
    a, b = draw(rows, k, generator=gen), draw(k, rows, generator=gen)
    model = _Matmul(b)
    ref32 = model(a).detach()
    out = kernel(a, b).detach()
    verdicts = _verdicts()
    wide = Float64(model, 1 << 24)
    verdicts.judge([out], [ref32], kind, wide.errors(wide.reference([a], 1), [ref32], [out]))
    return verdicts


def test_an_honest_reordered_fp32_kernel_passes_every_rule_on_every_kind():
    for kind in ("upstream", "standard-normal"):
        verdicts = _judged(_blocked_matmul, kind)
        assert verdicts.headline is None and verdicts.strict is None, (verdicts.headline, verdicts.strict)


def test_fp16_arithmetic_passes_the_headline_and_fails_the_strict_rule_on_a_mixed_sign_draw():
    verdicts = _judged(lambda a, b: (a.half().float() @ b.half().float()), "standard-normal")
    assert verdicts.headline is None and verdicts.strict is not None


@pytest.mark.parametrize("cheat", ["another draw's output", "the mean", "rowsum(A)colsum(B)/K"])
def test_outputs_that_do_not_follow_the_inputs_fail_the_headline_where_upstream_s_rule_passes_them(cheat):
    """Each passes KernelBench's allclose at 1e-2 on a U[0,1) draw of a K=2**18 matmul (outputs near 65536, moving
    by about 110), and misses the moving part by 0.3 to 1.4 of itself: the headline rejects it, and says upstream's
    rule passed it."""
    def kernel(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        if cheat == "another draw's output":
            return torch.rand(a.shape, generator=torch.Generator().manual_seed(77)) @ b
        if cheat == "the mean":
            return torch.full((a.shape[0], b.shape[1]), float((a @ b).mean()))
        return a.sum(1, keepdim=True) * b.sum(0, keepdim=True) / a.shape[1]

    verdicts = _judged(kernel, k=1 << 18)
    assert verdicts.own is None and verdicts.own_trials == 1  # upstream's own rule: passed
    assert verdicts.headline is not None and "moves with the inputs" in verdicts.headline.message
    assert verdicts.strict is not None and "KernelBench's own rule" in verdicts.fooled()


def test_on_a_scaled_variant_the_headline_s_absolute_tolerance_scales_with_the_output():
    """x100 multiplies a K=4096 standard-normal matmul's outputs by 10^4: an honest fp32 kernel that sums in another
    order is off by more than a fixed 1e-2 near its zero outputs; against atol times the output's RMS it passes, and
    an output off by 5% of its RMS still fails."""
    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(256, 4096, generator=gen) * 100, torch.randn(4096, 256, generator=gen) * 100
    ref32, honest = a @ b, _blocked_matmul(a, b)
    assert not torch.allclose(honest, ref32, rtol=1e-2, atol=1e-2)
    verdicts = _verdicts()
    verdicts.judge([honest], [ref32], "scaled-x100", None)
    assert verdicts.headline is None
    verdicts.judge([ref32 + 0.05 * ref32.pow(2).mean().sqrt()], [ref32], "scaled-x100", None)
    assert verdicts.headline is not None


def test_the_moving_part_is_not_judged_on_the_variants_whose_scales_shrink_it():
    """On the x0.01 variant a softmax-like output hardly moves; honest fp16 misses that small moving part by a few
    percent, and allclose judges those calls (an ignored input fails it there)."""
    verdicts = _verdicts()
    ref = torch.full((4, 8), 0.125)
    errors = SimpleNamespace(kernel=1e-4, reference=1e-7, kernel_moving=0.3, reference_moving=1e-5)
    verdicts.judge([ref.clone()], [ref], "scaled-x0.01", errors)
    assert verdicts.headline is None
    verdicts.judge([ref.clone()], [ref], "upstream", errors)
    assert verdicts.headline is not None


class _Product(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.prod(x, dim=1)


PRODUCT = SimpleNamespace(get_inputs=lambda: [torch.randn(2, 256, 64)], get_init_inputs=lambda: [], __file__="p.py")
"""The 2024 board's level1/50 at a reduced batch: a product of 256 standard-normal draws per output, which underflows
toward 0 on upstream's draw and overflows float32 on most outputs times 3 or 100."""


def test_a_variant_on_which_the_reference_itself_overflows_is_never_drawn():
    schedule = Schedule(5, problem=PRODUCT)
    schedule.reference = _Product()
    assert schedule.out_of_range == ("scaled-x3", "scaled-x100")
    assert schedule.kinds == ("upstream", "negated", "standard-normal", "scaled-x0.01")
    later = {schedule.kind(n) for n in range(400)}
    assert later == set(schedule.kinds) and not later & set(schedule.out_of_range)
    # which outputs overflow there depends on the order of the product: an honest reversed one differs
    x = schedule.inputs({"seed": 1, "variant": "scaled-x3", "variant_seed": 2})[0]
    reversed_order = torch.ones(x.shape[0], x.shape[2])
    for row in reversed(range(x.shape[1])):
        reversed_order = reversed_order * x[:, row]
    assert bool((torch.isinf(reversed_order) != torch.isinf(torch.prod(x, dim=1))).any())


def test_variants_that_keep_the_reference_finite_stay_so_a_kernel_that_overflows_there_is_judged():
    """PyTorch's softplus returns x above 20, finite at x100 where log(1 + exp(x)) is +Inf: the variant stays."""
    schedule = Schedule(6, problem=SIGNED)
    schedule.reference = torch.nn.Softplus()
    assert schedule.out_of_range == () and "scaled-x100" in schedule.kinds


def test_where_upstream_s_own_draw_overflows_every_variant_stays():
    """±Inf is then the problem's answer (exp of 100 draws above 0.9), judged as the reference gives it."""
    big = SimpleNamespace(get_inputs=lambda: [torch.rand(64, 32) * 100], get_init_inputs=lambda: [], __file__="e.py")
    schedule = Schedule(7, problem=big)
    schedule.reference = torch.exp
    assert schedule.out_of_range == () and len(schedule.kinds) == 6


def test_without_a_reference_a_warm_up_keeps_every_kind():
    assert Schedule(8, problem=PRODUCT).kinds == (
        "upstream", "negated", "standard-normal", "scaled-x0.01", "scaled-x3", "scaled-x100")
