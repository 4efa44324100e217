"""The evaluate stage's scheduler and records, driven by a fake worker so no GPU is needed."""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
from pathlib import Path

import pytest

from tests.engine_kit import EXAMPLES, FAKE_WORKER, context, fake_kernel, make_submission, with_status
from tests.paths import FIXTURES
from validator.compile.stage import BuildStatus
from validator.compile.toolchain import toolchain
from validator.evaluate import scheduler
from validator.evaluate import stage as engine
from validator.evaluate.jobs import Job
from validator.evaluate.scheduler import WORKER, Device, SchedulerConfig, run_all
from validator.findings import Finding, StageOutcome, StageStatus, UserError
from validator.isolation.zygote import Target
from validator.protocol import PROTOCOL
from validator.results import records as results
from validator.results.records import Status
from validator.run_context import BuildOptions, EvaluateOptions, RunOptions
from validator.submission.kernel_names import own_kernel_names

FAKE = Target(path=str(FAKE_WORKER))
# Five problems of the catalogue, in (level, id) order.
PROBLEMS = [(1, 1), (1, 19), (1, 23), (1, 40), (2, 76)]


def options(tmp_path: Path, launcher: str = "spawn", shard: tuple[int, int] | None = None, **changes) -> RunOptions:
    """Interpret-mode options with the fake worker; `changes` are EvaluateOptions fields."""
    evaluate = EvaluateOptions(results_dir=tmp_path / "results", interpret=True, worker=FAKE, launcher=launcher,
                               timeout_scale=0.01)
    return RunOptions(shard=shard, build=BuildOptions(cache_dir=tmp_path / "cache"),
                      evaluate=dataclasses.replace(evaluate, **changes))


def submission(tmp_path: Path, behaviours: list[str]) -> Path:
    kernels = {
        f"k{i}.py": (level, pid, "triton", fake_kernel(behaviour))
        for i, (behaviour, (level, pid)) in enumerate(zip(behaviours, PROBLEMS, strict=False))
    }
    return make_submission(tmp_path, kernels)


def statuses(final: results.ResultsFile) -> dict[str, Status]:
    return {p.key: p.status for p in final.problems}


def run_stage(document: Path, opts: RunOptions, earlier: tuple[StageOutcome, ...] = (),
              builds: dict | None = None) -> results.ResultsFile:
    engine.run_stage(context(document, opts, earlier, builds))
    return results.load(next((opts.evaluate.results_dir).rglob("*.json")))


def test_the_compile_warm_up_is_in_the_results_file_before_the_first_problem_is_timed(tmp_path: Path, monkeypatch):
    kernels = {f"k{i}.py": (level, pid, "torch-compile", fake_kernel("correct"))
               for i, (level, pid) in enumerate(PROBLEMS[:2])}
    document = make_submission(tmp_path, kernels)
    seen_at_timing: list[dict] = []

    def run_all(items, config, **hooks):
        if not any(item.job.warm_only for item in items):  # the timed run, not a warm-up
            path = next(tmp_path.joinpath("results").rglob("*.json"))
            seen_at_timing.append(json.loads(path.read_text())["environment"]["extra"])
        return scheduler.run_all(items, config, **hooks)

    monkeypatch.setattr(engine, "run_all", run_all)
    final = run_stage(document, options(tmp_path))
    # the fake worker never ends a warm-up as one, so both are recorded as failed and left unmarked
    warm = final.environment.extra["compile_warmup"]
    assert (warm["jobs"], warm["already_warm"]) == (2, 0)
    assert sorted(warm["failed"]) == ["level1/19_ReLU", "level1/1_Square_matrix_multiplication_"]
    assert seen_at_timing and seen_at_timing[0]["compile_warmup"] == warm


