"""Every call's inputs, and which calls the judge reads: one schedule for all calls of the kernel.

There is one kind of call. Call n of the kernel, and of the twin's reference on the same spec, gets a fresh draw of
the problem's own `get_inputs()` from a secret seed, turned into one of the problem's input kinds: upstream's draw as
it is, or a hidden variant (negated, standard-normal, scaled; `input_variants`). The first calls carry the required
trials (KernelBench's `upstream_trials` draws and one call of each variant) in a secret order; every later call draws
its kind uniformly from the same list. Every call is timed; which calls the judge reads is decided after the span
that holds them has committed to its outputs (`read`). The kind of a call is no secret from the kernel, whose inputs'
values show it: what it cannot know is whether a call will be read, and every kind is timed and read alike, so there
is no kind of call on which cheating is safe.

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
        from validator.evaluate.worker.correctness import derive_seed

        return derive_seed(self.job.seed, purpose, index)

    @cached_property
    def kinds(self) -> tuple[str, ...]:
        """The problem's input kinds: upstream's draw, then the hidden variants and scales its overlay allows."""
        from validator.catalogue.problem_module import problem_hidden_variants, problem_input_scales
        from validator.evaluate.worker.input_variants import HIDDEN

        scales = problem_input_scales(self.problem, self.protocol.input_scales)
        return ("upstream", *problem_hidden_variants(self.problem, HIDDEN),
                *(f"scaled-x{s:g}" for s in scales if s != 1.0))

    @cached_property
    def required(self) -> list[str]:
        """The first calls' kinds, in the run's secret order: `upstream_trials` of upstream's draw (KernelBench's
        correctness trials) and one of each other kind."""
        first = ["upstream"] * self.protocol.upstream_trials + list(self.kinds[1:])
        random.Random(self.seed("order-of-trials")).shuffle(first)
        return first

    def kind(self, n: int, purpose: str = "call") -> str:
        if purpose == "call" and n < len(self.required):
            return self.required[n]
        if purpose not in ("call", "alone"):  # the profiler pass: nothing of it is judged or timed
            return "upstream"
        return self.kinds[self.seed(f"{purpose}-kind", n) % len(self.kinds)]

    def spec(self, n: int, purpose: str = "call") -> dict[str, Any]:
        """How the runner makes call n's inputs: a seed and a kind, never the tensors. The reference's spans before
        the kernel loads (`purpose` "alone") mix the kinds as the later calls do, so that a baseline costs what a
        round's call costs (a variant's making is a pass over the inputs inside the span)."""
        return {"seed": self.seed(purpose, n), "variant": self.kind(n, purpose),
                "variant_seed": self.seed(f"{purpose}-variant", n)}

    def inputs(self, spec: dict[str, Any]) -> list[Any]:
        """The judge's own copy of the inputs `spec` makes in a runner (`runner.Runner.make`)."""
        from validator.catalogue.problem_module import make_inputs
        from validator.evaluate.worker.input_variants import make_variant

        made = make_inputs(self.problem, int(spec["seed"]), self.device, generate_on_device=self.gpu)
        return make_variant(made, str(spec["variant"]), int(spec["variant_seed"]), consume=True)

    def read(self, n: int, rng: random.Random, share: float, calls: int) -> bool:
        """Whether the judge reads call n, drawn once its span has committed: the required trials always; a later
        call with chance `share / calls`, so about `share` of a span's calls are read per span
        (`judge_timing.read_share`)."""
        return n < len(self.required) or rng.random() < share / max(calls, 1)
