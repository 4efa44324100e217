"""Correctness judgement: seeds, input variants, exact output type, tolerance semantics, and the evidence
that the tolerances and the float64 precision check separate honest fp32 kernels from exploits."""

from __future__ import annotations

import math

import pytest
import torch

from validator.evaluate import correctness
from validator.evaluate.correctness import (
    check_values,
    compare_values,
    derive_seed,
    inputs_unchanged,
    poison,
    tolerance_for,
)
from validator.evaluate.judge.precision import Errors, Float64, normwise_error
from validator.evaluate.judge.verdicts import Verdicts
from validator.protocol import PROTOCOL

FP32 = (1e-4, 1e-4)


def test_trial_seeds_depend_on_the_secret_and_the_purpose_and_are_stable():
    assert derive_seed(7, "trial", 0) == derive_seed(7, "trial", 0)
    seeds = {derive_seed(7, "trial", i) for i in range(5)} | {derive_seed(8, "trial", 0), derive_seed(7, "model")}
    assert len(seeds) == 7
    assert all(0 <= s < 2**63 for s in seeds)


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


def _lowered(out: torch.Tensor, ref32: torch.Tensor, ref64: torch.Tensor) -> bool:
    """Whether the strict rule (tolerance, then the precision check) fails one output, as on a read call."""
    verdicts = Verdicts(PROTOCOL.tolerances, PROTOCOL)
    errors = Errors(normwise_error(out, ref64), normwise_error(ref32, ref64), 0.0, 0.0)
    verdicts.judge_strict([out], [ref32], "standard-normal", errors)
    return verdicts.strict is not None


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
    assert not _lowered(honest, ref32, ref64)

    lowered = {
        "fp16": (a.half().float() @ b.half().float()),
        "bf16": (a.bfloat16().float() @ b.bfloat16().float()),
        "tf32": _tf32(a) @ _tf32(b),
    }
    for name, out in lowered.items():
        assert _lowered(out, ref32, ref64), f"{name}: {normwise_error(out, ref64):.3g} vs {reference_error:.3g}"

    zeros, first_row = torch.zeros_like(ref32), torch.zeros_like(ref32)
    first_row[0] = ref32[0]
    assert not compare_values(zeros, ref32, *FP32).ok
    assert not compare_values(first_row, ref32, *FP32).ok


def test_normwise_error_ignores_positions_that_overflowed_and_flags_mostly_broken_outputs():
    ref = torch.tensor([1.0, 2.0, float("inf")], dtype=torch.float64)
    assert normwise_error(torch.tensor([1.0, 2.0, float("inf")]), ref) == 0.0
    assert math.isinf(normwise_error(torch.full((3,), float("nan")), ref))


def _tree_product(x: torch.Tensor) -> torch.Tensor:
    """Over dim 1 in pairs, as a GPU reduction multiplies (torch.prod on the CPU goes in order)."""
    while x.shape[1] > 1:
        x = x[:, 0::2] * x[:, 1::2]
    return x[:, 0]