def test_a_resumed_run_keeps_the_compile_warm_ups_of_the_runs_before_it(tmp_path: Path):
    def kernels(count: int) -> dict:
        return {f"k{i}.py": (level, pid, "torch-compile", fake_kernel("correct"))
                for i, (level, pid) in enumerate(PROBLEMS[:count])}

    first = run_stage(make_submission(tmp_path, kernels(1)), options(tmp_path)).environment.extra
    # the same submission with one more kernel: the first problem is reused, only the new one is warmed
    second = run_stage(make_submission(tmp_path, kernels(2)), options(tmp_path)).environment.extra
    assert first["compile_warmup"]["jobs"] == 1 and "compile_warmup_earlier" not in first
    assert second["compile_warmup_earlier"] == [first["compile_warmup"]]
    assert second["compile_warmup"]["jobs"] == 1


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["zygote", "spawn"])
def test_a_crash_a_hang_and_garbage_end_their_own_problem_and_nothing_else(tmp_path: Path, launcher: str) -> None:
    document = submission(tmp_path, ["correct", "segfault", "hang", "garbage", "correct"])
    final = run_stage(document, options(tmp_path, launcher))
    by_key = {p.key: p for p in final.problems}
    assert [p.status for p in final.problems] == [
        Status.CORRECT, Status.RUNTIME_ERROR, Status.TIMEOUT, Status.RUNTIME_ERROR, Status.CORRECT
    ]
    assert "SIGSEGV" in by_key["level1/19_ReLU"].error
    assert "did not finish within 3 s" in by_key["level1/23_Softmax"].error
    assert "unreadable result" in by_key["level1/40_LayerNorm"].error
    assert by_key["level2/76_Gemm_Add_ReLU"].speedup == 2.0
    for key in ("level1/19_ReLU", "level1/23_Softmax", "level1/40_LayerNorm"):  # failed under upstream's rule too
        assert by_key[key].upstream is not None and not by_key[key].upstream.correct, key


def test_out_of_memory_and_foreign_output_get_their_own_statuses(tmp_path: Path) -> None:
    document = submission(tmp_path, ["oom", "wrong-key", "exit 4", "crash-after-result"])
    final = run_stage(document, options(tmp_path))
    by_key = {p.key: p for p in final.problems}
    assert by_key["level1/1_Square_matrix_multiplication_"].status == Status.OOM
    assert "different problem or kernel" in by_key["level1/19_ReLU"].error
    assert "exited with status 4" in by_key["level1/23_Softmax"].error
    after = by_key["level1/40_LayerNorm"]
    assert after.status == Status.CORRECT
    assert [f.code for f in after.flags] == ["worker-exit"]


def test_results_record_the_environment_and_the_submission_relative_kernel_path(tmp_path: Path) -> None:
    document = submission(tmp_path, ["correct"])
    final = run_stage(document, options(tmp_path))
    problem = final.problems[0]
    assert problem.kernel_path == "k0.py"
    assert final.environment.harness_version and final.environment.protocol_version == final.protocol["version"]
    assert final.environment.extra["launcher"] == "spawn"
    assert final.finished_at and final.slug == "engine-test"
    assert final.hardware == "cpu-triton-interpreter"


def test_workers_get_a_scrubbed_environment_a_private_directory_and_a_derived_seed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_secret")
    monkeypatch.setenv("SOME_UNLISTED_VARIABLE", "x")
    seen_path = tmp_path / "seen.json"
    source = fake_kernel(f"report-env {seen_path}") + '\nKERNEL = """__global__ void my_relu(float* x) {}"""\n'
    document = make_submission(tmp_path, {"k.py": (1, 19, "cuda", source)})
    run_stage(document, options(tmp_path))
    seen = json.loads(seen_path.read_text())
    assert "GITHUB_TOKEN" not in seen["env"] and "SOME_UNLISTED_VARIABLE" not in seen["env"]
    assert seen["env"]["HOME"] == seen["cwd"] and seen["job_in_cwd"]
    assert seen["env"]["TRITON_INTERPRET"] == "1" and seen["interpret"] is True
    assert seen["env"]["TORCH_EXTENSIONS_DIR"].startswith(str(tmp_path / "cache"))
    assert seen["names"] == ["my_relu"]
    assert not Path(seen["cwd"]).exists()
    written = next((tmp_path / "results").rglob("*.json")).read_text()
    assert str(seen["seed"]) not in written and '"seed"' not in written


