"""Upstream KernelBench's own evaluation of each kernel beside this board's, on one GPU, in one device call.

    python3 bench/upstream_side_by_side.py [SUBMISSION.json] [--track 423217d|91bfc2c[,...]] [--gpu N]
        [--upstream DIR] [--start I] [--limit N] [--budget-s S] [--warm eval|build|none] [--out DIR] [--dry-run]

SUBMISSION defaults to submissions/kernelbench-team-examples.json. For each track (an upstream commit), each kernel
is evaluated twice over, one side after the other on the same GPU, nothing else on it meanwhile:

Upstream's side: a fresh Python process per kernel (upstream's scripts evaluate each kernel in a fresh spawned
process too) imports the evaluation from the exported checkout (`bash bench/upstream_checkout.sh COMMIT` makes
`.upstream/COMMIT`; upstream's code is never committed here) and calls `eval_kernel_against_ref` on the problem
file of that commit (`KernelBench/levelL/` of the checkout) and the kernel, as `scripts/eval_from_generations.py`
calls it there: 5 correctness trials, 100 timed trials, measure_performance on, seed 42, fp32, the build directory
given. At 423217d that call also times the reference (100 trials, the same CUDA-event timer). At 91bfc2c it does
not (upstream took reference times from files made by `scripts/generate_baseline_time.py`), so the process then
times the reference as that script does (100 trials of `time_execution_with_cuda_event`) for the speedup, and
those seconds are left out of "upstream s". A first, untimed process per kernel builds into the same build
directory (`--warm eval`: a whole evaluation, which also fills Triton's cache; `build`: upstream's own
`build_compile_cache`; `none`: no warm run, the timed process builds). The timed process is measured whole
(interpreter, imports, loading the cached build, evaluation): "upstream s". Modules upstream imports only to call
language models (dotenv, openai, litellm, together, anthropic, google.generativeai) are stubbed where missing,
which makes its imports cheaper than on upstream's own machines. Each process is bounded by --kernel-timeout-s
(default 180 s, upstream's own per-kernel timeout).

The board's side: `python3 -m validator` (kb-validate) once per track on the kernels upstream's side reached, as a
submission written under --work whose problem hashes are the upstream files' (so both sides judge the same file),
with a fresh --results-dir and --force; a problem's `seconds` in results/<hardware>/<slug>.json is its evaluation
alone: "ours s". Its build (the report's build stage) is reported apart.

Prints a table (problem, upstream s, ours s, ratio ours/upstream, the verdicts and both speedups) and the median
ratio per track, and writes DIR/side_by_side.json. --budget-s bounds the whole run: upstream's side stops before a
kernel it could not finish while leaving the board's side its estimated time, and says where to --start next.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shlex
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
TRACKS = ("423217d", "91bfc2c")
DEFAULT_SUBMISSION = REPO / "submissions" / "kernelbench-team-examples.json"
RESULT_TAG = "KB_SIDE_BY_SIDE_RESULT "
UPSTREAM_TIMEOUT_S = 180.0
"""`EvalConfig.timeout` of upstream's scripts/eval_from_generations.py at both commits."""
CORRECT_TRIALS = 5
PERF_TRIALS = 100
SEED = 42
STUBBABLE = {
    # what each layout's evaluation imports only for calling language models (or printing), stubbed where missing
    "kernelbench": ("dotenv", "openai", "litellm", "tqdm", "requests"),
    "src": ("together", "openai", "google.generativeai", "anthropic", "transformers", "tqdm", "requests"),
}
OURS_FIELDS = ("key", "status", "speedup", "error", "flags", "rounds", "upstream", "phases")


# ---------------------------------------------------------------------------------------------------------------
# The child: one fresh process running upstream's evaluation of one kernel
# ---------------------------------------------------------------------------------------------------------------

def _placeholder_getattr(placeholder: type) -> Any:
    def __getattr__(attr: str) -> type:
        if attr.startswith("__"):
            raise AttributeError(attr)  # __file__, __all__ and the like stay absent, as on an empty module
        return placeholder
    return __getattr__


def _stub(name: str) -> None:
    """Put an empty module under `name` (and its parents where missing); any attribute is a do-nothing class."""
    import importlib.util
    import types

    class Placeholder:
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            pass

    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        dotted = ".".join(parts[:i])
        if dotted in sys.modules:
            continue
        try:
            if i < len(parts) and importlib.util.find_spec(dotted) is not None:
                __import__(dotted)  # a real parent package (google, from protobuf) stays real
                continue
        except (ImportError, ValueError):
            pass
        module = types.ModuleType(dotted)
        module.__getattr__ = _placeholder_getattr(Placeholder)  # PEP 562: `from stub import Anything`
        module.__path__ = []  # a package, so submodules can hang below it
        sys.modules[dotted] = module
        if i > 1:
            setattr(sys.modules[".".join(parts[:i - 1])], parts[i - 1], module)


