"""Runs the red-team corpus through the real worker and prints (case, expected, got).

    python tests/redteam/runner.py --mode cpu            # CI: Triton interpreter, reduced sizes
    python tests/redteam/runner.py --mode gpu -j 4       # the GPU machine
    KB_REDTEAM_GPUS=4 python tests/redteam/runner.py --mode gpu -j 8   # cases spread over four GPUs

This process imports torch, Triton and the judge once and never touches CUDA, then forks one judge per
case (the engine's zygote does the same); each judge starts its own sandboxed runner (bubblewrap where
`bwrap` works, as the engine does). A case whose judge crashes or hangs is mapped the way the engine maps
it (runtime_error, timeout). Exit status 0 when every case was caught.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CASES_FILE = HERE / "cases.json"
GPU_PROTOCOL = {"time_budget_s": 2.0, "min_rounds": 5, "max_rounds": 40, "warmup_calls": 2}
"""Shorter timing for red-team runs: the catches do not depend on a tight speedup interval."""
CPU_PROTOCOL = {"read_share": 64.0}
"""On the CPU every call is read: its runs hold a few dozen calls, so a split kernel cheating after the required
trials would escape the protocol's sampled reads about once in a hundred runs there; the CPU corpus checks that the
rules catch each cheat, and the GPU run keeps the protocol's share."""


@dataclass(frozen=True)
class Case:
    file: str
    problem: str
    attack: str
    expect: dict[str, Any]
    cpu: bool = True
    gpu: bool = True
    expect_cpu: dict[str, Any] | None = None
    policy: dict[str, str] | None = None
    """What the static policy must do: {"must": "reject" | "flag", "code": reason code}."""
    timeout_s: float | None = None

    @property
    def name(self) -> str:
        return self.file.split(".py", 1)[0]

    @property
    def path(self) -> Path:
        return REPO / self.file if self.file.startswith("submissions/") else HERE / self.file

    def expected(self, mode: str) -> dict[str, Any]:
        return self.expect_cpu if mode == "cpu" and self.expect_cpu else self.expect

    def runs_in(self, mode: str) -> bool:
        return self.cpu if mode == "cpu" else self.gpu


@dataclass(frozen=True)
class Outcome:
    status: str
    codes: tuple[str, ...] = ()
    error: str = ""
    seconds: float = 0.0
    messages: tuple[str, ...] = ()
    """The flags' messages, for reading why a case came out as it did."""


def load_cases() -> list[Case]:
    return [Case(**entry) for entry in json.loads(CASES_FILE.read_text(encoding="utf-8"))["cases"]]


def caught(case: Case, outcome: Outcome, mode: str) -> bool:
    """Did the harness give the case its expected status and (one of) its expected reason code(s)?"""
    expected = case.expected(mode)
    for want in (expected, *expected.get("also", ())):
        if outcome.status == want["status"] and (want.get("code") is None or want["code"] in outcome.codes):
            return True
    return False


def write_job(case: Case, workdir: Path, mode: str, sandbox: str = "none", ring_dir: Path | None = None, *,
              turn: str = "", timeout_s: float = 0.0) -> tuple[Path, Path]:  # fmt: skip
    """Copy the case's kernel to workdir/kernel.py and write the Job the engine would write for it (with the ring
    directory the scheduler would make for it, and its GPU's turn file, where given)."""
    from validator.evaluate.jobs import Job, write_job
    from validator.protocol import PROTOCOL
    from validator.submission.kernel_names import own_kernel_names

    workdir.mkdir(parents=True, exist_ok=True)
    kernel = workdir / "kernel.py"
    source = case.path.read_text(encoding="utf-8")
    kernel.write_text(source, encoding="utf-8")
    problem = REPO / "problems" / f"{case.problem}.py"
    level, rest = case.problem.split("/")
    protocol = PROTOCOL.to_dict() | (GPU_PROTOCOL if mode == "gpu" else CPU_PROTOCOL)
    job = Job(
        key=case.problem, level=int(level.removeprefix("level")), problem_id=int(rest.split("_")[0]),
        problem_path=str(problem), problem_sha256=hashlib.sha256(problem.read_bytes()).hexdigest(),
        kernel_path=str(kernel), kernel_sha256=hashlib.sha256(source.encode()).hexdigest(), backend="triton",
        extensions_dir=str(workdir / "ext"), seed=int.from_bytes(os.urandom(8), "little") >> 1,
        protocol=protocol, own_kernel_names=own_kernel_names(source),
        interpret=mode == "cpu", reduced=True, sandbox=sandbox, ring_dir=str(ring_dir or ""),
        gpu_turn=turn, turn_limit_s=timeout_s if turn else 0.0,
    )
    write_job(job, workdir / "job.json")
    return workdir / "job.json", workdir / "out.json"


