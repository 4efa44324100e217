"""Hidden input variants: same shapes and dtypes, floating inputs changed, integer and bool inputs kept."""

from __future__ import annotations

import pytest
import torch

from validator.evaluate.input_variants import HIDDEN, make_variant, trial_variants
from validator.protocol import PROTOCOL


def _upstream_like() -> list:
    torch.manual_seed(0)
    return [torch.rand(4, 8), torch.randint(0, 5, (4,)), torch.rand(4) > 0.5, torch.rand(2, 3).double(), 7, 0.5]


def test_the_issue_s_variants_are_all_judged_and_upstream_draws_as_often_as_kernelbench_does() -> None:
    judged = trial_variants(PROTOCOL.input_scales, upstream=PROTOCOL.upstream_trials)
    assert {"scaled-x3", "scaled-x0.01", "negated", "standard-normal"} <= set(judged)
    assert judged[:5] == ("upstream",) * 5 and judged.count("upstream") == 5


@pytest.mark.parametrize("variant", [*HIDDEN, "scaled-x3", "scaled-x0.01"])
def test_integer_bool_and_plain_inputs_are_untouched_and_shapes_and_dtypes_kept(variant: str) -> None:
    inputs = _upstream_like()
    made = make_variant(inputs, variant, seed=1)
    assert made[1] is inputs[1] and made[2] is inputs[2] and made[4:] == [7, 0.5]
    for before, after in zip(inputs[:4], made[:4], strict=True):
        assert (after.shape, after.dtype, after.device) == (before.shape, before.dtype, before.device)
    assert not torch.equal(made[0], inputs[0]) and not torch.equal(made[3], inputs[3])


def test_scaling_and_negation_are_exact_and_leave_the_given_inputs_alone() -> None:
    inputs = _upstream_like()
    kept = inputs[0].clone()
    assert torch.equal(make_variant(inputs, "scaled-x3")[0], kept * 3)
    assert torch.equal(make_variant(inputs, "scaled-x0.01")[0], kept * 0.01)
    assert torch.equal(make_variant(inputs, "negated")[0], -kept)
    assert torch.equal(inputs[0], kept)


def test_the_standard_normal_draw_is_seeded_and_unlike_uniform_inputs() -> None:
    inputs = [torch.rand(256, 256)]
    first, again = make_variant(inputs, "standard-normal", 5)[0], make_variant(inputs, "standard-normal", 5)[0]
    other = make_variant(inputs, "standard-normal", 6)[0]
    assert torch.equal(first, again) and not torch.equal(first, other)
    assert first.min() < 0 and abs(first.mean().item()) < 0.05 and abs(first.std().item() - 1) < 0.05


def test_nested_inputs_are_followed_and_an_unknown_variant_is_refused() -> None:
    made = make_variant([(torch.ones(2), torch.ones(2, dtype=torch.int32))], "negated")
    assert torch.equal(made[0][0], -torch.ones(2)) and made[0][1].dtype == torch.int32 and made[0][1].sum() == 2
    with pytest.raises(ValueError, match="unknown input variant"):
        make_variant([torch.ones(1)], "doubled")


def test_each_trial_takes_upstream_then_the_hidden_variants_then_the_scales_the_problem_allows() -> None:
    assert trial_variants((1.0, 0.01, 3.0)) == ("upstream", "negated", "standard-normal", "scaled-x0.01",
                                                 "scaled-x3")
    assert trial_variants((1.0, 0.999)) == ("upstream", "negated", "standard-normal", "scaled-x0.999")
    assert trial_variants((1.0,), upstream=3) == ("upstream", "upstream", "upstream", "negated", "standard-normal")


def test_any_positive_scale_is_a_variant_and_anything_else_is_refused() -> None:
    kept = torch.rand(4, 4)
    assert torch.equal(make_variant([kept], "scaled-x0.999")[0], kept * 0.999)
    assert make_variant([kept], "upstream")[0] is kept
    for bad in ("scaled-x-2", "scaled-xabc", "halved", "scaled-x0"):
        with pytest.raises(ValueError, match="unknown input variant"):
            make_variant([kept], bad)


@pytest.mark.parametrize("variant", [*HIDDEN, "scaled-x3", "scaled-x0.01"])
def test_a_consumed_draw_is_changed_in_place_to_the_values_a_copy_gets(variant: str) -> None:
    # the judge and the runner draw each trial's inputs for that trial alone: no second copy of 16 GiB
    copied = make_variant(_upstream_like(), variant, seed=3)
    drawn = _upstream_like()
    consumed = make_variant(drawn, variant, seed=3, consume=True)
    assert consumed[0] is drawn[0] and consumed[3] is drawn[3]
    for a, b in zip(copied[:4], consumed[:4], strict=True):
        assert torch.equal(a, b) and a.dtype == b.dtype


@pytest.mark.parametrize("variant", [*HIDDEN, "scaled-x3"])
def test_inputs_on_one_storage_are_copied_even_when_consumed(variant: str) -> None:
    def aliased() -> list:
        torch.manual_seed(0)
        x = torch.rand(4, 6)
        return [x, x, x[:, :3], x.T]  # one tensor twice, and views of it

    copied = make_variant(aliased(), variant, seed=3)
    consumed = make_variant(aliased(), variant, seed=3, consume=True)
    for a, b in zip(copied, consumed, strict=True):
        assert torch.equal(a, b)
    for odd in ([torch.rand(3, requires_grad=True)], [torch.rand(1, 3).expand(4, 3)]):  # cannot be written
        assert torch.equal(make_variant(odd, variant, 3, consume=True)[0], make_variant(odd, variant, 3)[0])


@pytest.mark.gpu
@pytest.mark.parametrize("variant", [*HIDDEN, "scaled-x3"])
def test_a_consumed_draw_on_the_gpu_has_the_values_a_copy_gets(variant: str) -> None:
    def drawn() -> list:
        torch.manual_seed(0)
        return [torch.rand(1 << 20, device="cuda"), torch.rand(64, 64, device="cuda").half()]

    copied = make_variant(drawn(), variant, seed=3)
    consumed = make_variant(drawn(), variant, seed=3, consume=True)
    for a, b in zip(copied, consumed, strict=True):
        assert torch.equal(a, b) and a.dtype == b.dtype