def _missing(name: str) -> bool:
    import importlib.util
    try:
        return importlib.util.find_spec(name) is None
    except (ImportError, ValueError):
        return True


def layout_of(upstream: Path) -> str:
    """`kernelbench` (src/kernelbench/eval.py, 423217d) or `src` (src/eval.py, 91bfc2c)."""
    if (upstream / "src" / "kernelbench" / "eval.py").is_file():
        return "kernelbench"
    if (upstream / "src" / "eval.py").is_file():
        return "src"
    raise SystemExit(f"{upstream}: no src/kernelbench/eval.py or src/eval.py; make it with "
                     "bash bench/upstream_checkout.sh COMMIT")


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


def _import_upstream(upstream: Path, layout: str) -> Any:
    """Upstream's evaluation module, as its scripts import it: `kernelbench.eval` with src/ on the path (423217d),
    `src.eval` with the checkout's root on it (91bfc2c)."""
    import importlib

    sys.path.insert(0, str(upstream / "src" if layout == "kernelbench" else upstream))
    return importlib.import_module(f"{layout}.eval")


def _as_dict(result: Any) -> dict[str, Any] | None:
    if result is None:
        return None  # upstream's "lock file error, please retry"
    return result.model_dump() if hasattr(result, "model_dump") else dict(result.__dict__)


