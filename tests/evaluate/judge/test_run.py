"""The worker as the engine runs it: `python -m validator.evaluate.judge.run JOB.json OUT.json` writes one
ProblemResult and exits 0 whatever the kernel did; bad invocations exit non-zero."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from tests.paths import REPO
from validator.evaluate.jobs import Job, write_job
from validator.evaluate.judge import run as worker
from validator.evaluate.judge.stops import Stop, describe
from validator.isolation.bwrap import machine_isolation
from validator.protocol import PROTOCOL, protocol_from_dict
from validator.results.records import Status, problem_from_dict
from validator.submission.kernel_names import own_kernel_names

EXAMPLES = REPO / "submissions" / "kernelbench-team-examples"
TRITON_EXAMPLES = [
    ("level1/23_Softmax", "level1_23_softmax_triton.py"),
    ("level1/40_LayerNorm", "level1_40_layernorm_triton.py"),
    ("level2/76_Gemm_Add_ReLU", "level2_76_gemm_add_relu_triton.py"),
]
ALL_EXAMPLES = [("level1/19_ReLU", "level1_19_relu_cuda.py"), *TRITON_EXAMPLES]


def make_job(problem: str, kernel: Path, tmp: Path, *, interpret: bool, protocol: dict | None = None) -> Job:
    level, rest = problem.split("/")
    problem_path = REPO / "problems" / f"{problem}.py"
    source = kernel.read_text(encoding="utf-8")
    return Job(
        key=problem, level=int(level.removeprefix("level")), problem_id=int(rest.split("_")[0]),
        problem_path=str(problem_path), problem_sha256=hashlib.sha256(problem_path.read_bytes()).hexdigest(),
        kernel_path=str(kernel), kernel_sha256=hashlib.sha256(source.encode()).hexdigest(),
        backend="cuda" if "cuda" in kernel.name else "triton", extensions_dir=str(tmp / "ext"), seed=20261122,
        protocol=protocol or PROTOCOL.to_dict(), own_kernel_names=own_kernel_names(source), interpret=interpret,
        sandbox=machine_isolation().sandbox,
    )  # fmt: skip


def start_worker(job: Job, tmp: Path) -> tuple[subprocess.Popen, Path]:
    tmp.mkdir(parents=True, exist_ok=True)
    write_job(job, tmp / "job.json")
    env = {**os.environ, "PYTHONPATH": str(REPO), "TORCH_EXTENSIONS_DIR": job.extensions_dir}
    if job.interpret:
        env["TRITON_INTERPRET"] = "1"
    command = [sys.executable, "-m", "validator.evaluate.judge.run", str(tmp / "job.json"), str(tmp / "out.json")]
    process = subprocess.Popen(command, cwd=tmp, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return process, tmp / "out.json"


def finish(process: subprocess.Popen, out: Path, timeout: float) -> dict:
    log, _ = process.communicate(timeout=timeout)
    assert process.returncode == 0, log.decode(errors="replace")[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_the_example_triton_kernels_pass_every_check_in_cpu_interpret_mode(tmp_path: Path):
    for problem, name in TRITON_EXAMPLES:  # one at a time: three judges and runners at once on a 2-core CI
        # machine delayed every call of an honest kernel past the CPU timing bound's allowance
        data = finish(*start_worker(make_job(problem, EXAMPLES / name, tmp_path, interpret=True), tmp_path / name),
                      timeout=300)
        assert data["status"] == "correct", (name, data["error"])
        assert [f for f in data["flags"] if f["severity"] != "info"] == [], name
        assert data["key"] == problem and data["max_abs_error"] is not None
        assert {f["code"] for f in data["flags"]} >= {"precision-check", "timing-meaningless", "sandbox"}
        result = problem_from_dict(data)  # the engine reads it back with the results module
        assert result.status is Status.CORRECT and result.reference is None


@pytest.mark.slow
def test_the_judge_measures_only_in_its_turn_and_gives_the_turn_back(tmp_path: Path):
    import fcntl
    import time

    turn = tmp_path / "gpu-0"
    turn.touch()
    held = os.open(turn, os.O_RDWR)
    fcntl.flock(held, fcntl.LOCK_EX)  # another problem's judge measuring
    problem, name = TRITON_EXAMPLES[0]
    job = replace(make_job(problem, EXAMPLES / name, tmp_path, interpret=True), gpu_turn=str(turn), turn_limit_s=300)
    process, out = start_worker(job, tmp_path / "judge")
    time.sleep(8.0)  # the judge's start (imports, its runner's) takes about 3 s here
    assert process.poll() is None and not out.exists()  # waiting: nothing measured yet
    os.close(held)
    data = finish(process, out, timeout=300)
    assert data["status"] == "correct", data["error"]
    assert data["phases"]["take_gpu"] > 1.0 and list(data["phases"]).index("take_gpu") < \
        list(data["phases"]).index("compute_references")
    again = os.open(turn, os.O_RDWR)
    fcntl.flock(again, fcntl.LOCK_EX | fcntl.LOCK_NB)  # given back: taken at once
    os.close(again)


def test_bad_usage_and_an_unreadable_job_exit_2_without_a_result(tmp_path: Path, capsys):
    assert worker.main([]) == 2
    assert worker.main([str(tmp_path / "missing.json"), str(tmp_path / "out.json")]) == 2
    (tmp_path / "bad.json").write_text("{not json")
    assert worker.main([str(tmp_path / "bad.json"), str(tmp_path / "out.json")]) == 2
    assert not (tmp_path / "out.json").exists()
    assert "usage" in capsys.readouterr().err


def test_a_problem_that_cannot_load_is_a_harness_error_not_blamed_on_the_kernel(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=True)
    result = worker.evaluate_job(replace(job, problem_path=str(tmp_path / "gone.py")))
    assert result.status is Status.RUNTIME_ERROR
    assert [f.code for f in result.flags if f.code != "sandbox"] == ["harness-error"]


def test_the_protocol_travels_through_the_job_unchanged():
    assert protocol_from_dict(json.loads(json.dumps(PROTOCOL.to_dict()))) == PROTOCOL
    assert protocol_from_dict({}) == PROTOCOL
    assert protocol_from_dict({"time_budget_s": 2.0, "unknown": 1}).time_budget_s == 2.0


class OutOfMemoryError(RuntimeError):
    pass


class CompilationError(Exception):
    pass


@pytest.mark.parametrize(
    ("exc", "status"),
    [
        (OutOfMemoryError("CUDA out of memory. Tried to allocate 2 GiB"), Status.OOM),
        (RuntimeError("DefaultCPUAllocator: can't allocate memory"), Status.OOM),
        (CompilationError("at 3:4: unknown"), Status.COMPILE_ERROR),
        (RuntimeError("CUDA error: an illegal memory access was encountered"), Status.RUNTIME_ERROR),
        (ValueError("shapes do not match"), Status.RUNTIME_ERROR),
    ],
)
def test_exceptions_from_kernel_code_map_to_statuses(exc: Exception, status: Status):
    from validator.evaluate.runner import serve as runner

    assert runner.classify(exc)[0] == status.value


def test_long_error_messages_are_truncated():
    text = describe(RuntimeError("x" * 10_000), limit=200)
    assert len(text) <= 200 and text.endswith("(truncated)")


def _timed_on_cpu(tmp_path: Path, monkeypatch) -> Any:
    """The judge's GPU timing phase, driven on CPU tensors: the runners' CPU clock for both sides, and the bound's
    allowance widened to the CPU's noise."""
    import torch

    from validator.evaluate.judge import timing

    monkeypatch.setattr(timing, "flush_buffer", lambda device, factor: torch.empty(1 << 16))
    monkeypatch.setattr(timing, "flush_bytes", lambda device, factor: 0)
    protocol = PROTOCOL.to_dict() | {"time_budget_s": 2.0, "min_rounds": 5, "max_rounds": 12,
                                     "span_floor_ms": PROTOCOL.interpret_floor_ms,
                                     "span_relative": PROTOCOL.interpret_relative}
    kernel = REPO / "tests" / "redteam" / "control" / "relu_triton.py"
    job = make_job("level1/19_ReLU", kernel, tmp_path, interpret=True, protocol=protocol)
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    evaluation = worker.Evaluation(job, protocol_from_dict(job.protocol), tmp_path)
    try:
        monkeypatch.setattr(evaluation, "sync", lambda release=False: None)
        for phase in ("setup", "start_runner", "compute_references", "load_twin", "load_kernel"):
            evaluation.gpu = phase == "load_twin"  # the GPU path where it differs
            getattr(evaluation, phase)()
        evaluation.gpu = True  # from here on the GPU path: interleaved rounds, a recorded series
        assert evaluation.reference_s > 0
        evaluation.time()
    finally:
        evaluation.close()
    return evaluation.result(1.0)


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_the_timing_phase_interleaves_verifies_and_fills_the_result(tmp_path: Path, monkeypatch):
    result = _timed_on_cpu(tmp_path, monkeypatch)
    assert result.status is Status.CORRECT, result.error
    assert result.reference.n == result.rounds == result.kernel.n == sum(b.rounds for b in result.blocks)
    assert [b.kernel_first for b in result.blocks] == [True, False, True]  # blocks open with alternating sides
    assert all(b.rounds >= 2 and b.attempts == 1 and b.sm_clock_mhz is None for b in result.blocks)
    assert all(b.twin_wait_ms == 0.0 for b in result.blocks)  # the CPU's runner waits for no GPU
    assert "timing-bound" in {f.code for f in result.flags} and "gpu-contention" not in {f.code for f in result.flags}