def _child(job: Path, out: Path, workdir: Path, mode: str) -> None:
    """In the forked child: become a worker. Never returns."""
    code = 3
    try:
        os.setsid()
        os.chdir(workdir)
        os.environ["TORCH_EXTENSIONS_DIR"] = str(workdir / "ext")
        if mode == "cpu":
            os.environ["TRITON_INTERPRET"] = "1"
        log = os.open(workdir / "log.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
        os.dup2(log, 1)
        os.dup2(log, 2)
        from validator.evaluate.judge.run import main

        code = main([str(job), str(out)])
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _outcome(out: Path, wait_status: int | None, seconds: float) -> Outcome:
    if wait_status is None:
        return Outcome("timeout", (), "killed at the case's time limit", seconds)
    if out.exists():
        data = json.loads(out.read_text(encoding="utf-8"))
        return Outcome(data["status"], tuple(f["code"] for f in data["flags"]), data["error"][:300], seconds,
                       tuple(f"{f['code']}: {f['message'][:300]}" for f in data["flags"]))
    if os.WIFSIGNALED(wait_status) and os.WTERMSIG(wait_status) == signal.SIGALRM:  # its turn's limit (`gpu_turn`)
        return Outcome("timeout", (), "killed at the case's time limit in its turn on the GPU", seconds)
    if os.WIFSIGNALED(wait_status):
        return Outcome("runtime_error", ("worker-crashed",), f"signal {os.WTERMSIG(wait_status)}", seconds)
    return Outcome("runtime_error", ("worker-crashed",), f"exit {os.waitstatus_to_exitcode(wait_status)}", seconds)


@dataclass
class _Running:
    case: Case
    pid: int
    out: Path
    deadline: float
    hold: contextlib.ExitStack
    """What this parent made for the case as the scheduler would (its ring directory), closed once it ends."""
    started: float = field(default_factory=time.perf_counter)


def run_cases(cases: list[Case], mode: str, root: Path, parallel: int, timeout_s: float) -> dict[str, Outcome]:
    """Fork one worker per case, `parallel` at a time, from this (pre-imported, CUDA-free) process."""
    if mode == "cpu":  # before Triton is imported: its own @jit helpers (tl.sum, ...) are decorated then
        os.environ["TRITON_INTERPRET"] = "1"
    import torch._dynamo  # noqa: F401  (imported once here so children skip it; it rebinds torch.manual_seed)
    import triton  # noqa: F401

    import validator.evaluate.judge.run  # noqa: F401
    from validator.evaluate.judge import launch
    from validator.isolation import bwrap

    isolation = bwrap.probe()
    print(f"runner sandbox: {isolation.sandbox} ({isolation.detail})", flush=True)
    # Cases sharing a GPU take turns at measuring, as the scheduler's judges do (`gpu_turn`): a judge's calls inside
    # another's rounds held the control ReLU on an H200 (`reference-slowed` then; they make the twin wait for the GPU).
    spread = os.environ.get("KB_REDTEAM_GPUS")
    gpus = int(spread or 1)
    turns = [str(root / f"gpu-turn-{g}") for g in range(gpus)] if mode == "gpu" else [""] * gpus
    for turn in filter(None, turns):
        Path(turn).touch()
    pending, running, outcomes = list(cases), [], {}
    while pending or running:
        while pending and len(running) < parallel:
            case = pending.pop(0)
            if case.name.startswith(UNCONFINED_NEVER) and not (isolation.confined and ESCAPES_ASKED):
                # These kernels kill every process they can see and write outside their job: without the
                # sandbox they would end the test run itself (and anything else of this uid). They run only
                # where the sandbox is up and KB_REDTEAM_ESCAPES=1 says this machine may take the risk.
                why = isolation.detail if not isolation.confined else "KB_REDTEAM_ESCAPES=1 not set"
                outcomes[case.name] = Outcome("skipped", ("no-sandbox",), f"not run: {why}")
                continue
            hold = contextlib.ExitStack()
            ring = launch.ring_dir(hold) if isolation.confined else None
            started = len(outcomes) + len(running)
            job, out = write_job(case, root / case.name.replace("/", "__"), mode, isolation.sandbox, ring,
                                 turn=turns[started % gpus], timeout_s=case.timeout_s or timeout_s)
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                if spread:  # cases spread over the machine's GPUs, one each (the judge and its runners see it as 0)
                    os.environ["CUDA_VISIBLE_DEVICES"] = str(started % gpus)
                _child(job, out, job.parent, mode)
            limit = case.timeout_s or timeout_s  # a judge may first wait as long for its GPU's turn
            running.append(_Running(case, pid, out, time.perf_counter() + (2 * limit if turns[0] else limit), hold))
        time.sleep(0.05)
        for item in list(running):
            done, status = os.waitpid(item.pid, os.WNOHANG)
            if not done and time.perf_counter() < item.deadline:
                continue
            if not done:
                os.killpg(item.pid, signal.SIGKILL)
                os.waitpid(item.pid, 0)
                status = None
            outcomes[item.case.name] = got = _outcome(item.out, status, time.perf_counter() - item.started)
            item.hold.close()
            # one line as each case ends: a run cut short by its caller's time limit still shows what it measured
            print(f"done {item.case.name} {got.status}/{','.join(got.codes)} {got.seconds:.1f}s "
                  f"{'yes' if caught(item.case, got, mode) else 'NO'}", file=sys.stderr, flush=True)
            running.remove(item)
    return outcomes


def refused_by_bound(outcome: Outcome) -> bool:
    """The scheduler's test (`scheduler.refused_by_bound`) on an outcome."""
    return outcome.status == "rejected" and "timing-unverified" in outcome.codes


def rejudged(cases: list[Case], outcomes: dict[str, Outcome], mode: str, root: Path,
             timeout_s: float) -> dict[str, Outcome]:  # fmt: skip
    """Each case the timing bound refused, judged once more alone, as the scheduler judges such a problem again
    with a fresh judge, runner and seed (`bound_attempts`). Cases run `-j` at a time share one GPU, which no
    verified run does: the other judges' work lands inside a judge's spans, and an honest call can exceed the
    allowance its calls of nothing set while the GPU was quieter (seen on an H200: a bf16 GEMM expected to be
    `incorrect` was refused by 4% of its allowance with four cases on the card). A forgery is refused again."""
    again = [case for case in cases if case.name in outcomes and refused_by_bound(outcomes[case.name])]
    if not again:
        return {}
    second = run_cases(again, mode, root, 1, timeout_s)
    return {name: dataclasses.replace(got, codes=(*got.codes, "timing-rejudged"),
                                      seconds=got.seconds + outcomes[name].seconds,
                                      messages=(*got.messages, f"timing-rejudged: first: {outcomes[name].error}"))
            for name, got in second.items()}


MARK_NAMES = ("kb-redteam-mark-everywhere", "kb-redteam-planted")
UNCONFINED_NEVER = ("sandbox-escape/",)
ESCAPES_ASKED = os.environ.get("KB_REDTEAM_ESCAPES") == "1"
"""Cases run only inside the runner sandbox: unconfined they would harm the machine running the tests."""
DETACHED_SIGN = b"600.4242"


def leftovers(root: Path | None = None) -> list[str]:
    """What escape cases may have left outside their sandbox: mark files in HOME, the checkout, the shared
    temporary directories and the build cache, and detached `sleep 600.4242` processes. Removed once listed."""
    places = {Path.home(), Path("/root"), Path("/tmp"), Path("/dev/shm"), Path("/var/tmp"), Path("/work"),
              REPO, REPO.parent, *REPO.parents, Path.home() / ".cache" / "kb-validate" / "kernels"}
    found = []
    for place in places:
        for name in MARK_NAMES:
            mark = place / name
            if mark.exists() or mark.is_symlink():
                found.append(str(mark))
                _remove(mark)
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if DETACHED_SIGN in cmdline.read_bytes():
                found.append(f"process {cmdline.parent.name} (sleep 600.4242)")
                os.kill(int(cmdline.parent.name), signal.SIGKILL)  # started by a case of this run
        except OSError:
            continue
    return found


def _remove(path: Path) -> None:
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def table(cases: list[Case], outcomes: dict[str, Outcome], mode: str) -> str:
    rows = [f"{'case':<52} {'expected':<36} {'got':<48} ok"]
    for case in cases:
        if case.name not in outcomes:
            continue
        got, expected = outcomes[case.name], case.expected(mode)
        want = f"{expected['status']}/{expected.get('code') or '-'}"
        shown = f"{got.status}/{','.join(c for c in got.codes if c not in _INFO) or '-'}"
        rows.append(f"{case.name:<52} {want:<36} {shown[:48]:<48} {'yes' if caught(case, got, mode) else 'NO'}")
    return "\n".join(rows)


_INFO = {"precision-check", "gpu-checks-skipped", "persisting-l2-reset"}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mode", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("-j", "--parallel", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=180.0, help="seconds per case unless the case says")
    parser.add_argument("--only", nargs="*", default=None, help="case names (directory/file without .py)")
    parser.add_argument("--json", type=Path, default=None, help="write outcomes here")
    args = parser.parse_args(argv)
    cases = [c for c in load_cases() if c.runs_in(args.mode) and (args.only is None or c.name in args.only)]
    os.environ.setdefault(CANARY, secrets_token())
    with tempfile.TemporaryDirectory(prefix="kb-redteam-") as tmp:
        (Path(tmp) / "canary.txt").write_text(f"{CANARY}={os.environ[CANARY]}\n")  # outside every job directory
        outcomes = run_cases(cases, args.mode, Path(tmp), args.parallel, args.timeout)
        outcomes |= rejudged(cases, outcomes, args.mode, Path(tmp) / "rejudged", args.timeout)
    left = leftovers()
    if args.json:
        data = {k: asdict(v) for k, v in outcomes.items()}
        args.json.write_text(json.dumps({"outcomes": data, "leftovers": left}, indent=1), encoding="utf-8")
    print(table(cases, outcomes, args.mode))
    if left:
        print(f"LEFT BEHIND outside the sandbox (now removed): {left}")
    missed = [c.name for c in cases if not caught(c, outcomes[c.name], args.mode)]
    print(f"{len(cases) - len(missed)}/{len(cases)} caught ({args.mode})" + (f"; missed: {missed}" if missed else ""))
    return 1 if missed or left else 0


CANARY = "KB_REDTEAM_CANARY"
"""An environment variable (and a file beside the job directories) that read_secrets must not find."""


def secrets_token() -> str:
    import secrets

    return secrets.token_hex(16)


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