def _evaluate(upstream_eval: Any, reference_src: str, kernel_src: str, *, backend: str, build: str,
              device: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """eval_kernel_against_ref with the arguments scripts/eval_from_generations.py passes, where this commit's
    function takes them; (its result as a dict, the arguments it does not take)."""
    import inspect

    wanted: dict[str, Any] = {
        "original_model_src": reference_src, "custom_model_src": kernel_src, "seed_num": SEED,
        "num_correct_trials": CORRECT_TRIALS, "num_perf_trials": PERF_TRIALS, "measure_performance": True,
        "timing_method": "cuda_event", "verbose": False, "build_dir": build, "device": device, "backend": backend,
    }
    accepted = inspect.signature(upstream_eval.eval_kernel_against_ref).parameters
    if "precision" in accepted:
        wanted["precision"] = upstream_eval.get_torch_dtype_from_string("fp32")
    kwargs = {k: v for k, v in wanted.items() if k in accepted}
    try:
        record = _as_dict(upstream_eval.eval_kernel_against_ref(**kwargs))
    except Exception as exc:  # evaluate_single_sample's last-level catch: recorded as not compiled
        kind = "cuda_error" if "CUDA error" in str(exc) else "other_error"
        record = {"compiled": False, "correctness": False, "metadata": {kind: f"{type(exc).__name__}: {exc}"}}
    return record, sorted(set(wanted) - set(kwargs))


def _time_reference(upstream_eval: Any, reference_src: str, device: Any) -> dict[str, Any]:
    """The eager reference as 91bfc2c's scripts/generate_baseline_time.py times it (`get_time`): inputs and init
    inputs drawn after seed 42, the model on the GPU, 100 trials of time_execution_with_cuda_event."""
    import torch

    model_cls, get_init_inputs, get_inputs = upstream_eval.load_original_model_and_inputs(reference_src, {})
    with torch.no_grad():
        torch.cuda.synchronize(device=device)
        upstream_eval.set_seed(SEED)
        inputs = [x.cuda(device=device) if isinstance(x, torch.Tensor) else x for x in get_inputs()]
        upstream_eval.set_seed(SEED)
        init = [x.cuda(device=device) if isinstance(x, torch.Tensor) else x for x in get_init_inputs()]
        model = model_cls(*init).cuda(device=device)
        torch.cuda.synchronize(device=device)
        times = upstream_eval.time_execution_with_cuda_event(model, *inputs, num_trials=PERF_TRIALS, verbose=False,
                                                             device=device)
    return upstream_eval.get_timing_stats(times, device=device)


def child(argv: list[str]) -> int:
    """`upstream_side_by_side.py child UPSTREAM PROBLEM KERNEL BACKEND BUILD_DIR MODE` (MODE: eval or build):
    prints one RESULT_TAG line of JSON last."""
    started = time.perf_counter()
    upstream, problem, kernel, backend, build, mode = argv
    here = str(Path(__file__).resolve().parent)
    sys.path[:] = [p for p in sys.path if p and str(Path(p).resolve()) != here]  # bench/'s modules shadow nothing
    layout = layout_of(Path(upstream))
    out: dict[str, Any] = {"layout": layout, "mode": mode, "backend": backend,
                           "stubbed": [name for name in STUBBABLE[layout] if _missing(name)]}
    for name in out["stubbed"]:
        _stub(name)
    upstream_eval = _import_upstream(Path(upstream), layout)
    import torch

    out["import_s"] = round(time.perf_counter() - started, 3)
    reference_src, kernel_src = Path(problem).read_text(), Path(kernel).read_text()
    device = torch.device("cuda:0")  # the parent sets CUDA_VISIBLE_DEVICES to the one GPU
    t0 = time.perf_counter()
    if mode == "build":  # upstream's own pre-build (scripts/eval_from_generations.py's build_cache step)
        ok, _, error = upstream_eval.build_compile_cache(kernel_src, verbose=False, build_dir=build)
        out.update(build_s=round(time.perf_counter() - t0, 3), built=ok, error=error)
    else:
        record, out["ignored_arguments"] = _evaluate(upstream_eval, reference_src, kernel_src, backend=backend,
                                                     build=build, device=device)
        out["eval_s"], out["result"] = round(time.perf_counter() - t0, 3), record
        fields = getattr(upstream_eval.KernelExecResult, "model_fields", {})
        if record is not None and "ref_runtime" not in fields:  # 91bfc2c: its eval times no reference
            t0 = time.perf_counter()
            try:
                stats = _time_reference(upstream_eval, reference_src, device)
                record["ref_runtime"], record["ref_runtime_stats"] = stats["mean"], stats
            except Exception as exc:
                record["ref_error"] = f"{type(exc).__name__}: {exc}"
            out["ref_s"] = round(time.perf_counter() - t0, 3)
    out["child_s"] = round(time.perf_counter() - started, 3)
    print(RESULT_TAG + json.dumps(_jsonable(out)), flush=True)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# The parent
# ---------------------------------------------------------------------------------------------------------------

@dataclass
class Kernel:
    level: int
    problem_id: int
    path: Path
    backend: str
    entry: dict[str, Any]
    problem_file: Path | None = None
    problem_sha256: str = ""
    name: str = ""

    @property
    def key(self) -> str:
        return f"level{self.level}/{self.name or self.problem_id}"


@dataclass
class Row:
    track: str
    key: str
    level: int
    problem_id: int
    backend: str
    kernel: str
    problem_sha256: str = ""
    submitted_for_this_file: bool = True
    state: str = "planned"
    """planned, measured, not-reached (budget), no-problem-file."""
    upstream_warm_s: float | None = None
    upstream_warm: dict[str, Any] = field(default_factory=dict)
    upstream_s: float | None = None
    """The timed process's wall, less the reference timing this script adds at 91bfc2c (upstream timed each
    reference once per problem there, not per kernel)."""
    upstream_process_s: float | None = None
    upstream_timeout_s: float | None = None
    upstream_bound: str = ""
    """What bounded a timed-out upstream process: upstream's per-kernel timeout, or the budget."""
    upstream: dict[str, Any] = field(default_factory=dict)
    ours_s: float | None = None
    ours: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        if self.upstream_timeout_s is not None:
            return "timeout" if self.upstream_bound.startswith("upstream") else "cut"
        if self.upstream_s is None:
            return "-"
        if "result" not in self.upstream:
            return "error"
        result = self.upstream["result"]
        if result is None:
            return "retry"  # upstream's eval returns None on a lock-file error during its build
        if not result.get("compiled"):
            return "no-compile"
        return "correct" if result.get("correctness") else "incorrect"

    @property
    def upstream_speedup(self) -> float | None:
        result = self.upstream.get("result") or {}
        try:
            runtime, reference = float(result.get("runtime", -1)), float(result.get("ref_runtime", -1))
        except (TypeError, ValueError):
            return None
        return reference / runtime if runtime > 0 and reference > 0 else None

    @property
    def ratio(self) -> float | None:
        if self.ours_s and self.upstream_s:
            return self.ours_s / self.upstream_s
        return None


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_kernels(submission: Path, upstream: Path) -> tuple[dict[str, Any], list[Kernel]]:
    """The submission's kernels (files under <dir of the JSON>/<slug>/), each with the checkout's problem file."""
    document = json.loads(submission.read_text())
    kernel_dir = submission.resolve().parent / document["slug"]
    kernels = []
    for entry in document["kernels"]:
        kernel = Kernel(int(entry["level"]), int(entry["problem_id"]), kernel_dir / entry["path"],
                        entry.get("backend", "cuda"), entry)
        found = sorted((upstream / "KernelBench" / f"level{kernel.level}").glob(f"{kernel.problem_id}_*.py"))
        if found:
            kernel.problem_file, kernel.name = found[0], found[0].stem
            kernel.problem_sha256 = sha256(found[0])
        kernels.append(kernel)
    return document, kernels


def write_submission(document: dict[str, Any], kernels: list[Kernel], folder: Path) -> Path:
    """The kernels as a submission of their own whose problem hashes are the checkout's files, so the board judges
    the file upstream's side read. Kernel files are copied under <folder>/<slug>/, where the validator looks."""
    slug = document["slug"]
    if folder.exists():
        shutil.rmtree(folder)
    (folder / slug).mkdir(parents=True)
    entries = []
    for kernel in kernels:
        target = folder / slug / kernel.entry["path"]
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kernel.path, target)
        entries.append({**kernel.entry, "problem_sha256": kernel.problem_sha256})
    path = folder / f"{slug}.json"
    path.write_text(json.dumps({**document, "kernels": entries}, indent=2) + "\n")
    return path