def test_a_rerun_skips_what_is_measured_and_force_measures_again(tmp_path: Path) -> None:
    counter = tmp_path / "count.txt"
    kernels = {f"k{i}.py": (level, pid, "triton", fake_kernel(f"correct count={counter}"))
               for i, (level, pid) in enumerate(PROBLEMS[:3])}
    document = make_submission(tmp_path, kernels)
    run_stage(document, options(tmp_path))
    assert len(counter.read_text().splitlines()) == 3
    run_stage(document, options(tmp_path))
    assert len(counter.read_text().splitlines()) == 3
    run_stage(document, options(tmp_path, force=True))
    assert len(counter.read_text().splitlines()) == 6


def test_an_interrupted_run_resumes_with_the_problems_it_had_not_finished(tmp_path: Path) -> None:
    counter = tmp_path / "count.txt"
    kernels = {f"k{i}.py": (level, pid, "triton", fake_kernel(f"correct count={counter}"))
               for i, (level, pid) in enumerate(PROBLEMS[:3])}
    document = make_submission(tmp_path, kernels)
    final = run_stage(document, options(tmp_path))
    path = next((tmp_path / "results").rglob("*.json"))
    results.save(results.ResultsFile(**{**final.__dict__, "problems": final.problems[:1], "finished_at": ""}), path)
    counter.unlink()
    resumed = run_stage(document, options(tmp_path))
    assert sorted(counter.read_text().splitlines()) == ["level1/19_ReLU", "level1/23_Softmax"]
    assert len(resumed.problems) == 3 and resumed.started_at == final.started_at


def test_a_resumed_run_measures_again_what_ended_in_the_judge_s_own_failure_and_names_both_runs(tmp_path: Path):
    """A harness error is no verdict on the kernel (the H100 judge that found the GPU's memory still taken by the run
    before it): resuming measures that problem again, keeps the others, and the file's provenance names both runs."""
    counter = tmp_path / "count.txt"
    kernels = {f"k{i}.py": (level, pid, "triton", fake_kernel(f"correct count={counter}"))
               for i, (level, pid) in enumerate(PROBLEMS[:2])}
    document = make_submission(tmp_path, kernels)
    final = run_stage(document, options(tmp_path, provenance={"commit": "aaa", "runner": "box"}))
    path = next((tmp_path / "results").rglob("*.json"))
    failed = dataclasses.replace(final.problems[1], status=Status.RUNTIME_ERROR, error="CUDA out of memory",
                                 flags=(results.Flag("harness-error", "CUDA out of memory"),))
    results.save(dataclasses.replace(final, problems=(final.problems[0], failed)), path)
    counter.unlink()
    resumed = run_stage(document, options(tmp_path, provenance={"commit": "bbb", "runner": "box"}))
    assert counter.read_text().splitlines() == ["level1/19_ReLU"]
    assert [p.status for p in resumed.problems] == [Status.CORRECT, Status.CORRECT]
    assert resumed.provenance == {"commit": "aaa,bbb", "runner": "box"}


def test_a_changed_kernel_or_protocol_is_measured_again(tmp_path: Path) -> None:
    counter = tmp_path / "count.txt"
    document = make_submission(tmp_path, {"k.py": (1, 19, "triton", fake_kernel(f"correct count={counter}"))})
    final = run_stage(document, options(tmp_path))
    (document.parent / "engine-test" / "k.py").write_text(fake_kernel(f"correct count={counter}", "changed"))
    run_stage(document, options(tmp_path))
    assert len(counter.read_text().splitlines()) == 2
    path = next((tmp_path / "results").rglob("*.json"))
    results.save(results.ResultsFile(**{**final.__dict__, "protocol": {**final.protocol, "version": "0"}}), path)
    run_stage(document, options(tmp_path))
    assert len(counter.read_text().splitlines()) == 3
    shorter = run_stage(document, options(tmp_path, time_budget_s=1.5))  # one parameter changed, same version
    assert len(counter.read_text().splitlines()) == 4 and shorter.protocol["time_budget_s"] == 1.5
    run_stage(document, options(tmp_path, time_budget_s=1.5))
    assert len(counter.read_text().splitlines()) == 4


