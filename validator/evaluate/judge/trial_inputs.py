"""Every call's inputs, and which calls the judge reads: one schedule for all calls of the kernel.

There is one kind of call. Call n of the kernel, and of the twin's reference on the same spec, gets a fresh draw of
the problem's own `get_inputs()` from a secret seed, turned into one of the problem's input kinds: upstream's draw as
it is, or a hidden variant (negated, standard-normal, scaled; `input_variants`). The first calls carry the required
trials (KernelBench's `upstream_trials` draws and one call of each variant) in a secret order, in the first block's
warm-up rounds; every later call draws its kind uniformly from the kinds on which reduced precision shows
(`timed_kinds`). Every call is timed; which calls the judge reads is decided after the span
that holds them has committed to its outputs (`read`). The kind of a call is no secret from the kernel, whose inputs'
values show it: what it cannot know is whether a call will be read; every timed call is of a kind on which each rule
has its power, and the other kinds are read whenever they run.

A mixin of `run.Evaluation`, which provides `job`, `protocol`, `problem`, `device` and `gpu`.
"""

from __future__ import annotations

import random
from functools import cached_property
from typing import Any


class TrialInputs:
    job: Any
    protocol: Any
    problem: Any
    device: Any
    gpu: bool

    def seed(self, purpose: str, index: int = 0) -> int:
        from validator.evaluate.correctness import derive_seed

        return derive_seed(self.job.seed, purpose, index)

    reference: Any = None
    """The reference model, once the judge has built it; a warm-up, which judges nothing, never does."""

    @cached_property
    def kinds(self) -> tuple[str, ...]:
        """The problem's input kinds: upstream's draw, then the hidden variants and scales its overlay allows, less
        those on which the reference leaves float range (`out_of_range`)."""
        return tuple(kind for kind in self.allowed_kinds() if kind not in self.out_of_range)

    def allowed_kinds(self) -> tuple[str, ...]:
        from validator.catalogue.problem_module import problem_hidden_variants, problem_input_scales
        from validator.evaluate.input_variants import HIDDEN, trial_variants

        scales = problem_input_scales(self.problem, self.protocol.input_scales)
        return trial_variants(scales, problem_hidden_variants(self.problem, HIDDEN))

    @cached_property
    def out_of_range(self) -> tuple[str, ...]:
        """The variants on which the reference's own output holds ±Inf while on upstream's draw it holds none, from one
        draw of each before the kernel loads. There the inputs are scaled past what the problem's maths carries in
        float32, and which positions overflow depends on the order of the arithmetic: an honest sequential product of
        256 draws times 3 (the 2024 board's level1/50) overflowed where the reference's tree did not. Such a variant
        tests float32's range, not the kernel, so no call is made of it; a variant that keeps the reference finite
        still catches a kernel that overflows (a softplus as log(1 + exp(x)) at x100). None without a reference."""
        import torch

        from validator.evaluate.correctness import reference_output

        def overflows(n: int, kind: str) -> bool:  # on a draw no call gets (the profiler's branch of `kind`)
            outs, _ = reference_output(self.reference, self.inputs({**self.spec(n, "range"), "variant": kind}))
            return any(o.is_floating_point() and bool(torch.isinf(o).any()) for o in outs)

        kinds = self.allowed_kinds()
        if self.reference is None or overflows(0, kinds[0]):  # upstream's draw leaves it: ±Inf is its answer
            return ()
        return tuple(kind for n, kind in enumerate(kinds[1:], 1) if overflows(n, kind))

    @cached_property
    def required(self) -> list[str]:
        """The first calls' kinds, in the run's secret order: `upstream_trials` of upstream's draw (KernelBench's
        correctness trials) and one of each other kind."""
        first = ["upstream"] * self.protocol.upstream_trials + list(self.kinds[1:])
        random.Random(self.seed("order-of-trials")).shuffle(first)
        return first

    @cached_property
    def timed_kinds(self) -> tuple[str, ...]:
        """The kinds the calls after the required trials draw from: every kind where upstream's draw has inputs of
        both signs; else the standard-normal draw alone, where the problem allows it. Reduced precision shows only
        where sums cancel: on a K=4096 matmul of U[0,1) draws fp16 operands are as accurate as an fp32 kernel that
        sums in another order (both near 1e-5 of the output, `judge/precision.py`), so a kernel could take fp16
        wherever its inputs are all of one sign and no check could tell. Those calls are then the required trials
        alone, all read, none in a recorded round."""
        import torch

        from validator.catalogue.problem_module import make_inputs

        draw = make_inputs(self.problem, self.seed("signs"), self.device, generate_on_device=self.gpu)
        mixed = any(bool((x < 0).any()) and bool((x > 0).any()) for x in draw
                    if isinstance(x, torch.Tensor) and x.is_floating_point())
        del draw
        return self.kinds if mixed or "standard-normal" not in self.kinds else ("standard-normal",)

    def kind(self, n: int, purpose: str = "call") -> str:
        if purpose == "call" and n < len(self.required):
            return self.required[n]
        if purpose not in ("call", "alone"):  # the profiler pass: nothing of it is judged or timed
            return "upstream"
        return self.timed_kinds[self.seed(f"{purpose}-kind", n) % len(self.timed_kinds)]

    def spec(self, n: int, purpose: str = "call") -> dict[str, Any]:
        """How the runner makes call n's inputs: a seed and a kind, never the tensors. The reference's spans before
        the kernel loads (`purpose` "alone") mix the kinds as the later calls do, so that its warm time is what a
        round's call costs (a variant's making is a pass over the inputs inside the span)."""
        return {"seed": self.seed(purpose, n), "variant": self.kind(n, purpose),
                "variant_seed": self.seed(f"{purpose}-variant", n)}

    def inputs(self, spec: dict[str, Any]) -> list[Any]:
        """The judge's own copy of the inputs `spec` makes in a runner (`runner.Runner.make`)."""
        from validator.catalogue.problem_module import make_inputs
        from validator.evaluate.input_variants import make_variant

        made = make_inputs(self.problem, int(spec["seed"]), self.device, generate_on_device=self.gpu)
        return make_variant(made, str(spec["variant"]), int(spec["variant_seed"]), consume=True)

    def read(self, n: int, rng: random.Random, share: float, calls: int) -> bool:
        """Whether the judge reads call n, drawn once its span has committed: the required trials always; a later
        call with chance `share / calls`, so about `share` of a span's calls are read per span
        (`judge_timing.read_share`)."""
        return n < len(self.required) or rng.random() < share / max(calls, 1)