def test_the_twin_s_warm_time_before_the_kernel_loads_sets_the_calls_per_span(tmp_path: Path, monkeypatch):
    """Two spans of one call warm the twin up and give the reference's warm time (a first call's lazy loading is not
    it), which sets the calls per span and the deadlines; nothing else is timed before the kernel loads."""
    from validator.evaluate.judge.judge_timing import span_calls

    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=False)
    evaluation = worker.Evaluation(job, PROTOCOL)
    evaluation.gpu, evaluation.reference_s, evaluation.call_bytes = True, 0.5, 1 << 20  # a 500 ms first call
    seen: list[tuple[int, bool]] = []

    def span(specs: list, *, fresh: bool) -> tuple[float, float, float, float]:
        seen.append((len(specs), fresh))
        return (9.0 if len(seen) == 1 else 0.05), 0.06, 0.3, 0.0  # the first pays the lazy loading

    monkeypatch.setattr(evaluation, "twin_span", span)
    monkeypatch.setattr(evaluation, "spec", lambda n, purpose="call": {"seed": n, "purpose": purpose})
    evaluation.warm_reference()
    assert seen == [(1, True), (1, False)]
    assert evaluation.span_calls == span_calls(0.05, 1 << 20, PROTOCOL, gpu=True) > 1
    assert evaluation.reference_s == pytest.approx(0.05e-3)  # the deadlines follow the warm call