def test_an_unreadable_results_file_stops_the_run_and_names_force(tmp_path: Path) -> None:
    document = submission(tmp_path, ["correct"])
    target = tmp_path / "results" / "cpu-triton-interpreter" / "engine-test.json"
    target.parent.mkdir(parents=True)
    target.write_text("{broken")
    with pytest.raises(UserError, match="--force"):
        engine.run_stage(context(document, options(tmp_path)))
    engine.run_stage(context(document, options(tmp_path, force=True)))
    assert results.load(target).problems[0].status == Status.CORRECT


def test_kernels_rejected_or_failing_to_build_get_results_without_running(tmp_path: Path) -> None:
    counter = tmp_path / "count.txt"
    kernels = {f"k{i}.py": (level, pid, "triton", fake_kernel(f"correct count={counter}"))
               for i, (level, pid) in enumerate(PROBLEMS[:3])}
    document = make_submission(tmp_path, kernels)
    earlier = (
        StageOutcome("policy", StageStatus.FAILED, findings=(
            Finding("thread-start", "policy", "starts a thread", problem="level1/1_Square_matrix_multiplication_"),
        )),
    )
    opts = options(tmp_path)
    builds = with_status(context(document, opts), "level1/19_ReLU", BuildStatus.FAILED, "nvcc: error: expected ';'")
    final = run_stage(document, opts, earlier, builds)
    by_key = {p.key: p for p in final.problems}
    assert by_key["level1/1_Square_matrix_multiplication_"].status == Status.REJECTED
    assert [f.code for f in by_key["level1/1_Square_matrix_multiplication_"].flags] == ["thread-start"]
    assert by_key["level1/19_ReLU"].status == Status.COMPILE_ERROR
    assert "expected ';'" in by_key["level1/19_ReLU"].error
    for key in ("level1/1_Square_matrix_multiplication_", "level1/19_ReLU"):  # not a tolerance question: both fail
        assert not by_key[key].upstream.correct and by_key[key].upstream.error == by_key[key].error[:500]
    assert counter.read_text().splitlines() == ["level1/23_Softmax"]


def test_shards_split_the_problems_disjointly_into_their_own_files(tmp_path: Path) -> None:
    document = submission(tmp_path, ["correct"] * 5)
    keys = []
    for index in (1, 2):
        engine.run_stage(context(document, options(tmp_path, shard=(index, 2))))
        path = tmp_path / "results" / "cpu-triton-interpreter" / f"engine-test.shard-{index}-of-2.json"
        shard = results.load(path)
        assert shard.environment.extra["shard"] == [index, 2]
        keys.append({p.key for p in shard.problems})
    assert keys[0].isdisjoint(keys[1]) and len(keys[0] | keys[1]) == 5
    assert len(keys[0]) == 3


def test_a_gpu_that_fails_its_health_probe_takes_no_more_jobs(tmp_path: Path) -> None:
    document = submission(tmp_path, ["segfault", "correct", "correct"])
    ctx = context(document, options(tmp_path))
    planned = engine.plan(ctx, toolchain(ctx.machine, ctx.options), b"secret", interpret=True)
    seen = []
    # CUDA_VISIBLE_DEVICES="" hides every GPU, so the probe fails on any machine.
    config = SchedulerConfig((Device("gpu-x", ""),), timeout_s=30, target=FAKE, launcher="spawn")
    report = run_all([item for item, _ in planned], config, on_result=seen.append)
    assert list(report.unhealthy) == ["gpu-x"]
    assert [r.status for r in seen] == [Status.RUNTIME_ERROR, Status.NOT_RUN, Status.NOT_RUN]
    assert [r.gpu for r in seen] == ["gpu-x", None, None]  # which GPU measured each, where one did
    assert "no healthy GPU left" in seen[1].error and "health probe" in seen[1].error


def _sharing_a_gpu(tmp_path: Path, behaviours: list[str], timeout_s: float) -> list[results.ProblemResult]:
    """The fake judges of `behaviours` run by two slots of one GPU that take turns at measuring."""
    ctx = context(submission(tmp_path, behaviours), options(tmp_path))
    planned = engine.plan(ctx, toolchain(ctx.machine, ctx.options), b"secret", interpret=True)
    seen: list[results.ProblemResult] = []
    config = SchedulerConfig((Device("gpu-x", "7"),) * 2, timeout_s=timeout_s, target=FAKE, launcher="spawn",
                             probe_after_crash=False, gpu_turns=True)
    run_all([item for item, _ in planned], config, on_result=seen.append)
    return seen


