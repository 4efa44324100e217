"""The torch.compile baseline: generated kernels, the per-hardware cache, and speedups against it."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import sys
from pathlib import Path

import pytest
import torch

from tests.conftest import REPO
from tests.engine_kit import context, fake_kernel, make_submission
from tests.evaluate.test_engine import options
from validator.evaluate import stage as engine
from validator.evaluate.scheduler import WORKER
from validator.results import baselines as compile_baseline
from validator.results import records as results
from validator.results.records import ProblemResult, Status, Timing

RELU = REPO / "problems" / "level1" / "19_ReLU.py"


def _result(sha: str, kernel_ms: float | None) -> ProblemResult:
    kernel = Timing(kernel_ms, kernel_ms, kernel_ms, kernel_ms, 10) if kernel_ms else None
    return ProblemResult("level1/19_ReLU", 1, 19, sha, "k.py", "k" * 64, "cuda", Status.CORRECT, kernel=kernel)


def test_the_baseline_kernel_is_the_problems_own_model_with_a_compiled_forward(tmp_path, monkeypatch):
    monkeypatch.setattr(torch, "compile", lambda fn, **kwargs: fn)  # compiling is the GPU run's business
    problem = importlib.util.module_from_spec(importlib.util.spec_from_file_location("relu_problem", RELU))
    problem.__spec__.loader.exec_module(problem)
    monkeypatch.setitem(sys.modules, compile_baseline.REFERENCE_MODULE, problem)  # as the worker does
    path, sha = compile_baseline.write_kernel(tmp_path)
    spec = importlib.util.spec_from_file_location("generated_baseline", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.randn(4, 8)
    assert torch.equal(module.ModelNew()(x), torch.relu(x))
    assert isinstance(module.ModelNew().reference, problem.Model)
    assert sha == hashlib.sha256(path.read_bytes()).hexdigest()


def test_speedups_against_the_compiled_reference_use_the_cached_median():
    entries = {"a" * 64: {"compiled": {"median": 3.0, "q1": 2.9, "q3": 3.1, "minimum": 2.8, "n": 9}}}
    attached = compile_baseline.attach([_result("a" * 64, 1.5), _result("b" * 64, 1.0), _result("a" * 64, None)],
                                       entries)
    assert attached[0].speedup_vs_compile == 2.0 and attached[0].compile_reference.median == 3.0
    assert attached[1].speedup_vs_compile is None
    assert attached[2].speedup_vs_compile is None


def test_a_cached_timing_counts_only_for_its_torch_and_protocol():
    entry = {"torch": "2.11.0", "protocol_version": "1", "compiled": {}}
    assert compile_baseline.usable(entry, "2.11.0", "1")
    assert not compile_baseline.usable(entry, "2.12.0", "1")
    assert not compile_baseline.usable(entry, "2.11.0", "2")
    assert not compile_baseline.usable(None, "2.11.0", "1")


def test_an_unreadable_cache_is_an_empty_cache(tmp_path):
    path = tmp_path / "torch-compile.json"
    path.write_text("{broken")
    assert compile_baseline.load_cache(path) == {}
    path.write_text(json.dumps({"cache_version": 99, "entries": {"x": {}}}))
    assert compile_baseline.load_cache(path) == {}


def test_the_engine_measures_the_baseline_once_and_reuses_it(tmp_path: Path):
    kernels = {"a.py": (1, 19, "triton", fake_kernel("correct")), "b.py": (1, 23, "triton", fake_kernel("correct"))}
    document = make_submission(tmp_path, kernels)
    opts = options(tmp_path, compile_baseline=True)
    engine.run_stage(context(document, opts))
    hardware_dir = next(p for p in opts.evaluate.results_dir.iterdir() if p.is_dir())
    final = results.load(hardware_dir / "engine-test.json")
    assert [p.speedup_vs_compile for p in final.problems] == [1.5, 1.5]  # compiled 1.5 ms, kernel 1.0 ms
    cache = compile_baseline.cache_path(opts.evaluate.results_dir, hardware_dir.name)
    entries = json.loads(cache.read_text())["entries"]
    assert {e["key"] for e in entries.values()} == {"level1/19_ReLU", "level1/23_Softmax"}

    for entry in entries.values():  # mark the cache: a second run must read it, not measure again
        entry["compiled"]["median"] = 3.0
    cache.write_text(json.dumps({"cache_version": 1, "entries": entries}))
    forced = options(tmp_path, force=True, compile_baseline=True)
    engine.run_stage(context(document, forced))
    again = results.load(hardware_dir / "engine-test.json")
    assert [p.speedup_vs_compile for p in again.problems] == [3.0, 3.0]


def test_a_failed_baseline_run_is_a_flag_on_the_kernels_result_not_a_timing():
    failed = ProblemResult("level1/19_ReLU", 1, 19, "a" * 64, "g.py", "g" * 64, "torch-compile", Status.REJECTED,
                           error="a call of ModelNew replaced torch.nn.Module.__init__")
    entry = compile_baseline.cache_entry(failed, "2.11.0", "1")
    assert "compiled" not in entry and "Module.__init__" in entry["error"]
    assert not compile_baseline.usable(entry, "2.11.0", "1") and compile_baseline.current(entry, "2.11.0", "1")
    (attached,) = compile_baseline.attach([_result("a" * 64, 1.0)], {"a" * 64: entry})
    assert attached.speedup_vs_compile is None
    assert [f.code for f in attached.flags] == ["compile-baseline-failed"]
    assert "rejected" in attached.flags[0].message


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["spawn", "zygote"])
def test_the_real_worker_accepts_the_generated_baseline_on_cpu(tmp_path: Path, launcher: str):
    """torch.compile patches nn.Module on its first call; the worker must not read that as tampering. The
    warm-up fills the kernel's inductor cache first, and ends as a warm-up, never as a measurement; a second
    warm-up of the same problem on this machine is skipped. The zygote preloads inductor, and its children
    must still use their own job's cache."""
    import dataclasses

    from validator.compile import toolchain
    from validator.evaluate import warmup
    from validator.evaluate.scheduler import Device, SchedulerConfig, WorkItem, run_all

    source = (REPO / "submissions" / "kernelbench-team-examples" / "level1_23_softmax_triton.py").read_text()
    document = make_submission(tmp_path, {"softmax.py": (1, 23, "triton", source)})
    opts = options(tmp_path, "spawn", worker=WORKER, timeout_scale=1.0)
    stage_context = context(document, opts)
    planned = engine.plan(stage_context, toolchain.toolchain(stage_context.machine, opts), b"s" * 32, True)
    item = planned[0][0]
    kernel, sha = compile_baseline.write_kernel(tmp_path)
    job = dataclasses.replace(item.job, kernel_path=str(kernel), kernel_sha256=sha,
                              backend=compile_baseline.BACKEND, own_kernel_names=())
    config = SchedulerConfig((Device("cpu", ""),), 300, target=WORKER, launcher=launcher,
                             probe_after_crash=False, base_env={"TRITON_INTERPRET": "1"})
    work = WorkItem(job, kernel.name, toolchain.worker_cache_env(tmp_path / "cache", job.backend, job.problem_sha256,
                                                                tmp_path / "harness"))
    warmed = warmup.warm([work, planned[0][0]], config, concurrency=2)  # the Triton kernel needs no warm-up
    assert (warmed.count, warmed.failed, warmed.per_device, warmed.reused) == (1, {}, 2, 0)
    inductor_cache = Path(work.env["KB_KERNEL_INDUCTOR_CACHE"])
    assert any(inductor_cache.rglob("*.py")), "the warm-up left no compiled graph in the inductor cache"
    assert warmup.marker(work) == inductor_cache / warmup.MARKER_DIR / job.problem_sha256
    assert warmup.marker(work).is_file()
    again = warmup.warm([work], config)
    assert (again.count, again.reused, again.describe()["already_warm"]) == (0, 1, 1)
    seen: list[ProblemResult] = []
    run_all([work], config, on_result=seen.append)
    assert seen[0].status == Status.CORRECT, (seen[0].error, seen[0].flags)
    assert not any(f.code == "warm-up" for f in seen[0].flags)


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_a_failed_warm_up_is_reported_with_its_reason(tmp_path: Path):
    from validator.compile import toolchain
    from validator.evaluate import warmup
    from validator.evaluate.scheduler import Device, SchedulerConfig

    broken = "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    def __init__(self):\n" \
             "        raise ValueError('no such layer')\n"
    document = make_submission(tmp_path, {"broken.py": (1, 19, "torch-compile", broken)})
    opts = options(tmp_path, "spawn", worker=WORKER, timeout_scale=1.0)
    stage_context = context(document, opts)
    (item, _), = engine.plan(stage_context, toolchain.toolchain(stage_context.machine, opts), b"s" * 32, True)
    config = SchedulerConfig((Device("cpu", ""),), 300, target=WORKER, launcher="spawn",
                             probe_after_crash=False, base_env={"TRITON_INTERPRET": "1"})
    report = warmup.warm([item], config)
    assert report.count == 1 and list(report.failed) == ["level1/19_ReLU"]
    assert report.failed["level1/19_ReLU"].startswith("runtime_error: constructing ModelNew: ValueError: no such")
    assert not warmup.marker(item).exists(), "a failed warm-up must be tried again by the next run"