def test_a_block_whose_twin_span_began_on_a_busy_gpu_holds_a_correct_result_naming_it(tmp_path: Path, monkeypatch):
    """The timing phase turns the blocks the twin still waited in (`JudgeSide.contended`) into a `gpu-contention`
    hold that names the wait and the threshold; a result without them is published."""
    from types import SimpleNamespace

    from validator.evaluate.judge import judge_timing
    from validator.evaluate.judge.timing import Series

    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=False)

    class Side:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            self.unstable, self.contended = [], list(contended)
            self.over_ms = 0.0
            self.unseen_parts = (0.0, 0.0)

        def run(self, protocol: Any, seed: int, *, gpu: bool) -> Series:
            return Series((2.0,) * 10, (1.0,) * 10)

        def describe_bound(self) -> str:
            return "bounded"

    monkeypatch.setattr(judge_timing, "JudgeSide", Side)
    for contended in ([], ["block 2: 1 of 20 spans, round trips of 3.1 ms, after 3 attempts beside 4242 (python)"]):
        evaluation = worker.Evaluation(job, PROTOCOL)
        evaluation.gpu, evaluation.shape, evaluation.device = True, SimpleNamespace(nbytes=16), None
        evaluation.required = []
        evaluation.verdicts = SimpleNamespace(precision="", alive=True)
        monkeypatch.setattr(evaluation, "sync", lambda release=False: None)
        with monkeypatch.context() as patched:
            patched.setattr("validator.evaluate.judge.clocks.device_reader", lambda device: lambda: None)
            evaluation.time()
        evaluation.verdicts = None  # the fake's work done: no trial was judged
        result = evaluation.result(1.0)
        held = [f for f in result.flags if f.code == "gpu-contention"]
        assert (result.status is Status.NEEDS_REVIEW) == bool(contended) == bool(held), result.flags
        if held:
            assert held[0].severity == "warning" and "round trips of 3.1 ms" in held[0].message
            assert f"of at most {PROTOCOL.contention_ms:g} ms within {PROTOCOL.settle_ms:g} ms" in held[0].message
            assert "4242 (python)" in held[0].message and result.speedup == 2.0