def test_judges_sharing_a_gpu_start_together_and_measure_one_at_a_time(tmp_path: Path) -> None:
    log = tmp_path / "turns.log"
    seen = _sharing_a_gpu(tmp_path, [f"turn {log}"] * 4, timeout_s=30)
    assert [r.status for r in seen] == [Status.CORRECT] * 4
    turns = sorted(tuple(map(float, line.split())) for line in log.read_text().splitlines())
    assert len(turns) == 4
    assert all(held[1] <= after[0] for held, after in itertools.pairwise(turns))  # never two at once
    # two judges at a time: together they took less than one after the other would have (0.4 s held each, and
    # each spawned judge's start, which the other's turn hides)
    assert sum(r.seconds for r in seen) > 1.25 * (turns[-1][1] - turns[0][0])


def test_a_judge_that_keeps_the_gpu_s_turn_past_its_limit_times_out_and_the_next_one_measures(tmp_path: Path) -> None:
    log = tmp_path / "turns.log"
    seen = _sharing_a_gpu(tmp_path, [f"turn-hang {log}", f"turn {log}"], timeout_s=2)
    by_status = {r.status: r for r in seen}
    assert set(by_status) == {Status.TIMEOUT, Status.CORRECT}
    assert "within 2 s of its turn on the GPU" in by_status[Status.TIMEOUT].error
    assert by_status[Status.TIMEOUT].seconds < 30  # its turn's alarm, not the process's 64 s limit
    assert len(log.read_text().splitlines()) == 1  # the hung one never gave it back; its death did


def test_a_problem_the_timing_bound_refused_is_judged_once_more_with_a_new_seed(tmp_path: Path) -> None:
    seeds = {name: tmp_path / f"{name}.seeds" for name in ("once", "always", "mismatch")}
    kernels = {
        "k0.py": (1, 1, "triton", fake_kernel(f"refused-bound {seeds['once']},once")),
        "k1.py": (1, 19, "triton", fake_kernel(f"refused-bound {seeds['always']}")),
        "k2.py": (1, 23, "triton", fake_kernel(f"refused-mismatch {seeds['mismatch']}")),
    }
    final = run_stage(make_submission(tmp_path, kernels), options(tmp_path))
    once, always, mismatch = final.problems
    runs = {name: path.read_text().split() for name, path in seeds.items()}
    assert once.status == Status.CORRECT and len(runs["once"]) == 2 and len(set(runs["once"])) == 2
    rejudged = next(f for f in once.flags if f.code == "timing-rejudged")
    assert "refused by the fake judge" in rejudged.message and "new seed" in rejudged.message
    # a forgery refused at every judging stays refused, after the protocol's attempts and no more
    assert always.status == Status.REJECTED and len(runs["always"]) == PROTOCOL.bound_attempts == 2
    assert "refused at each of 2 judgings" in always.error
    # evidence that is not a calibrated bound (outputs that differ from their commitment) is never rejudged
    assert mismatch.status == Status.REJECTED and len(runs["mismatch"]) == 1


def test_kernel_names_come_from_cuda_globals_and_triton_decorators() -> None:
    source = (
        'CUDA = """__global__ void __launch_bounds__(256) scale_rows(float* x) {}\n'
        'template <int N> __global__ void tiled(float* y) {}"""\n'
        "import triton\n@triton.jit\ndef add_kernel(x):\n    pass\n"
        "@triton.autotune(configs=[], key=[])\n@triton.jit\ndef tuned(x):\n    pass\n"
        "def helper():\n    pass\n"
    )
    assert own_kernel_names(source) == ("add_kernel", "scale_rows", "tiled", "tuned")


def test_per_problem_seeds_depend_on_the_run_secret_and_the_problem() -> None:
    first = engine.job_seed(b"a" * 32, "level1/19_ReLU")
    assert first == engine.job_seed(b"a" * 32, "level1/19_ReLU")
    assert first != engine.job_seed(b"b" * 32, "level1/19_ReLU")
    assert first != engine.job_seed(b"a" * 32, "level1/23_Softmax")
    assert 0 <= first < 2**63


