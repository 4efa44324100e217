"""Correctness judgement: seeds, input variants, exact output type, tolerance semantics, and the evidence
that the tolerances and the float64 precision check separate honest fp32 kernels from exploits."""

from __future__ import annotations

import math

import pytest
import torch

from validator.evaluate.worker import correctness, precision
from validator.evaluate.worker.correctness import (
    check_structure,
    check_values,
    compare_values,
    derive_seed,
    inputs_unchanged,
    poison,
    refill_inputs,
    scale_floating,
    specs_of,
    tolerance_for,
)
from validator.evaluate.worker.precision import normwise_error, precision_verdict
from validator.protocol import PROTOCOL

FP32 = (1e-4, 1e-4)


def test_trial_seeds_depend_on_the_secret_and_the_purpose_and_are_stable():
    assert derive_seed(7, "trial", 0) == derive_seed(7, "trial", 0)
    seeds = {derive_seed(7, "trial", i) for i in range(5)} | {derive_seed(8, "trial", 0), derive_seed(7, "model")}
    assert len(seeds) == 7
    assert all(0 <= s < 2**63 for s in seeds)


def test_scaling_touches_floating_inputs_only():
    x, idx = torch.ones(3), torch.arange(3)
    scaled = scale_floating([x, idx, 5], 100.0)
    assert torch.equal(scaled[0], torch.full((3,), 100.0))
    assert scaled[1] is idx and scaled[2] == 5