def test_an_implausible_speedup_or_unseen_host_time_holds_a_correct_result_for_review(tmp_path: Path):
    from validator.evaluate.judge.timing import Series

    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=False)
    fast = worker.Evaluation(job, PROTOCOL)
    fast.series = Series((20.0,) * 10, (1.0,) * 10)
    held = fast.result(1.0)
    assert (held.status, held.speedup) == (Status.NEEDS_REVIEW, 20.0)
    assert "speedup-review" in {f.code for f in held.flags}
    hidden = worker.Evaluation(job, PROTOCOL)
    hidden.note("speed-of-light", "median 0.01 ms is below the problem's speed-of-light time", "warning")
    assert hidden.result(1.0).status is Status.NEEDS_REVIEW


def test_a_side_stream_found_after_timing_publishes_no_time(tmp_path: Path):
    """The profiler pass runs after timing (phase_order says why), so its rejection arrives with a series already
    measured: the verdict is the rejection and no time or speedup of that series is published."""
    from validator.evaluate.judge.timing import Series

    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=False)
    evaluation = worker.Evaluation(replace(job, own_kernel_names=("relu_kernel",)), PROTOCOL)
    evaluation.series = Series((2.0,) * 10, (1.0,) * 10)
    found = {"own_ms": 1.0, "total_ms": 2.0, "streams": [7, 9], "kernels": ["relu_kernel"],
             "side_work": ["relu_kernel"]}
    evaluation.runner = type("Runner", (), {"request": lambda self, req: {"ok": True, "found": found}})()
    with pytest.raises(Stop) as stop:
        evaluation.attribute()
    evaluation.stopped(stop.value.status, stop.value.code, stop.value.message)
    result = evaluation.result(1.0)
    assert (result.status, result.speedup) == (Status.REJECTED, None)
    assert result.kernel is None and result.reference is None
    assert "side-stream" in {f.code for f in result.flags}


def test_a_correct_kernel_faster_than_the_problem_s_speed_of_light_is_held_for_review(tmp_path: Path):
    """The engine gives each job its problem's least possible time on the hardware (from the manifest); a median
    below it is held (`speed-of-light`), whatever the speedup: a forged or warm-cache time can be modest."""
    from validator.evaluate.judge.timing import Series

    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=False)
    series = Series((2.0,) * 10, (1.0,) * 10)
    # 1.04: within the margin (a kernel streaming a little faster than the copy the ceiling was measured with);
    # 2.5: the reference itself is below it, so the bound overstates this problem's work: noted, not held
    for floor, status in ((1.5, Status.NEEDS_REVIEW), (1.04, Status.CORRECT), (0.5, Status.CORRECT),
                          (None, Status.CORRECT), (2.5, Status.CORRECT)):
        evaluation = worker.Evaluation(replace(job, speed_of_light_ms=floor), PROTOCOL)
        evaluation.series = series
        result = evaluation.result(1.0)
        codes = {f.code for f in result.flags}
        assert (result.status, result.speedup) == (status, 2.0), floor
        assert ("speed-of-light" in codes) == (status is Status.NEEDS_REVIEW), floor
        assert ("speed-of-light-unreliable" in codes) == (floor == 2.5), floor


def test_a_claim_to_beat_the_reference_by_a_kernel_the_judge_s_clock_cannot_resolve_is_held(tmp_path: Path):
    """A kernel whose median is below what the bound could not see of a call (`unseen_ms`) and whose interval
    says it beats the reference is held (`timing-unresolved`); a tie within the noise (PyTorch itself against
    the reference) and a kernel slower than the reference claim nothing and are not; one longer than the unseen
    part is published."""
    from validator.evaluate.judge.timing import Series

    job = make_job("level1/19_ReLU", EXAMPLES / "level1_23_softmax_triton.py", tmp_path, interpret=False)
    tie = [0.0040, 0.0042, 0.0038, 0.0041, 0.0039] * 2
    for ref, ker, status in (([0.08] * 10, [0.01] * 10, Status.NEEDS_REVIEW), ([0.08] * 10, [0.5] * 10, Status.CORRECT),
                             ([0.008] * 10, [0.01] * 10, Status.CORRECT), ([2.0] * 10, [1.0] * 10, Status.CORRECT),
                             (tie, tie[::-1], Status.CORRECT)):
        evaluation = worker.Evaluation(job, PROTOCOL)
        evaluation.series = Series(tuple(ref), tuple(ker))
        evaluation.unseen_parts = (0.3, 0.0)
        result = evaluation.result(1.0)
        assert result.status is status, (ref, ker)
        assert ("timing-unresolved" in {f.code for f in result.flags}) == (status is Status.NEEDS_REVIEW)
    # calls above the twin's by more than the noise, within the skew tolerated: a win is held, a tie is not
    for ref, status in (([2.0] * 10, Status.NEEDS_REVIEW), (tie, Status.CORRECT)):
        evaluation = worker.Evaluation(job, PROTOCOL)
        ker = [1.0] * 10 if status is Status.NEEDS_REVIEW else tie[::-1]
        evaluation.series = Series(tuple(ref), tuple(ker))
        evaluation.unseen_parts, evaluation.over_ms = (0.3, 0.0), 0.12
        result = evaluation.result(1.0)
        assert result.status is status
        held = [f.message for f in result.flags if f.code == "timing-unresolved"]
        assert bool(held) == (status is Status.NEEDS_REVIEW)
        assert not held or "more than the noise allows" in held[0]