@pytest.mark.slow
def test_the_real_worker_checks_a_triton_kernel_on_cpu_through_the_engine(tmp_path: Path) -> None:
    source = (EXAMPLES / "level1_23_softmax_triton.py").read_text()
    document = make_submission(tmp_path, {"softmax.py": (1, 23, "triton", source)})
    opts = options(tmp_path, "zygote", worker=WORKER, timeout_scale=1.0)
    final = run_stage(document, opts)
    assert final.problems[0].status == Status.CORRECT, final.problems[0].error


@pytest.mark.parametrize(
    ("flags", "expected"),
    [
        (["--shard", "0/2"], "between 1 and N"),
        (["--shard", "3/2"], "between 1 and N"),
        (["--shard", "half"], "expected I/N"),
        (["--gpus", "a,b"], "comma-separated GPU indices"),
        (["--gpus", "0,0"], "listed twice"),
        (["--arch", "sm_90"], "compute capability"),
        (["--timeout-scale", "0"], "positive number"),
        (["--timeout-scale", "nan"], "positive number"),
        (["--time-budget", "0"], "positive number of seconds"),
        (["--time-budget", "inf"], "positive number of seconds"),
        (["--build-jobs", "0"], "at least 1"),
        (["--provenance", "runner"], "expected KEY=VALUE"),
        (["--provenance", "a=1", "--provenance", "a=2"], "given twice"),
        (["--verified"], "--verified needs --provenance"),
        (["--launcher", "thread"], "invalid choice"),
    ],
)
def test_bad_evaluation_options_exit_2_with_a_message_naming_the_flag(cli, example_tree, flags, expected) -> None:
    result = cli(str(example_tree / "submissions" / "kernelbench-team-examples.json"), *flags)
    assert result.exit_code == 2, result.output
    assert expected in result.stderr


def test_a_results_dir_that_is_a_file_is_refused(cli, example_tree: Path) -> None:
    blocker = example_tree / "results"
    blocker.write_text("")
    result = cli(str(example_tree / "submissions" / "kernelbench-team-examples.json"), "--results-dir", str(blocker))
    assert result.exit_code == 2 and "is not a directory" in result.stderr


@pytest.mark.parametrize(("flag", "reason"), [("--build-only", "--build-only"), ("--no-gpu", "--no-gpu was given")])
def test_build_only_and_no_gpu_skip_evaluation_with_the_reason(cli, tmp_path: Path, flag: str, reason: str) -> None:
    source = (EXAMPLES / "level1_23_softmax_triton.py").read_text()
    document = make_submission(tmp_path, {"softmax.py": (1, 23, "triton", source)})
    (tmp_path / "results").mkdir()
    result = cli(str(document), flag, "--arch", "9.0", "--cache-dir", str(tmp_path / "cache"),
                 "--results-dir", str(tmp_path / "results"))
    assert result.exit_code == 0, result.output
    assert "1 imported" in result.stdout and reason in result.stdout
    assert not any((tmp_path / "results").iterdir())  # nothing evaluated, nothing written


def test_provenance_and_verified_reach_the_results_file(tmp_path: Path) -> None:
    document = submission(tmp_path, ["correct"])
    provenance = {"runner": "gpu-1", "commit": "abc"}
    final = run_stage(document, options(tmp_path, provenance=provenance, verified=True))
    assert final.verified and final.provenance == provenance
    unverified = run_stage(document, options(tmp_path, force=True, provenance=provenance))
    assert not unverified.verified


FAULTS = FIXTURES / "engine" / "kernels"


def gpu_run(tmp_path: Path, kernels: dict[str, tuple[int, int, str, str]]) -> dict[str, results.ProblemResult]:
    """Build and evaluate on the GPU through the stages themselves (the policy stage is left out on purpose)."""
    from validator.compile import stage as build

    document = make_submission(tmp_path, kernels)
    opts = RunOptions(build=BuildOptions(cache_dir=tmp_path / "cache", timeout_scale=0.3),
                      evaluate=EvaluateOptions(results_dir=tmp_path / "results", timeout_scale=0.3))
    built = build.run_stage(context(document, opts, builds={}))
    earlier = (StageOutcome("build", StageStatus.PASSED, findings=built.findings),)
    engine.run_stage(context(document, opts, earlier, {r.build.key: r for r in built.builds}))
    return {p.key: p for p in results.load(next((tmp_path / "results").rglob("*.json"))).problems}