def test_widening_spans_four_decades_chunk_by_chunk_the_same_for_judge_and_runner():
    """Chunked (an 8 GiB input's float64 temporaries did not fit beside the runner): one seed, one answer."""
    x = torch.ones(2, correctness.CHUNK // 2 + 777) * 3.0
    a, b = correctness.widen_dynamic_range([x, 5], 11), correctness.widen_dynamic_range([x, 5], 11)
    assert torch.equal(a[0], b[0]) and a[1] == 5 and a[0].shape == x.shape and a[0].dtype == x.dtype
    factor = torch.log10(a[0] / x)
    assert factor.min() >= -2.0001 and factor.max() <= 2.0001 and factor.std() > 1.0
    tail = factor.reshape(-1)[correctness.CHUNK:]  # past the first chunk: drawn, not copied from the head
    assert not torch.equal(tail[:777], factor.reshape(-1)[:777])


def test_a_tensor_subclass_is_rejected_before_any_of_its_code_runs():
    touched = []

    class Lazy(torch.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            touched.append(func)
            return super().__torch_function__(func, types, args, kwargs or {})

    out = torch.zeros(2, 3).as_subclass(Lazy)
    touched.clear()
    verdict, _ = check_structure(out, specs_of([torch.zeros(2, 3)]), None)
    assert (verdict.ok, verdict.code) == (False, "wrong-type")
    assert touched == []


@pytest.mark.parametrize(
    ("out", "code"),
    [
        (torch.zeros(3, 2), "wrong-shape"),
        (torch.zeros(2, 3, dtype=torch.float64), "wrong-dtype"),
        (torch.zeros(2, 3, device="meta"), "wrong-device"),
        ((torch.zeros(2, 3),), "wrong-type"),
        ([1.0], "wrong-type"),
    ],
)
def test_shape_dtype_device_and_type_must_match_exactly(out, code):
    verdict, _ = check_structure(out, specs_of([torch.zeros(2, 3)]), None)
    assert verdict.code == code


def test_a_reference_returning_a_tuple_needs_the_same_container_back():
    specs = specs_of([torch.zeros(2), torch.zeros(3)])
    assert check_structure((torch.zeros(2), torch.zeros(3)), specs, tuple)[0].ok
    assert check_structure([torch.zeros(2), torch.zeros(3)], specs, tuple)[0].code == "wrong-structure"
    assert check_structure((torch.zeros(2),), specs, tuple)[0].code == "wrong-structure"


@pytest.mark.parametrize("seed", range(6))
def test_the_comparison_agrees_with_torch_allclose_for_outputs_of_order_one(seed):
    gen = torch.Generator().manual_seed(seed)
    expected = torch.randn(1000, generator=gen) * 10 ** (-seed / 2)
    out = expected + torch.randn(1000, generator=gen) * 10 ** (seed - 7)
    assert compare_values(out, expected, *FP32).ok == torch.allclose(out, expected, *FP32[::-1])


def test_the_absolute_tolerance_grows_with_the_output_rms_only_above_one():
    expected = torch.full((100,), 100.0)
    expected[0] = 0.0
    out = expected.clone()
    out[0] = 5e-3  # within atol * rms (about 1e-2), far outside a fixed atol of 1e-4
    assert compare_values(out, expected, *FP32).ok
    assert not torch.allclose(out, expected, *FP32[::-1])
    assert correctness.output_scale(torch.full((10,), 0.01)) == 1.0


def test_nan_and_inf_positions_and_signs_must_match():
    expected = torch.tensor([1.0, float("nan"), float("inf"), -float("inf")])
    assert compare_values(expected.clone(), expected, *FP32).ok
    for i, value in [(0, float("nan")), (1, 0.0), (2, -float("inf")), (3, 1e30)]:
        out = expected.clone()
        out[i] = value
        assert compare_values(out, expected, *FP32).code == "output-mismatch"


SPECIAL = (float("nan"), float("inf"), -float("inf"), 0.0, 3e38, -3e38, 1e-30)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
@pytest.mark.parametrize("case", range(40))
def test_the_fast_comparison_agrees_with_the_element_by_element_one(case, dtype, monkeypatch):
    """The few-pass check that passes most outputs must give the full check's verdict and errors, whatever
    mix of NaN, ±Inf, overflow, zeros and near-misses the two sides hold (three chunks of 64 here)."""
    monkeypatch.setattr(correctness, "CHUNK", 64)
    gen = torch.Generator().manual_seed(case)
    expected = (torch.randn(160, generator=gen, dtype=torch.float64) * 10 ** (case % 5 - 2)).to(dtype)
    noise = torch.randn(160, generator=gen, dtype=torch.float64) * 10.0 ** -(2 + case % 7)
    out = (expected.double() * (1 + noise)).to(dtype) if case % 3 else expected.clone()
    specials = torch.randint(0, len(SPECIAL), (case % 4,), generator=gen).tolist()
    for value, where in zip(specials, torch.randint(0, 160, (len(specials),), generator=gen).tolist(), strict=True):
        expected[where] = SPECIAL[value]
        out[where] = SPECIAL[value] if case % 2 else SPECIAL[(value + case) % len(SPECIAL)]
    work = torch.float64 if dtype == torch.float64 else torch.float32
    scaled = 1e-4 * correctness.output_scale(expected)
    full = correctness._first_difference(correctness._flat(out), correctness._flat(expected), work, atol=1e-4,
                                      scaled_atol=scaled, rtol=1e-4)  # fmt: skip
    fast = compare_values(out, expected, 1e-4, 1e-4)
    assert (fast.ok, fast.code, fast.message) == (full.ok, full.code, full.message)
    assert (fast.max_abs, fast.max_rel) == pytest.approx((full.max_abs, full.max_rel), rel=1e-12)


def test_the_output_scale_and_normwise_error_do_not_depend_on_the_chunking(monkeypatch):
    gen = torch.Generator().manual_seed(7)
    ref = torch.randn(1000, generator=gen, dtype=torch.float64) * 30
    ref[[3, 500]] = float("inf")
    out = (ref * (1 + 1e-5 * torch.randn(1000, generator=gen, dtype=torch.float64))).float()
    whole = (correctness.output_scale(ref), normwise_error(out, ref))
    monkeypatch.setattr(correctness, "CHUNK", 97)
    assert (correctness.output_scale(ref), normwise_error(out, ref)) == pytest.approx(whole, rel=1e-12)
    finite = ref[torch.isfinite(ref)]
    assert whole[0] == pytest.approx(float(finite.pow(2).mean().sqrt()), rel=1e-12)
    assert correctness.output_scale(torch.empty(0)) == 1.0 and normwise_error(torch.empty(0), torch.empty(0)) == 0.0


def test_integer_outputs_must_match_exactly():
    expected = torch.arange(10)
    assert compare_values(expected.clone(), expected, 0.0, 0.0).ok
    assert not compare_values(expected + 1, expected, 0.0, 0.0).ok
    assert tolerance_for(torch.int64, PROTOCOL.tolerances) == (0.0, 0.0)
    assert tolerance_for(torch.float16, PROTOCOL.tolerances) == (1e-2, 1e-2)


def test_chunked_comparison_reports_the_same_errors_as_one_pass(monkeypatch):
    expected = torch.randn(10_000)
    out = expected + torch.linspace(0, 1e-3, 10_000)
    whole = compare_values(out, expected, *FP32)
    monkeypatch.setattr(correctness, "CHUNK", 333)
    chunked = compare_values(out, expected, *FP32)
    assert (chunked.ok, chunked.max_abs, chunked.max_rel) == (whole.ok, whole.max_abs, whole.max_rel)
    assert whole.max_abs == pytest.approx(1e-3, rel=1e-3)


def test_max_errors_are_recorded_for_passing_outputs():
    expected = torch.full((4,), 2.0)
    verdict = check_values([expected + 1e-5], [expected], PROTOCOL.tolerances)
    assert verdict.ok
    assert verdict.max_abs == pytest.approx(1e-5, rel=1e-2)
    assert verdict.max_rel == pytest.approx(5e-6, rel=1e-2)


def test_a_mutated_input_is_caught_and_nan_inputs_still_equal_themselves():
    pristine = [torch.tensor([1.0, float("nan")]), 3]
    given = [pristine[0].clone(), 3]
    assert inputs_unchanged(given, pristine).ok
    given[0][0] = 2.0
    assert inputs_unchanged(given, pristine).code == "input-mutated"


def test_refilled_inputs_keep_their_identity_and_take_the_new_values():
    buffers = [torch.zeros(3), 4]
    first = buffers[0]
    refill_inputs(buffers, [torch.ones(3), 4])
    assert buffers[0] is first and torch.equal(first, torch.ones(3))


def test_refilled_scalar_inputs_take_each_trials_value():
    """A Python scalar input (level1/5's `s`) differs per trial; the kernel must see the reference's value."""
    buffers = [torch.zeros(3), 0.5]
    refill_inputs(buffers, [torch.ones(3), 2.25])
    assert buffers[1] == 2.25


def test_released_reference_outputs_are_poisoned():
    floats, ints = torch.ones(3), torch.ones(3, dtype=torch.int32)
    poison([floats, ints])
    assert torch.isnan(floats).all()
    assert (ints == -7).all()


# ---- Evidence: tolerances and the precision check vs float64 -------------------------------------------


def _blocked_matmul(a: torch.Tensor, b: torch.Tensor, block: int = 32) -> torch.Tensor:
    """fp32 matmul summing K in a different order (blocks, then across blocks): what an honest kernel does."""
    out = torch.zeros(a.shape[0], b.shape[1])
    for k in reversed(range(0, a.shape[1], block)):
        out += a[:, k : k + block] @ b[k : k + block]
    return out


def _tf32(x: torch.Tensor) -> torch.Tensor:
    """Round fp32 to TF32's 10-bit mantissa (truncation), as tensor cores read fp32 operands."""
    return (x.view(torch.int32) & ~0x1FFF).view(torch.float32)


@pytest.mark.parametrize("scale", PROTOCOL.input_scales)
def test_a_reordered_fp32_sum_passes_and_precision_exploits_fail(scale):
    """Evidence for the tolerances: an honest fp32 GEMM that sums in another order passes on every input
    variant (with a fixed atol it failed at x100 through cancellation), while fp16/bf16/TF32 operands,
    zeros and first-row-only outputs fail."""
    gen = torch.Generator().manual_seed(11)
    a, b = torch.randn(64, 512, generator=gen) * scale, torch.randn(512, 48, generator=gen)
    ref32, ref64 = a @ b, a.double() @ b.double()
    reference_error = normwise_error(ref32, ref64)

    honest = _blocked_matmul(a, b)
    assert compare_values(honest, ref32, *FP32).ok
    assert not precision_verdict(normwise_error(honest, ref64), reference_error).lowered

    lowered = {
        "fp16": (a.half().float() @ b.half().float()),
        "bf16": (a.bfloat16().float() @ b.bfloat16().float()),
        "tf32": _tf32(a) @ _tf32(b),
    }
    for name, out in lowered.items():
        precision = precision_verdict(normwise_error(out, ref64), reference_error)
        assert precision.lowered, f"{name}: {precision.describe()}"

    zeros, first_row = torch.zeros_like(ref32), torch.zeros_like(ref32)
    first_row[0] = ref32[0]
    assert not compare_values(zeros, ref32, *FP32).ok
    assert not compare_values(first_row, ref32, *FP32).ok


def test_normwise_error_ignores_positions_that_overflowed_and_flags_mostly_broken_outputs():
    ref = torch.tensor([1.0, 2.0, float("inf")], dtype=torch.float64)
    assert normwise_error(torch.tensor([1.0, 2.0, float("inf")]), ref) == 0.0
    assert math.isinf(normwise_error(torch.full((3,), float("nan")), ref))


class _Matmul(torch.nn.Module):
    def __init__(self, b: torch.Tensor) -> None:
        super().__init__()
        self.b = torch.nn.Parameter(b)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return a @ self.b


def test_on_a_large_output_the_precision_check_compares_sampled_positions_with_the_same_verdicts(monkeypatch):
    """With the sample 1/24 of the output: the float64 reference is kept at the sampled positions only, the
    sampled error estimates the full one, and the verdicts are the full check's: the honest re-ordered fp32
    GEMM passes, fp16/bf16/TF32 operands and lowering on a twentieth of the rows fail."""
    monkeypatch.setattr(precision, "PRECISION_SAMPLE", 1 << 12)
    gen = torch.Generator().manual_seed(5)
    b = torch.randn(256, 384, generator=gen)
    model = _Matmul(b)
    made = lambda i: [torch.randn(256, 256, generator=torch.Generator().manual_seed(40 + i))]  # noqa: E731
    sets = precision.precision_references(model, made, widen_seed=3, sample_seed=9)
    assert len(sets) == 2 and all(r.numel() == 1 << 12 for s in sets for r in s.ref64)
    assert all(p is not None for s in sets for p in s.positions)
    for ps in sets:
        a = made(ps.index)[0] if ps.index == 0 else correctness.widen_dynamic_range(made(1), 3)[0]
        full64 = a.double() @ b.double()
        assert ps.reference_error == pytest.approx(normwise_error(a @ b, full64), rel=0.1)
        honest = _blocked_matmul(a, b)
        assert ps.kernel_error([honest]) == pytest.approx(normwise_error(honest, full64), rel=0.1)
        assert not precision_verdict(ps.kernel_error([honest]), ps.reference_error).lowered
        part = a @ b
        part[::20] = a[::20].bfloat16().float() @ b.bfloat16().float()
        for name, out in {"fp16": a.half().float() @ b.half().float(), "tf32": _tf32(a) @ _tf32(b),
                          "bf16 on 5% of rows": part}.items():
            assert ps.kernel_error([out]) == pytest.approx(normwise_error(out, full64), rel=0.2), name
            assert precision_verdict(ps.kernel_error([out]), ps.reference_error).lowered, name