def run_bounded(command: list[str], env: dict[str, str], timeout_s: float, log: Path) -> tuple[float, int | None, str]:
    """Run `command` in a process group of its own, bounded: (wall seconds, exit code or None on timeout, output).
    On timeout the group (nvcc, ninja, the validator's runners) gets SIGINT, then SIGKILL."""
    started = time.perf_counter()
    with log.open("w") as sink:
        process = subprocess.Popen(command, env=env, cwd=REPO, stdout=sink, stderr=subprocess.STDOUT,
                                   start_new_session=True)
        try:
            code: int | None = process.wait(timeout=max(timeout_s, 1.0))
        except subprocess.TimeoutExpired:
            code = None
            for sig, grace in ((signal.SIGINT, 10.0), (signal.SIGKILL, 5.0)):
                try:
                    os.killpg(process.pid, sig)
                except ProcessLookupError:
                    break
                try:
                    process.wait(timeout=grace)
                    break
                except subprocess.TimeoutExpired:
                    continue
    return time.perf_counter() - started, code, log.read_text(errors="replace")


def child_command(kernel: Kernel, upstream: Path, build: Path, mode: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), "child", str(upstream), str(kernel.problem_file),
            str(kernel.path), kernel.backend, str(build), mode]


def ours_command(submission: Path, gpu: int, results: Path, report: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "validator", str(submission), "--gpus", str(gpu), "--results-dir", str(results),
            "--json", str(report), "--force", *extra]


def parse_child(output: str) -> dict[str, Any]:
    line = next((ln for ln in reversed(output.splitlines()) if ln.startswith(RESULT_TAG)), None)
    return json.loads(line[len(RESULT_TAG):]) if line else {"error": output[-1500:]}


@dataclass
class Session:
    """What every step needs: the options, the clock of the whole run, where logs go."""

    args: argparse.Namespace
    started: float = field(default_factory=time.perf_counter)

    def left(self) -> float:
        return self.args.budget_s - (time.perf_counter() - self.started)

    def ours_reserve(self, kernels: int) -> float:
        """Seconds kept for the board's side of `kernels` kernels while upstream's side runs."""
        if self.args.side != "both":
            return 0.0
        return self.args.ours_fixed_s + self.args.ours_per_kernel_s * kernels

    def log(self, name: str, title: str, text: str) -> None:
        with (self.args.out / name).open("a") as sink:
            sink.write(f"\n===== {title} =====\n{text}")


@dataclass
class Track:
    """One upstream commit: its checkout, the submission's kernels with its problem files, a work folder."""

    name: str
    upstream: Path
    document: dict[str, Any]
    kernels: list[Kernel]
    work: Path
    rows: dict[str, Row] = field(default_factory=dict)
    ours: dict[str, Any] = field(default_factory=dict)

    @property
    def commit(self) -> str:
        path = self.upstream / "COMMIT"
        return path.read_text().strip() if path.is_file() else self.name

    def build_dir(self, kernel: Kernel) -> Path:
        return self.work / "upstream-build" / kernel.key.replace("/", "_")


UNLOADABLE = "not a pair: upstream's eval here cannot load a Triton kernel"


def upstream_loads(kernel: Kernel, upstream: Path) -> bool:
    """Whether upstream's evaluation at this checkout can load the kernel at all. 91bfc2c's `load_custom_model`
    exec()s the kernel's source as a string, and Triton refuses to compile a @jit function with no file behind it
    ("@jit functions should be defined in a Python file"; 423217d writes a temporary file first): on an H100 its
    process spent 12-16 s per Triton kernel only to report it uncompiled, which is no cost of evaluating it."""
    return not (kernel.backend == "triton" and layout_of(upstream) == "src")