@pytest.mark.gpu
def test_on_a_gpu_a_segfault_a_hang_and_an_illegal_access_leave_the_good_kernels_alone(tmp_path: Path) -> None:
    good = {
        "softmax.py": (1, 23, "triton", (EXAMPLES / "level1_23_softmax_triton.py").read_text()),
        "gemm.py": (2, 76, "triton", (EXAMPLES / "level2_76_gemm_add_relu_triton.py").read_text()),
    }
    faults = {
        "segfault.py": (1, 19, "pytorch", (FAULTS / "segfault_relu.py").read_text()),
        "hang.py": (1, 1, "pytorch", (FAULTS / "hang_matmul.py").read_text()),
        "illegal.py": (1, 40, "triton", (FAULTS / "illegal_access_layernorm.py").read_text()),
    }
    mixed = gpu_run(tmp_path / "mixed", {**good, **faults})
    alone = gpu_run(tmp_path / "alone", good)
    assert "SIGSEGV" in mixed["level1/19_ReLU"].error
    assert mixed["level1/1_Square_matrix_multiplication_"].status == Status.TIMEOUT
    illegal = mixed["level1/40_LayerNorm"]
    assert illegal.status == Status.RUNTIME_ERROR and "illegal memory access" in illegal.error
    for key in ("level1/23_Softmax", "level2/76_Gemm_Add_ReLU"):
        assert mixed[key].status == alone[key].status
        assert mixed[key].status in (Status.CORRECT, Status.NEEDS_REVIEW), mixed[key].error


@pytest.mark.gpu
def test_on_a_gpu_the_example_submission_is_measured_end_to_end(cli, example_tree: Path) -> None:
    (example_tree / "results").mkdir(exist_ok=True)
    result = cli(str(example_tree / "submissions" / "kernelbench-team-examples.json"),
                 "--results-dir", str(example_tree / "results"), "--cache-dir", str(example_tree / "cache"))
    final = results.load(next((example_tree / "results").rglob("*.json")))
    assert {p.status for p in final.problems} <= {Status.CORRECT, Status.NEEDS_REVIEW}, result.output
    assert len(final.problems) == 4 and final.environment.driver and final.environment.sm_clock_mhz


def test_a_zygote_that_cannot_start_falls_back_to_spawning_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from validator.evaluate import scheduler
    from validator.isolation.zygote import ZygoteError

    def refuse(*args, **kwargs):
        raise ZygoteError("the CUDA driver was loaded during the zygote's imports")

    monkeypatch.setattr(scheduler, "Zygote", refuse)
    document = submission(tmp_path, ["correct", "correct"])
    final = run_stage(document, options(tmp_path, "zygote"))
    assert [p.status for p in final.problems] == [Status.CORRECT, Status.CORRECT]
    assert any("spawning instead" in note for note in final.environment.extra["launcher_notes"])


def test_on_a_terminal_the_live_view_runs_and_the_final_table_lists_every_problem(tmp_path: Path) -> None:
    import io

    from rich.console import Console

    screen = io.StringIO()
    console = Console(file=screen, force_terminal=True, width=160)
    document = submission(tmp_path, ["correct", "segfault"])
    engine.run_stage(context(document, dataclasses.replace(options(tmp_path), console=console)))
    text = screen.getvalue()
    assert "level1/1_Square_matrix_multiplication_" in text and "runtime_error" in text and "2.00x" in text


def test_throttle_reason_bits_decode_to_names() -> None:
    from validator.evaluate import gpu_env

    assert gpu_env.decode_reasons("0x0000000000000001") == ("gpu_idle",)
    assert gpu_env.decode_reasons("0x24") == ("sw_power_cap", "sw_thermal_slowdown")
    assert gpu_env.decode_reasons("[N/A]") == ()


