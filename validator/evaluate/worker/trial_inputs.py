"""The judge's inputs: every call's seed derived from the job's secret, the inputs the judge makes from it, and
the request that lets the runner make the very same ones (`spec`: a seed and a variant, never the tensors).

A mixin of `run.Evaluation`, which provides `job`, `protocol`, `problem`, `device` and `gpu`.
"""

from __future__ import annotations

from typing import Any


def span_purpose(purpose: str, call: int) -> str:
    """The seeds of call `call` of a timed span: a span's first call keeps the purpose's own."""
    return purpose if call == 0 else f"{purpose}-{call}"


class TrialInputs:
    job: Any
    protocol: Any
    problem: Any
    device: Any
    gpu: bool

    def seed(self, purpose: str, index: int = 0) -> int:
        from validator.evaluate.worker.correctness import derive_seed

        return derive_seed(self.job.seed, purpose, index)

    def spec(self, purpose: str, index: int, scale: float = 1.0, widen: int | None = None) -> dict[str, Any]:
        """How the runner makes the same inputs as `inputs(purpose, index, scale)`: one call's seed only."""
        return {"seed": self.seed(purpose, index), "scale": scale, "widen": widen}

    def trial_variant(self, trial: int) -> str:
        return self.trial_variants()[trial]

    def trial_variants(self) -> tuple[str, ...]:
        from validator.catalogue.problem_module import problem_hidden_variants
        from validator.evaluate.worker.input_variants import HIDDEN, trial_variants

        return trial_variants(self.input_scales(), problem_hidden_variants(self.problem, HIDDEN),
                              upstream=self.protocol.upstream_trials)

    def trial_spec(self, trial: int) -> dict[str, Any]:
        """How the runner makes the same inputs as `trial_inputs(trial)`."""
        return {**self.spec("trial", trial), "variant": self.trial_variant(trial),
                "variant_seed": self.seed("variant", trial)}

    def inputs(self, purpose: str, index: int, scale: float = 1.0) -> list[Any]:
        from validator.catalogue.problem_module import make_inputs
        from validator.evaluate.worker.correctness import scale_floating

        made = make_inputs(self.problem, self.seed(purpose, index), self.device, generate_on_device=self.gpu)
        return scale_floating(made, scale)

    def trial_inputs(self, trial: int) -> list[Any]:
        """Correctness trial `trial`: a fresh draw of the problem's own inputs, turned into the trial's variant
        (upstream's draw, negated, standard-normal, or a scale the problem allows)."""
        from validator.evaluate.worker.input_variants import make_variant

        return make_variant(self.inputs("trial", trial), self.trial_variant(trial), self.seed("variant", trial),
                            consume=True)

    def input_scales(self) -> tuple[float, ...]:
        from validator.catalogue.problem_module import problem_input_scales

        return problem_input_scales(self.problem, self.protocol.input_scales)
