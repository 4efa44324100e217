"""bench/upstream_side_by_side.py's planning and its cost medians, on fake upstream checkouts of both layouts (the
device part, both evaluations on one GPU, is the lead's to run)."""

from __future__ import annotations

from pathlib import Path

from tests.paths import REPO, bench_module

EXAMPLES = REPO / "submissions" / "kernelbench-team-examples.json"


def _bench():
    return bench_module("upstream_side_by_side")


def _checkout(root: Path, commit: str) -> Path:
    """An export with the layout of `commit` (423217d: src/kernelbench/eval.py; 91bfc2c: src/eval.py) and the
    examples' problem files."""
    upstream = root / commit
    evaluator = upstream / "src" / ("kernelbench/eval.py" if commit == "423217d" else "eval.py")
    evaluator.parent.mkdir(parents=True)
    evaluator.write_text("")
    (upstream / "COMMIT").write_text(commit)
    for level, name in ((1, "19_ReLU"), (1, "23_Softmax"), (1, "40_LayerNorm"), (2, "76_Gemm_Add_ReLU")):
        target = upstream / "KernelBench" / f"level{level}" / f"{name}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes((REPO / "problems" / f"level{level}" / f"{name}.py").read_bytes())
    return upstream


def _plan(tmp_path: Path, commit: str) -> str:
    bench = _bench()
    args = bench.parse_args([str(EXAMPLES), "--track", commit, "--upstream", str(_checkout(tmp_path, commit)),
                             "--work", str(tmp_path / "work"), "--dry-run"])
    return "\n".join(bench.plan(args, bench.open_track(args, commit)))


def test_triton_kernels_are_not_sent_to_an_upstream_that_execs_kernels_from_a_string(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "91bfc2c")
    skipped = [line for line in plan.splitlines() if "cannot load a Triton kernel" in line]
    assert len(skipped) == 3, plan  # Softmax, LayerNorm and the Gemm are Triton; ReLU is CUDA
    assert plan.count("# timed, bound") == 1 and "level1/19_ReLU" not in "".join(skipped)


def test_every_kernel_is_paired_where_upstream_loads_triton_from_a_file(tmp_path: Path) -> None:
    plan = _plan(tmp_path, "423217d")
    assert "cannot load a Triton kernel" not in plan and plan.count("# timed, bound") == 4


def test_a_kernel_upstream_reported_uncompiled_is_no_cost_pair() -> None:
    bench = _bench()

    def row(key: str, compiled: bool, ours_s: float, upstream_s: float):
        return bench.Row("91bfc2c", key, 1, 1, "cuda", "k.py", upstream_s=upstream_s, ours_s=ours_s,
                         upstream={"eval_s": 1.0, "result": {"compiled": compiled, "correctness": compiled}})

    rows = [row("level1/1", True, 10.0, 20.0), row("level1/2", False, 30.0, 10.0)]
    figures = bench.medians(rows)
    assert figures["pairs"] == 1 and figures["median_ratio"] == 0.5 and figures["max_ratio"] == 0.5
    assert "left out of the medians" in bench.table(rows)[2] and "left out" not in bench.table(rows)[1]