def test_outputs_below_float32_s_normal_range_carry_no_precision_to_check():
    """91bfc2c's level1/50: a product of 256 standard-normal draws is about 1e-70, so every output is 0 or subnormal
    in float32 and the norm-wise error measures where the arithmetic underflowed. A kernel that multiplies in order
    (or flushes subnormals to zero, as --use_fast_math does) was `precision-lowered` against the GPU's tree-order
    torch.prod on an H100 (protocol 24); such outputs are left out, as overflowed ones are. Outputs in range keep
    their weight: zeros are still an error of 1, and fp16 operands still fail (the test above)."""
    x = torch.randn(16, 256, 256, generator=torch.Generator().manual_seed(2))
    ref64, tree = torch.prod(x.double(), dim=1), _tree_product(x)
    tiny = torch.finfo(torch.float32).tiny
    assert bool((ref64.abs() < tiny).all()) and bool((tree != 0).any())  # all subnormal, some not flushed
    flushed = torch.where(tree.abs() < tiny, 0.0, tree)
    assert not _lowered(flushed, tree, ref64) and not _lowered(torch.prod(x, dim=1), tree, ref64)
    assert normwise_error(flushed, ref64) == normwise_error(flushed, ref64, centered=True) == 0.0

    few = x[:, :8] + 2.0  # a product that stays in range: every position is compared as before
    ref64, ref32 = torch.prod(few.double(), dim=1), _tree_product(few)
    assert normwise_error(torch.zeros_like(ref32), ref64) == 1.0
    assert _lowered(few.half().float().prod(dim=1), ref32, ref64)
    mixed = torch.cat([ref64.flatten()[:8], torch.full((8,), 1e-40, dtype=torch.float64)])  # a subnormal minority
    assert normwise_error(mixed.float(), mixed) == pytest.approx(normwise_error(mixed[:8].float(), mixed[:8]))


class _Matmul(torch.nn.Module):
    def __init__(self, b: torch.Tensor) -> None:
        super().__init__()
        self.b = torch.nn.Parameter(b)

    def forward(self, a: torch.Tensor) -> torch.Tensor:
        return a @ self.b


def test_on_a_large_output_the_precision_check_compares_sampled_positions_with_the_same_verdicts():
    """With the sample 1/24 of the output: the sampled errors estimate the full ones, and the verdicts are the full
    check's: the honest re-ordered fp32 GEMM passes, fp16/bf16/TF32 operands and lowering on a twentieth of the rows
    fail, on upstream's kind of draw (U[0,1)) and on a standard-normal one."""
    gen = torch.Generator().manual_seed(5)
    b = torch.randn(256, 384, generator=gen)
    wide = Float64(_Matmul(b), sample=1 << 12)
    assert wide.picked(torch.zeros(256 * 384), 1)[0].numel() == 1 << 12 and wide.picked(torch.zeros(9), 1)[0] is None
    for draw in (torch.rand, torch.randn):
        a = draw(256, 256, generator=torch.Generator().manual_seed(40))
        ref32, full64 = a @ b, a.double() @ b.double()
        honest = _blocked_matmul(a, b)
        errors = wide.errors(wide.reference([a], 9), [ref32], [honest])
        assert errors.reference == pytest.approx(normwise_error(ref32, full64), rel=0.1)
        assert errors.kernel == pytest.approx(normwise_error(honest, full64), rel=0.1)
        assert not _lowered_by(errors)
        part = a @ b
        part[::20] = a[::20].bfloat16().float() @ b.bfloat16().float()
        for name, out in {"fp16": a.half().float() @ b.half().float(), "tf32": _tf32(a) @ _tf32(b),
                          "bf16 on 5% of rows": part}.items():
            errors = wide.errors(wide.reference([a], 9), [ref32], [out])
            assert errors.kernel == pytest.approx(normwise_error(out, full64), rel=0.2), name
            assert _lowered_by(errors), name


def _lowered_by(errors: Errors) -> bool:
    return not errors.kernel <= max(PROTOCOL.precision_factor * errors.reference, PROTOCOL.precision_floor)