def upstream_side(session: Session, track: Track) -> list[Kernel]:
    """A warm and a timed process per kernel, in order, while what is left after the board's reserve allows;
    the kernels reached."""
    args = session.args
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": str(args.gpu), "PYTHONUNBUFFERED": "1"}
    reached: list[Kernel] = []
    for kernel in track.kernels:
        if kernel.problem_file is None:
            continue
        row = track.rows[kernel.key]
        if not upstream_loads(kernel, track.upstream):
            row.state = UNLOADABLE
            continue
        reserve = session.ours_reserve(len(reached) + 1)
        if session.left() - reserve < args.min_kernel_s:
            row.state = "not-reached (budget)"
            continue
        reached.append(kernel)
        row.state = "measured"
        build = track.build_dir(kernel)
        build.mkdir(parents=True, exist_ok=True)
        runs = ([(args.warm, False)] if args.warm != "none" else []) + [("eval", True)]
        for mode, timed in runs:
            bound = min(args.kernel_timeout_s, max(session.left() - reserve, 1.0))
            wall, code, output = run_bounded(child_command(kernel, track.upstream, build, mode), env, bound,
                                             track.work / "one.log")
            session.log("upstream.log", f"{track.name} {kernel.key}: {'timed' if timed else 'warm'} ({mode}), "
                                        f"{wall:.1f} s, exit {code}", output)
            if code is None:  # after a timed-out warm run the timed run would not finish either: skipped
                row.upstream_timeout_s = round(bound, 1)
                row.upstream_bound = "upstream's per-kernel timeout" if bound >= args.kernel_timeout_s else "budget"
                break
            if timed:
                row.upstream = parse_child(output)
                row.upstream_process_s = round(wall, 2)
                row.upstream_s = round(wall - float(row.upstream.get("ref_s") or 0.0), 2)
            else:
                row.upstream_warm_s, row.upstream_warm = round(wall, 2), parse_child(output)
        print(f"  upstream {kernel.key}: {row.verdict}, timed {fmt_s(row.upstream_s, row.upstream_timeout_s)} s "
              f"(warm {fmt_s(row.upstream_warm_s)} s)", flush=True)
    return reached


def ours_side(session: Session, track: Track, kernels: list[Kernel]) -> None:
    """kb-validate once on `kernels`, written as a submission of the checkout's problem files; each problem's
    `seconds` and status into its row, the run's stages and wall into track.ours."""
    args = session.args
    submission = write_submission(track.document, kernels, track.work / "submission")
    results, report = track.work / "results", track.work / "ours-report.json"
    shutil.rmtree(results, ignore_errors=True)
    results.mkdir(parents=True)  # kb-validate refuses a --results-dir that does not exist
    report.unlink(missing_ok=True)
    command = ours_command(submission, args.gpu, results, report, args.validate_arg)
    bound = max(session.left(), 1.0)
    wall, code, output = run_bounded(command, {**os.environ, "PYTHONUNBUFFERED": "1"}, bound,
                                     track.work / "ours.log")
    session.log("ours.log", f"{track.name}: {shlex.join(command)}, {wall:.1f} s, exit {code}", output)
    track.ours = {"wall_s": round(wall, 1), "exit_code": code, "timeout_s": None if code is not None else round(bound)}
    if report.is_file():
        for entry in json.loads(report.read_text()).get("submissions", []):
            track.ours["stages_s"] = {stage["stage"]: stage["seconds"] for stage in entry.get("stages", [])}
    by_problem = {(k.level, k.problem_id): track.rows[k.key] for k in kernels}
    for path in sorted(results.glob("*/*.json")):
        data = json.loads(path.read_text())
        if not isinstance(data, dict) or "problems" not in data:
            continue
        environment = data.get("environment") or {}
        track.ours.update(results_file=str(path), gpu=environment.get("gpu"), torch=environment.get("torch"),
                          sandbox=(environment.get("extra") or {}).get("sandbox"))
        shutil.copyfile(path, args.out / f"ours-results-{track.name}.json")
        for problem in data["problems"]:
            row = by_problem.get((problem.get("level"), problem.get("problem_id")))
            if row is not None:
                row.ours_s = problem.get("seconds")
                row.ours = {k: problem.get(k) for k in OURS_FIELDS}


def fmt_s(value: float | None, timeout: float | None = None) -> str:
    if timeout is not None:
        return f">{timeout:.0f}"
    return "-" if value is None else f"{value:.1f}"


def fmt_f(value: float | None, width: int = 0, digits: int = 2) -> str:
    return f"{'-':>{width}}" if value is None else f"{value:>{width}.{digits}f}"