@pytest.mark.gpu
def test_the_example_kernels_pass_every_check_on_the_gpu(tmp_path: Path):
    """Full problem sizes, a short timing budget; the CUDA example builds its extension (about a minute)."""
    protocol = PROTOCOL.to_dict() | {"time_budget_s": 5.0}
    prebuilt = os.environ.get("KB_TEST_EXTENSIONS_DIR")  # a build dir from an earlier step, to skip the build
    for problem, name in ALL_EXAMPLES:
        job = make_job(problem, EXAMPLES / name, tmp_path, interpret=False, protocol=protocol)
        job = replace(job, extensions_dir=prebuilt or job.extensions_dir)
        data = finish(*start_worker(job, tmp_path / name), timeout=600)
        codes = {f["code"] for f in data["flags"]}
        held_for_speed = data["status"] == "needs_review" and data["speedup"] > PROTOCOL.review_speedup \
            and "speedup-review" in codes  # LayerNorm at upstream's size: 16-17x, held for a maintainer
        assert data["status"] == "correct" or held_for_speed, (name, data["error"], data["flags"])
        assert data["speedup"] > 0 and data["rounds"] >= PROTOCOL.min_rounds
        assert data["own_kernel_fraction"] > 0, name
        codes = {f["code"] for f in data["flags"]}
        assert {"timing-bound", "sandbox"} <= codes and "no-custom-kernel" not in codes


DOUBLING_PROBLEM = '''import torch
from torch import nn


class Model(nn.Module):
    def forward(self, x):
        return x * 2


rows = 256

def get_inputs():
    return [torch.randn(rows, 256)]


def get_init_inputs():
    return []
'''

ONE_ELEMENT_OFF = '''import torch


class ModelNew(torch.nn.Module):
    def forward(self, x):
        out = x * 2
        out.view(-1)[0] *= 1.0005  # beyond 1e-4 * rms + 1e-4 |y| there wherever |y| > 0.5; norm-wise under 8e-6,
        # within the precision check on every input kind (each read call is checked, every variant included)
        return out
'''


@pytest.mark.slow  # over 10 s alone on a 2-core machine
@pytest.mark.parametrize("declared", [{}, {"tolerances": {"float32": [1e-2, 1e-2]}, "reason": "evidence"}])
def test_a_problem_s_declared_tolerances_replace_the_protocol_s_and_are_flagged(tmp_path: Path, declared: dict):
    problem = tmp_path / "level1" / "1_Doubling.py"
    problem.parent.mkdir()
    problem.write_text(DOUBLING_PROBLEM, encoding="utf-8")
    entry = {"reduced_sizes": {"rows": 256}, **declared}  # interpret mode runs reduced
    overlay = {"schema_version": 1, "problems": {"level1/1_Doubling": entry}}
    (tmp_path / "overlay.json").write_text(json.dumps(overlay), encoding="utf-8")  # the board's sidecar
    kernel = tmp_path / "kernel_triton.py"
    kernel.write_text(ONE_ELEMENT_OFF, encoding="utf-8")
    job = make_job("level1/19_ReLU", kernel, tmp_path, interpret=True)
    job = replace(job, problem_path=str(problem), problem_sha256=hashlib.sha256(problem.read_bytes()).hexdigest())
    result = worker.evaluate_job(job)
    codes = [f.code for f in result.flags]
    if declared:
        assert result.status is Status.CORRECT, result.error
        assert "float32 atol=0.01 rtol=0.01" in next(f.message for f in result.flags if f.code == "tolerance-declared")
    else:
        assert result.status is Status.INCORRECT and "output-mismatch" in codes
        assert "tolerance-declared" not in codes