def test_the_float64_reference_lets_go_of_the_fp32_inputs_and_keeps_only_the_compared_positions():
    """At upstream's full sizes (19_ReLU: 6 GiB a tensor) the judge cannot hold its fp32 inputs beside their float64
    copies and the float64 output: the inputs it is given are let go once upcast, and of the output only the sampled
    positions stay."""
    seen: list[int] = []

    class Doubles(torch.nn.Module):
        def forward(self, x: torch.Tensor, index: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            seen.append(len(given))  # the fp32 inputs' list, as the judge passed it, while the float64 call runs
            return x * 2, index

    given = [torch.rand(64, 64), torch.arange(3)]
    picked = Float64(Doubles(), sample=100).reference(given, seed=4)
    assert seen == [0] and given == []
    assert picked[1] is None  # an integer output: no float64 error to take
    assert picked[0][1].dtype == torch.float64 and picked[0][1].numel() == 100
    positions, whole = Float64(Doubles(), sample=1 << 20).reference([torch.rand(8, 8), torch.arange(3)], seed=4)[0]
    assert positions is None and whole.shape == (8, 8)


def test_a_read_call_s_references_are_made_before_its_outputs_are_fetched():
    """The judge's peak on a read call is the float64 call alone: its own inputs for each reference, dropped once
    used, and the kernel's outputs fetched last (7 tensors' worth before: more than an 80 GB H100 had beside the
    runners for 423217d's 19_ReLU)."""
    from types import SimpleNamespace

    from validator.evaluate.judge.run import Evaluation

    order: list[str] = []

    class Wide:
        def reference(self, inputs: list, seed: int) -> list:
            order.append(f"float64 on {len(inputs)} input(s)")
            inputs.clear()
            return []

        def errors(self, picked: list, ref32: list, outs: list) -> None:
            order.append("errors")

    def fetch() -> list:
        order.append("fetch")
        return [torch.ones(2)]

    judge = SimpleNamespace(spec=lambda n: {"variant": "upstream"}, float64=Wide(), seed=lambda purpose, n: n,
                            inputs=lambda spec: order.append("inputs") or [torch.ones(2)],
                            reference=lambda x: order.append("fp32") or x + 1,
                            verdicts=SimpleNamespace(judge=lambda *a: order.append("verdicts"), alive=True),
                            sync=lambda release=False: order.append(f"sync, release={release}"))
    judge.float64_reference = lambda spec, seed: Evaluation.float64_reference(judge, spec, seed)
    assert Evaluation.judge_call(judge, 3, fetch).ok
    # the float64 pass's cached blocks handed back before the runner's fetch, and all of them before the next spans
    assert order == ["inputs", "float64 on 1 input(s)", "sync, release=True", "inputs", "fp32", "fetch", "errors",
                     "verdicts", "sync, release=True"]


def test_a_float64_pass_that_does_not_fit_runs_again_after_the_runners_release_then_on_the_cpu():
    """The judge's own memory is never the kernel's failure: where the float64 reference runs out of GPU memory
    beside the runners' (Swish and RMSNorm at 423217d's sizes on an 80 GB H100), both runners hand back their cached
    memory (the twin its last span too) and it runs again; where it still does not fit, it is made on the CPU, said
    in a note, and every later read call's goes there directly; the errors come back where the outputs are."""
    from types import SimpleNamespace

    from validator.evaluate.judge.run import Evaluation

    devices: list[str] = []
    failures = [1]

    class Scarce(torch.nn.Module):
        """Out of memory on its first `failures[0]` calls, as on a GPU beside both runners."""

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            devices.append(str(x.device))
            if len(devices) <= failures[0]:
                raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 12.00 GiB")
            return x * 2

    notes: list[str] = []
    asked: list[tuple[str, dict]] = []

    def runner(name: str) -> SimpleNamespace:
        return SimpleNamespace(request=lambda header: asked.append((name, header)) or {"ok": True})

    released: list[bool] = []
    judge = SimpleNamespace(float64=Float64(Scarce(), sample=10), inputs=lambda spec: [torch.rand(8, 8)],
                            sync=lambda release=False: released.append(release), twin=runner("twin"),
                            runner=runner("kernel"),
                            note=lambda code, message, severity="info": notes.append(f"{code}: {message}"))
    Evaluation.float64_reference(judge, {}, 1)  # fits once both released
    assert asked == [("twin", {"op": "release", "drop": True}), ("kernel", {"op": "release", "drop": False})]
    assert judge.float64.device is None and notes == [] and len(devices) == 2
    assert released == [True, True]  # after the failed pass, and the pool of the one that fitted (setup's trial too)

    devices.clear(), asked.clear()
    failures[0] = 2  # does not fit even then: the CPU, for this call and every later one
    first = Evaluation.float64_reference(judge, {}, 2)
    assert judge.float64.device == torch.device("cpu") and len(notes) == 1 and "on the CPU" in notes[0]
    assert len(asked) == 2  # released once, not again before the CPU
    Evaluation.float64_reference(judge, {}, 3)
    assert len(devices) == 4 and len(notes) == 1 and len(asked) == 2
    out = torch.rand(8, 8)
    assert judge.float64.errors(first, [out], [out]) is not None

    def oom(*args: object) -> None:
        raise torch.OutOfMemoryError("out of host memory")

    judge.float64.model = oom  # already on the CPU: a second failure is not hidden
    with pytest.raises(torch.OutOfMemoryError):
        Evaluation.float64_reference(judge, {}, 4)


class _Recurrent(torch.nn.Module):
    """Keeps its initial state as a plain tensor attribute, as KernelBench's LSTM and GRU problems do (`self.h0`)."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 8))
        self.h0 = torch.randn(4, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x @ self.weight + self.h0 @ self.weight  # a matmul does not promote: both must be float64


class _Closure(torch.nn.Module):
    """Reaches a submodule through a lambda made in __init__, as minGPT's block (level3/44) does: a deepcopy's lambda
    still calls the original's float32 layer."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(5)
        self.fc = torch.nn.Linear(8, 8)
        fc = self.fc
        self.mlpf = lambda x: torch.relu(fc(x))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.mlpf(x)


def _loaded_float64(reference: torch.nn.Module, fresh) -> tuple[object, list[str]]:
    """`Evaluation.load_float64` on `reference` (a float32 Model already called), `fresh` making a new instance from
    the run's seed; the judge's float64 pass on the CPU."""
    from types import SimpleNamespace

    from validator.evaluate.judge.run import Evaluation

    notes: list[str] = []
    judge = SimpleNamespace(float32=True, reference=reference, reference_model=fresh, protocol=PROTOCOL, float64=None,
                            spec=lambda n, purpose="call": {}, inputs=lambda spec: [torch.rand(4, 8)],
                            sync=lambda release=False: None, note=lambda code, message, severity="info":
                            notes.append(f"{code}: {message}"))  # fmt: skip
    judge.float64_reference = lambda spec, seed: Evaluation.float64_reference(judge, spec, seed)
    Evaluation.load_float64(judge)
    return judge, notes


@pytest.mark.parametrize("model", [_Recurrent, _Closure])
def test_the_float64_reference_runs_models_that_dot_double_alone_leaves_half_in_float32(model):
    """Before protocol 25 the judge skipped the precision check and the moving-part test on these (9 recurrent problems
    of 91bfc2c, minGPT's block): `.double()` leaves a plain tensor attribute and a lambda's captured layer in float32,
    so the float64 pass failed on mixed dtypes."""
    torch.manual_seed(3)
    reference = model()
    x = torch.rand(4, 8)
    ref32 = reference(x).detach()
    judge, notes = _loaded_float64(reference, model)
    assert notes == [] and judge.float64 is not None
    picked = judge.float64.reference([x.clone()], seed=1)
    assert picked[0][1].dtype == torch.float64
    assert normwise_error(ref32, picked[0][1]) < 1e-6  # the same function, in float64
    assert reference(x).dtype == torch.float32  # the judge's fp32 reference is left as it was


def test_a_reference_that_cannot_run_in_float64_only_loses_the_float64_checks_and_says_so():
    class Integer(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x @ torch.ones(8, 8, dtype=torch.float32)  # a float32 constant made in forward

    judge, notes = _loaded_float64(Integer(), Integer)
    assert judge.float64 is None and len(notes) == 1
    assert notes[0].startswith("precision-check: skipped: the reference fails in float64")