def table(rows: list[Row]) -> list[str]:
    lines = [f"{'problem':40} {'upstream s':>10} {'ours s':>7} {'ratio':>6} {'upstream':>10} {'ours':>13} "
             f"{'x up':>6} {'x ours':>6}  note"]
    for row in rows:
        ratio = fmt_f(row.ratio, 6)
        if row.upstream_timeout_s is not None and row.ours_s:
            ratio = f"<{row.ours_s / row.upstream_timeout_s:.2f}".rjust(6)
        notes = [] if row.state in ("measured", "planned") else [row.state]
        if row.upstream_s is not None and row.verdict not in ("correct", "incorrect", "timeout", "cut"):
            notes.append("upstream did not evaluate it: left out of the medians")
        if not row.submitted_for_this_file:
            notes.append("kernel submitted for another version of this problem")
        status = str(row.ours.get("status") or "-")
        lines.append(f"{row.key[:40]:40} {fmt_s(row.upstream_s, row.upstream_timeout_s):>10} {fmt_s(row.ours_s):>7} "
                     f"{ratio} {row.verdict:>10} {status[:13]:>13} {fmt_f(row.upstream_speedup, 6)} "
                     f"{fmt_f(row.ours.get('speedup'), 6)}  {'; '.join(notes)}")
    return lines


def medians(rows: list[Row]) -> dict[str, Any]:
    def median(values: list[float]) -> float | None:
        return round(statistics.median(values), 3) if values else None

    # A pair is a kernel both sides evaluated: a process that reported it uncompiled (or failed) did not evaluate it
    paired = [r for r in rows if r.ratio is not None and r.ours_s is not None and r.upstream_s is not None
              and r.verdict in ("correct", "incorrect")]
    return {
        "pairs": len(paired),
        "median_ratio": median([r.ours_s / r.upstream_s for r in paired]),
        "max_ratio": round(max(r.ours_s / r.upstream_s for r in paired), 3) if paired else None,
        "median_ratio_vs_upstream_eval_call": median([r.ours_s / r.upstream["eval_s"] for r in paired
                                                      if r.upstream.get("eval_s")]),
        "median_upstream_s": median([r.upstream_s for r in paired]),
        "median_ours_s": median([r.ours_s for r in paired]),
        "upstream_stopped": [r.key for r in rows if r.upstream_timeout_s is not None],
    }


def summary_lines(session: Session, tracks: list[Track], next_start: int | None) -> list[str]:
    lines = []
    for track in tracks:
        rows = list(track.rows.values())
        data, stages = medians(rows), track.ours.get("stages_s", {})
        warm = [r.upstream_warm_s for r in rows if r.upstream_warm_s is not None]
        judged = sum(r.ours_s is not None for r in rows)
        lines += [
            f"track {track.name}: median ratio ours/upstream {fmt_f(data['median_ratio'], 0, 3)} over "
            f"{data['pairs']} pair(s), max {fmt_f(data['max_ratio'], 0, 3)}; against upstream's eval call alone "
            f"{fmt_f(data['median_ratio_vs_upstream_eval_call'], 0, 3)}; median upstream "
            f"{fmt_s(data['median_upstream_s'])} s, ours {fmt_s(data['median_ours_s'])} s; upstream stopped (its "
            f"timeout or the budget) on {len(data['upstream_stopped'])}",
            f"  builds, apart: upstream's warm runs ({session.args.warm}) {sum(warm):.1f} s over {len(warm)} "
            f"kernel(s); kb-validate's build stage {stages.get('build', '-')} s, evaluate stage "
            f"{stages.get('evaluate', '-')} s, whole process {track.ours.get('wall_s', '-')} s "
            f"(exit {track.ours.get('exit_code', '-')})" + (
                f", {track.ours['wall_s'] / judged:.1f} s a kernel with its start, build and imports spread over "
                f"{judged}" if judged and track.ours.get("wall_s") else ""),
        ]
    if next_start is not None:
        lines.append(f"budget: stopped before every kernel was measured; continue with --start {next_start}")
    return lines + [f"note: {n}" for n in notes(session.args)]