def test_baselines_measured_before_an_interrupt_are_kept(tmp_path: Path, monkeypatch):
    """Each baseline is saved as it ends: a run stopped half-way (a device call's time limit) keeps them, and
    the next run measures only the rest."""
    kernels = {"a.py": (1, 19, "triton", fake_kernel("correct")), "b.py": (1, 23, "triton", fake_kernel("correct"))}
    document = make_submission(tmp_path, kernels)
    opts = options(tmp_path, compile_baseline=True)
    real = engine.run_all

    def stopped_after_one(items, config, **kwargs):
        if items[0].job.backend != compile_baseline.BACKEND:
            return real(items, config, **kwargs)
        real(items[:1], config, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(engine, "run_all", stopped_after_one)
    with pytest.raises(KeyboardInterrupt):
        engine.run_stage(context(document, opts))
    hardware_dir = next(p for p in opts.evaluate.results_dir.iterdir() if p.is_dir())
    cache = compile_baseline.cache_path(opts.evaluate.results_dir, hardware_dir.name)
    assert [e["key"] for e in json.loads(cache.read_text())["entries"].values()] == ["level1/19_ReLU"]


def test_the_warm_up_starts_the_largest_graphs_first(tmp_path: Path, monkeypatch):
    from validator.compile import toolchain
    from validator.evaluate import warmup
    from validator.evaluate.scheduler import Device, SchedulerConfig, SchedulerReport

    model = "import torch\n\n\nclass ModelNew(torch.nn.Module):\n    pass\n"
    document = make_submission(tmp_path, {"a.py": (1, 19, "torch-compile", model),
                                          "b.py": (3, 1, "torch-compile", model),
                                          "c.py": (2, 1, "torch-compile", model),
                                          "d.py": (1, 1, "torch-compile", model)})
    opts = options(tmp_path, "spawn", worker=WORKER)
    stage_context = context(document, opts)
    items = [item for item, _ in engine.plan(stage_context, toolchain.toolchain(stage_context.machine, opts),
                                             b"s" * 32, True)]
    started: list[str] = []

    def record(jobs, config, on_result=None, **kwargs):
        started.extend(item.job.key for item in jobs)
        return SchedulerReport((), ())

    monkeypatch.setattr(warmup, "run_all", record)
    warmup.warm(items, SchedulerConfig((Device("cpu", ""),), 300, target=WORKER))
    sizes = {key: (REPO / "problems" / f"{key}.py").stat().st_size for key in started}
    assert [key.split("/")[0] for key in started] == ["level3", "level2", "level1", "level1"]
    assert sizes[started[2]] >= sizes[started[3]]


def test_a_warm_up_that_ran_out_of_memory_beside_others_is_run_once_more_alone(tmp_path: Path, monkeypatch):
    """Twelve warm-ups at a time on an 80 GB H100 left 5 of 125 out of memory at upstream's sizes; each is run
    again with one warm-up per GPU, and counts as warm if that one ends warm."""
    import dataclasses

    from validator.evaluate import warmup
    from validator.evaluate.jobs import Job
    from validator.evaluate.scheduler import Device, SchedulerConfig, WorkItem
    from validator.results.records import Flag

    def item(problem_id: int) -> WorkItem:
        job = Job(key=f"level1/{problem_id}_P", level=1, problem_id=problem_id, problem_path="p.py",
                  problem_sha256=f"{problem_id:064d}", kernel_path="k.py", kernel_sha256="k" * 64,
                  backend="torch-compile", extensions_dir=str(tmp_path / "ext"), seed=1, protocol={})
        return WorkItem(job, "k.py", {"KB_KERNEL_INDUCTOR_CACHE": str(tmp_path / str(problem_id) / "inductor")})

    calls: list[tuple[int, list[str]]] = []

    def fake_run_all(items, config, on_result):
        calls.append((len(config.devices), [i.job.key for i in items]))
        for i in items:
            big = i.job.problem_id % 100 == 45
            if big and len(calls) == 1:
                on_result(dataclasses.replace(_result(i.job.problem_sha256, None), key=i.job.key,
                                              status=Status.OOM, error="OutOfMemoryError: CUDA out of memory"))
            else:
                on_result(dataclasses.replace(_result(i.job.problem_sha256, None), key=i.job.key,
                                              flags=(Flag("warm-up", "compiled"),)))

    monkeypatch.setattr(warmup, "run_all", fake_run_all)
    config = SchedulerConfig((Device("cuda:0", "0"), Device("cuda:1", "1")), 300, target="unused")
    report = warmup.warm([item(n) for n in (19, 20, 21, 45)], config, concurrency=4)
    assert calls[0][0] == 4 and calls[1] == (2, ["level1/45_P"])  # the retry: one slot per GPU, the crowded only
    assert (report.failed, report.describe()["retried_alone"]) == ({}, 1)
    assert warmup.marker(item(45)).is_file()
    calls.clear()  # already one warm-up per GPU: an out-of-memory warm-up is not run again
    report = warmup.warm([item(n) for n in (146, 145)], config, concurrency=4)
    assert len(calls) == 1 and list(report.failed) == ["level1/145_P"]