@pytest.mark.slow  # over 4 s alone on a 2-core machine
def test_a_problem_that_declares_tighter_tolerances_stops_before_the_kernel_is_imported(tmp_path: Path):
    problem = tmp_path / "level1" / "1_Doubling.py"
    problem.parent.mkdir()
    problem.write_text(DOUBLING_PROBLEM)
    entry = {"reduced_sizes": {"rows": 256}, "tolerances": {"float32": [1e-6, 1e-4]}, "reason": "evidence"}
    (tmp_path / "overlay.json").write_text(json.dumps({"schema_version": 1, "problems": {"level1/1_Doubling": entry}}))
    kernel = tmp_path / "kernel_triton.py"
    kernel.write_text(ONE_ELEMENT_OFF, encoding="utf-8")
    job = replace(make_job("level1/19_ReLU", kernel, tmp_path, interpret=True), problem_path=str(problem),
                  problem_sha256=hashlib.sha256(problem.read_bytes()).hexdigest())
    result = worker.evaluate_job(job)
    assert result.status is Status.RUNTIME_ERROR
    assert [f.code for f in result.flags if f.code != "sandbox"] == ["harness-error"]
    assert "tighter than the protocol's" in result.error


def test_a_problem_whose_overlay_keeps_only_negation_is_judged_without_the_standard_normal_draw(tmp_path: Path):
    job = make_job("level1/15_Matmul_for_lower_triangular_matrices", EXAMPLES / "level1_23_softmax_triton.py",
                   tmp_path, interpret=True)
    evaluation = worker.Evaluation(job, PROTOCOL)
    evaluation.setup()
    kinds = evaluation.kinds
    assert "negated" in kinds and "standard-normal" not in kinds and kinds[0] == "upstream"
    assert set(evaluation.required) == set(kinds)
    assert {evaluation.kind(n) for n in range(200)} == set(kinds)  # the later calls too draw only these
    negated = next(evaluation.spec(n) for n in range(200) if evaluation.kind(n) == "negated")
    inputs = evaluation.inputs(negated)
    assert all(bool((x.triu(1) == 0).all()) for x in inputs)  # still lower-triangular


REVERSED_PRODUCT = '''
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _product_reversed(x_ptr, out_ptr, rows, cols, BLOCK: tl.constexpr):
    batch = tl.program_id(0)
    offsets = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < cols
    acc = tl.full((BLOCK,), 1.0, tl.float32)
    for i in range(rows):
        row = rows - 1 - i
        acc = acc * tl.load(x_ptr + (batch * rows + row) * cols + offsets, mask=mask, other=1.0)
    tl.store(out_ptr + batch * cols + offsets, acc, mask=mask)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x):
        x = x.contiguous()
        out = torch.empty((x.shape[0], x.shape[2]), device=x.device, dtype=x.dtype)
        _product_reversed[(x.shape[0], triton.cdiv(x.shape[2], 64))](x, out, x.shape[1], x.shape[2], BLOCK=64)
        return out
'''


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_an_honest_product_in_another_order_is_correct_where_scaling_overflows_the_reference(tmp_path: Path):
    """The 2024 board's level1/50 (a product of 256 draws): times 3, most outputs overflow, and which ones depends on
    the order of the product. Its sequential CUDA kernel was `incorrect` at protocol 23 on an H100 ("±Inf positions
    differ"); those variants are now left out, and said so."""
    problem = REPO / "problems" / "tracks" / "91bfc2c" / "level1" / "50_Product_reduction_over_a_dimension.py"
    kernel = tmp_path / "kernel_triton.py"
    kernel.write_text(REVERSED_PRODUCT, encoding="utf-8")
    job = make_job("level1/19_ReLU", kernel, tmp_path, interpret=True)
    job = replace(job, key="level1/50_Product_reduction_over_a_dimension@91bfc2c", problem_id=50,
                  problem_path=str(problem), problem_sha256=hashlib.sha256(problem.read_bytes()).hexdigest())
    result = worker.evaluate_job(job)
    assert result.status is Status.CORRECT, result.error
    note = next(f.message for f in result.flags if f.code == "input-variants")
    assert note.startswith("not used: scaled-x3, scaled-x100:")