def notes(args: argparse.Namespace) -> list[str]:
    warm = {"eval": "a whole evaluation", "build": "upstream's build_compile_cache alone"}.get(args.warm)
    return [
        f"upstream s: one fresh process per kernel running eval_kernel_against_ref ({CORRECT_TRIALS} correctness + "
        f"{PERF_TRIALS} timed trials, CUDA events, seed {SEED}, fp32) and timing the reference, measured whole "
        "(interpreter, imports, loading the build, evaluation); at 91bfc2c, whose eval times no reference, the "
        "process also times it as generate_baseline_time.py did, for the speedup, and those seconds are left out "
        "of upstream s (upstream paid them once per problem, not per kernel)",
        f"upstream's build: an untimed first process per kernel ({warm}) into the same build directory, so the timed "
        "one finds it cached" if warm else "no upstream warm run: upstream s includes the build",
        "ours s: kb-validate's per-problem `seconds`: evaluation alone; its build is the build stage above, and its "
        "interpreter start and torch import are paid once by the pre-imported server its runners fork from (the "
        "default zygote launcher), outside `seconds`; upstream s pays them per kernel, so the ratio against "
        "upstream's eval call alone (imports left out) is the stricter one",
        "ratio: ours s / upstream s; '<x' where upstream's process was stopped (ours s / its bound)",
    ]


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="upstream_side_by_side.py", description=__doc__.splitlines()[0],
                                     epilog="\n".join(__doc__.splitlines()[5:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("submission", type=Path, nargs="?", default=DEFAULT_SUBMISSION,
                        help="submission JSON (default submissions/kernelbench-team-examples.json)")
    parser.add_argument("--track", default=TRACKS[0],
                        help=f"upstream commit(s) whose evaluation and problem files to use, comma-separated "
                             f"({' or '.join(TRACKS)}; default {TRACKS[0]})")
    parser.add_argument("--upstream", type=Path, help="the exported checkout (default .upstream/<track>)")
    parser.add_argument("--gpu", type=int, default=0, help="the one GPU both sides use (default 0)")
    parser.add_argument("--start", type=int, default=0, help="skip this many kernels (a run over several calls)")
    parser.add_argument("--limit", type=int, default=0, help="at most this many kernels (default 0: all)")
    parser.add_argument("--side", choices=("both", "upstream", "ours"), default="both")
    parser.add_argument("--warm", choices=("eval", "build", "none"), default="eval",
                        help="upstream's untimed first process per kernel: a whole evaluation (default), upstream's "
                             "build_compile_cache alone, or none")
    parser.add_argument("--budget-s", type=float, default=540.0,
                        help="the whole run's seconds (default 540, inside the device's 600 s command limit; a "
                             "stopped process gets up to 15 s more to exit)")
    parser.add_argument("--kernel-timeout-s", type=float, default=UPSTREAM_TIMEOUT_S,
                        help="each upstream process's bound (default 180 s, upstream's own per-kernel timeout)")
    parser.add_argument("--min-kernel-s", type=float, default=30.0,
                        help="start no upstream kernel with less than this left after the board's reserve")
    parser.add_argument("--ours-fixed-s", type=float, default=60.0,
                        help="kept for the board's side while upstream's runs: its start and build (default 60 s)")
    parser.add_argument("--ours-per-kernel-s", type=float, default=45.0,
                        help="kept for the board's side, per kernel (default 45 s)")
    parser.add_argument("--validate-arg", action="append", default=[], metavar="ARG",
                        help="passed on to kb-validate, e.g. --validate-arg=--timeout-scale=2 (repeatable)")
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT") or "/tmp/kb-side-by-side"),
                        help="side_by_side.json and the logs (default $OUT, else /tmp/kb-side-by-side)")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kb-side-by-side-work"),
                        help="build directories, the written submission, kb-validate's results (not brought back)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan and its commands; run nothing")
    args = parser.parse_args(argv)
    args.tracks = list(dict.fromkeys(t.strip() for t in args.track.split(",") if t.strip()))
    if not args.tracks:
        parser.error("--track: name at least one upstream commit")
    if args.upstream is not None and len(args.tracks) > 1:
        parser.error("--upstream names one checkout: give it with one --track")
    if min(args.gpu, args.start, args.limit) < 0:
        parser.error("--gpu, --start and --limit take numbers from 0")
    if args.budget_s <= 0 or args.kernel_timeout_s <= 0:
        parser.error("--budget-s and --kernel-timeout-s take positive seconds")
    return args


def open_track(args: argparse.Namespace, name: str) -> Track:
    upstream = (args.upstream or REPO / ".upstream" / name).resolve()
    if not upstream.is_dir():
        raise SystemExit(f"{upstream}: no checkout; make it with: bash bench/upstream_checkout.sh {name}")
    layout_of(upstream)
    commit_file = upstream / "COMMIT"
    commit = commit_file.read_text().strip() if commit_file.is_file() else ""
    if commit and not (commit.startswith(name) or name.startswith(commit)):
        raise SystemExit(f"{upstream} holds KernelBench {commit[:12]}, not {name}")
    document, kernels = load_kernels(args.submission.resolve(), upstream)
    kernels = kernels[args.start:args.start + args.limit] if args.limit else kernels[args.start:]
    track = Track(name, upstream, document, kernels, args.work.resolve() / name)
    for kernel in kernels:
        kernel_path = kernel.path.relative_to(REPO) if kernel.path.is_relative_to(REPO) else kernel.path
        track.rows[kernel.key] = Row(
            name, kernel.key, kernel.level, kernel.problem_id, kernel.backend, str(kernel_path),
            kernel.problem_sha256, submitted_for_this_file=kernel.entry.get("problem_sha256") == kernel.problem_sha256,
            state="planned" if kernel.problem_file else "no-problem-file")
    return track


