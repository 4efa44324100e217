"""Why does torch.compile fail the fp32 tolerance on a problem? Honest rounding, or a wrong result?

For each problem (full size, on the GPU, TF32 off as in the worker) and each of a few input draws (each
turned into the judge's trial variant in turn: upstream's draws, negated, standard-normal, then the input
scales the problem allows, made by `input_variants.trial_variants`/`make_variant` as the judge makes them),
this compares four fp32 computations of
the same Model with the same weights against each other and against a float64 run of the Model:

    eager       the reference as the harness runs it (cuDNN's default algorithm choice)
    compiled    torch.compile of the reference's forward (inductor, default mode), as the baseline row does
    again       the compiled forward called a second time on the same inputs (is it deterministic?)
    benchmark   eager again with cudnn.benchmark on: other convolution algorithms, an honest reordering

and prints, per draw, whether each passes the protocol's comparison against eager (the harness's verdict),
whether eager itself passes against float64 rounded to fp32 (if not, no differently rounded fp32 kernel
can be expected to pass against eager: the problem is ill-conditioned at this tolerance), and each one's
norm-wise relative error against float64.

    python bench/compile_disagreement.py level2/99_Matmul_GELU_Softmax level3/10_ResNet101 --draws 6
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

import torch  # noqa: E402

from validator.catalogue.problem_module import load_problem_module, make_inputs, make_model, problem_input_scales  # noqa: E402
from validator.evaluate.correctness import (  # noqa: E402
    check_values,
    float64_inputs,
    output_tensors,
)
from validator.evaluate.input_variants import make_variant, trial_variants  # noqa: E402
from validator.evaluate.judge.precision import normwise_error  # noqa: E402
from validator.protocol import PROTOCOL  # noqa: E402


def verdict(outs: list[torch.Tensor], expected: list[torch.Tensor]) -> str:
    check = check_values(outs, expected, PROTOCOL.tolerances)
    return "pass" if check.ok else f"FAIL: {check.message}"


def error64(outs: list[torch.Tensor], ref64: list[torch.Tensor]) -> float:
    return max(normwise_error(o, r) for o, r in zip(outs, ref64, strict=True))


def run(model: Any, inputs: list[Any]) -> list[torch.Tensor]:
    return [t.detach().clone() for t in output_tensors(model(*inputs))[0]]


def diagnose(key: str, draws: int, device: str) -> list[dict[str, Any]]:
    on_gpu = device == "cuda"
    module = load_problem_module(REPO / "problems" / f"{key}.py", reduced=not on_gpu)
    model = make_model(module, 0, device, generate_on_device=on_gpu)
    model64 = copy.deepcopy(model).double()
    compiled = torch.compile(model.forward)
    variants = trial_variants(problem_input_scales(module, PROTOCOL.input_scales), upstream=1)  # each one once
    rows = []
    for draw in range(draws):
        variant = variants[draw % len(variants)]  # the judge's trial variants, in its order
        drawn = make_inputs(module, 1000 + draw, device, generate_on_device=on_gpu)
        inputs = make_variant(drawn, variant, 2000 + draw)
        torch.backends.cudnn.benchmark = False
        eager, first, again = run(model, inputs), run(compiled, inputs), run(compiled, inputs)
        torch.backends.cudnn.benchmark = True
        bench = run(model, inputs)
        torch.backends.cudnn.benchmark = False
        ref64 = run(model64, float64_inputs(inputs))
        truth32 = [r.to(e.dtype) for r, e in zip(ref64, eager, strict=True)]
        rows.append({
            "problem": key,
            "draw": draw,
            "variant": variant,
            "compiled_vs_eager": verdict(first, eager),
            "benchmark_vs_eager": verdict(bench, eager),
            "eager_vs_float64": verdict(eager, truth32),
            "compiled_vs_float64": verdict(first, truth32),
            "compiled_deterministic": all(torch.equal(a, b) for a, b in zip(first, again, strict=True)),
            "err64_eager": error64(eager, ref64),
            "err64_compiled": error64(first, ref64),
            "err64_benchmark": error64(bench, ref64),
        })
        print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("problems", nargs="+", help="catalogue keys, e.g. level3/10_ResNet101")
    parser.add_argument("--draws", type=int, default=6)
    parser.add_argument("--out", type=Path, help="write every row as JSON here")
    parser.add_argument("--cpu", action="store_true", help="reduced sizes on the CPU (a check of this script)")
    args = parser.parse_args(argv)
    torch.backends.cuda.matmul.allow_tf32 = False  # as the worker runs (validator/evaluate/anticheat.py)
    torch.backends.cudnn.allow_tf32 = False
    rows = []
    with torch.no_grad():
        for key in args.problems:
            rows += diagnose(key, args.draws, "cpu" if args.cpu else "cuda")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    print(f"\n{'problem':34} draw {'variant':15}  compiled/eager  bench/eager  eager/f64  compiled/f64  determ  "
          "err64 eager  compiled  bench")
    for r in rows:
        short = {k: r[k].split(":")[0] for k in ("compiled_vs_eager", "benchmark_vs_eager", "eager_vs_float64",
                                                  "compiled_vs_float64")}
        print(f"{r['problem'][:34]:34} {r['draw']:4} {r['variant'][:15]:15}  {short['compiled_vs_eager']:14}  "
              f"{short['benchmark_vs_eager']:11}  {short['eager_vs_float64']:9}  {short['compiled_vs_float64']:12}  "
              f"{r['compiled_deterministic']!s:6}  {r['err64_eager']:.2e}    {r['err64_compiled']:.2e}  "
              f"{r['err64_benchmark']:.2e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