def test_the_environment_names_the_host_cpu_a_small_call_s_launch_runs_on(tmp_path: Path) -> None:
    """Read from /proc/cpuinfo's first model name; without one, whatever the platform says (maybe nothing)."""
    import platform

    from validator.evaluate import gpu_env

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 9454 48-Core Processor\n"
                    "processor\t: 1\nmodel name\t: AMD EPYC 9454 48-Core Processor\n")
    assert gpu_env.cpu_model(str(info)) == "AMD EPYC 9454 48-Core Processor"
    assert gpu_env.cpu_model(str(tmp_path / "none")) == platform.processor()[:200]


def test_the_ring_directory_of_a_judge_killed_for_its_time_is_removed_by_the_scheduler(tmp_path: Path) -> None:
    """A judge that starts its own sandboxed runner gets a ring directory on tmpfs from the scheduler, not from
    itself: a judge killed at the problem's time limit cannot remove anything, so the scheduler does."""
    from validator.evaluate.judge import launch

    with contextlib.ExitStack() as probe:
        if launch.ring_dir(probe) is None:
            pytest.skip(f"no writable {launch.SHARED_MEMORY} here")
    seen = tmp_path / "seen.json"
    kernel = tmp_path / "k.py"
    kernel.write_text(fake_kernel(f"hang-seeing-ring {seen}"), encoding="utf-8")
    job = Job(key="level1/19_ReLU", level=1, problem_id=19, problem_path=str(tmp_path / "p.py"), problem_sha256="0",
              kernel_path=str(kernel), kernel_sha256="0", backend="triton", extensions_dir=str(tmp_path / "ext"),
              seed=1, protocol=PROTOCOL.to_dict(), interpret=True, sandbox="bubblewrap")
    config = SchedulerConfig((Device("cpu", ""),), timeout_s=3, target=FAKE, launcher="spawn",
                             probe_after_crash=False)
    launcher = scheduler._Launcher(config, Device("cpu", ""))
    try:
        result, _ = scheduler.run_one(scheduler.WorkItem(job, "k.py"), launcher)
    finally:
        launcher.close()
    assert result.status == Status.TIMEOUT
    told = json.loads(seen.read_text())
    assert told["exists"] and Path(told["ring_dir"]).is_relative_to(launch.SHARED_MEMORY)
    assert not Path(told["ring_dir"]).exists()


def test_each_job_carries_its_problem_s_speed_of_light_on_known_hardware_only(tmp_path: Path):
    """From the manifest, for exactly the file it describes: upstream's ReLU moves 6.4 GB in and out, 3.0 ms at the
    H200's 4.3 TB/s copy rate; a changed file, an unknown GPU or a catalogue without a manifest get none."""
    from validator.catalogue.problems import load_catalogue

    catalogue = load_catalogue()
    relu = catalogue.get(1, 19)
    floor = engine.speed_of_light_times(catalogue.root, "nvidia-h200")
    assert floor(relu) == pytest.approx(2 * 4096 * 393216 * 4 / 4.3e12 * 1e3)
    assert floor(dataclasses.replace(relu, sha256="0" * 64)) is None
    assert engine.speed_of_light_times(catalogue.root, "nvidia-a100-sxm4-40gb")(relu) is None
    assert engine.speed_of_light_times(tmp_path, "nvidia-h200")(relu) is None
    (tmp_path / "manifest.json").write_text("{not json")
    assert engine.speed_of_light_times(tmp_path, "nvidia-h200")(relu) is None


def test_another_track_s_version_of_a_problem_has_its_own_speed_of_light():
    """The manifest holds every version the catalogue does: 91bfc2c's ReLU (16 x 16384) moves 2 MiB, so the hold
    reaches the 2024 board's track at that track's sizes, not at the headline's."""
    from validator.catalogue.problems import load_catalogue

    catalogue = load_catalogue()
    (relu,) = [p for p in catalogue.versions_of(1, 19) if p.key == "level1/19_ReLU@91bfc2c"]
    floor = engine.speed_of_light_times(catalogue.root, "nvidia-h200")
    assert floor(relu) == pytest.approx(2 * 16 * 16384 * 4 / 4.3e12 * 1e3)
    every = {p.key for p in catalogue.every_version}
    assert set(json.loads((catalogue.root / "manifest.json").read_text())["problems"]) == every