def plan(args: argparse.Namespace, track: Track) -> list[str]:
    """The commands a run would make, in order, for --dry-run."""
    runnable = [k for k in track.kernels if k.problem_file is not None]
    lines = [f"# track {track.name}: {track.upstream} (KernelBench {track.commit[:12]}, {layout_of(track.upstream)} "
             f"layout), GPU {args.gpu}, {len(runnable)} kernel(s), budget {args.budget_s:.0f} s"]
    prefix = f"CUDA_VISIBLE_DEVICES={args.gpu}"
    for kernel in track.kernels:
        row = track.rows[kernel.key]
        if kernel.problem_file is None:
            lines.append(f"# {kernel.key}: no problem file in the checkout: skipped")
            continue
        if not upstream_loads(kernel, track.upstream):
            lines.append(f"# {kernel.key}: {UNLOADABLE}: skipped")
            continue
        if not row.submitted_for_this_file:
            lines.append(f"# {kernel.key}: submitted for another version of the problem; both sides judge "
                         f"{kernel.problem_file.name} at {track.name}")
        if args.side == "ours":
            continue
        if args.warm != "none":
            command = child_command(kernel, track.upstream, track.build_dir(kernel), args.warm)
            lines.append(f"{prefix} {shlex.join(command)}  # warm, untimed, bound {args.kernel_timeout_s:.0f} s")
        command = child_command(kernel, track.upstream, track.build_dir(kernel), "eval")
        lines.append(f"{prefix} {shlex.join(command)}  # timed, bound {args.kernel_timeout_s:.0f} s")
    if args.side != "upstream" and runnable:
        submission = track.work / "submission" / f"{track.document['slug']}.json"
        lines.append(f"# write {submission} and its kernel files: the kernels upstream's side reached, with the "
                     "checkout's problem hashes")
        command = ours_command(submission, args.gpu, track.work / "results", track.work / "ours-report.json",
                               args.validate_arg)
        lines.append(f"{shlex.join(command)}  # bound: what is left of the budget")
    return lines


def run_track(session: Session, track: Track) -> int | None:
    """Both sides on one track; the index (for --start) of the first kernel the budget left out, if any."""
    track.work.mkdir(parents=True, exist_ok=True)
    runnable = [k for k in track.kernels if k.problem_file is not None]
    print(f"track {track.name}: {track.upstream}, {len(runnable)} kernel(s), {session.left():.0f} s left",
          flush=True)
    if session.args.side == "ours":
        reached = runnable
        for kernel in reached:
            track.rows[kernel.key].state = "measured"
    else:
        reached = upstream_side(session, track)
    if session.args.side != "upstream" and reached:
        ours_side(session, track, reached)
    missed = [i for i, k in enumerate(track.kernels) if track.rows[k.key].state.startswith("not-reached")]
    return session.args.start + missed[0] if missed else None


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["child"]:
        return child(argv[1:])
    args = parse_args(argv)
    tracks = [open_track(args, name) for name in args.tracks]
    if args.dry_run:
        for track in tracks:
            print("\n".join(plan(args, track)))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("upstream.log", "ours.log"):
        (args.out / name).write_text("")
    session = Session(args)
    starts = [run_track(session, track) for track in tracks]
    next_start = min((s for s in starts if s is not None), default=None)
    rows = [row for track in tracks for row in track.rows.values()]
    report = {
        "submission": str(args.submission), "gpu": args.gpu, "budget_s": args.budget_s,
        "elapsed_s": round(time.perf_counter() - session.started, 1), "warm": args.warm,
        "kernel_timeout_s": args.kernel_timeout_s, "next_start": next_start, "notes": notes(args),
        "tracks": {t.name: {"upstream": str(t.upstream), "upstream_commit": t.commit, "layout": layout_of(t.upstream),
                            "ours": t.ours, **medians(list(t.rows.values()))} for t in tracks},
        "rows": [asdict(r) | {"verdict": r.verdict, "ratio": r.ratio, "upstream_speedup": r.upstream_speedup}
                 for r in rows],
    }
    (args.out / "side_by_side.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    print("\n".join(table(rows) + summary_lines(session, tracks, next_start)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
