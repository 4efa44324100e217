"""Run the catalogue filters for many problems, in this process or in an isolated worker process.

At full size on a GPU a problem can hang, run out of memory or poison the CUDA context, so there the
checks run in a child (`python -m validator.catalogue.check_worker`) that imports torch once and takes one
problem at a time from stdin (a JSON line) and answers on a private pipe (a JSON line). The parent
gives each problem a time cap: past it the child's process group is killed, the problem is recorded as
`timeout`, and a fresh child takes the next problem. A child that dies is `worker-crashed` with its
stderr tail. A global budget stops the run in time; problems left are `not-run`.
"""

from __future__ import annotations

import contextlib
import json
import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from validator.catalogue.checks import STAGE, CheckSpec, ProblemCheck, check_problem
from validator.catalogue.problems import Problem
from validator.findings import Finding

Progress = Callable[[ProblemCheck, int, int], None]


def _failed(problem: Problem, code: str, message: str) -> ProblemCheck:
    shown = f"level{problem.level}/{problem.path.name}"
    finding = Finding(code, STAGE, message, file=shown, problem=problem.key)
    return ProblemCheck(problem.key, shown, problem.sha256, "failed", (finding,))


def run_in_process(
    problems: Iterable[Problem], spec: CheckSpec, progress: Progress | None = None
) -> list[ProblemCheck]:
    problems = list(problems)
    results = []
    for i, problem in enumerate(problems):
        results.append(check_problem(problem, spec))
        if progress:
            progress(results[-1], i + 1, len(problems))
    return results


class _Worker:
    """One child process; `ask` sends one problem and waits at most `timeout_s` for the answer."""

    def __init__(self, log: IO[str], threads: int) -> None:
        read_fd, write_fd = os.pipe()
        env = {**os.environ, "KB_CATALOGUE_RESULT_FD": str(write_fd), "KB_CATALOGUE_THREADS": str(threads)}
        self.log = log
        self.process = subprocess.Popen(
            [sys.executable, "-m", "validator.catalogue.check_worker"], stdin=subprocess.PIPE, stdout=log, stderr=log,
            env=env, pass_fds=(write_fd,), start_new_session=True, text=True,
        )
        os.close(write_fd)
        self.results = os.fdopen(read_fd, "r", encoding="utf-8")

    def ask(self, problem: Problem, spec: CheckSpec, timeout_s: float) -> ProblemCheck | str:
        """The check, or why there is none: 'timeout' or 'crashed'."""
        request = {"path": str(problem.path), "level": problem.level, "problem_id": problem.problem_id,
                   "name": problem.name, "sha256": problem.sha256, "spec": asdict(spec)}
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(json.dumps(request) + "\n")
            self.process.stdin.flush()
        except OSError:
            return "crashed"
        with selectors.DefaultSelector() as selector:
            selector.register(self.results, selectors.EVENT_READ)
            if not selector.select(timeout_s):
                return "timeout"
        line = self.results.readline()
        return ProblemCheck.from_dict(json.loads(line)) if line else "crashed"

    def close(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.results.close()


def _tail(path: Path, lines: int = 8) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


MAX_CONSECUTIVE_CRASHES = 3  # then the worker itself is broken (no GPU, bad install): stop trying


def run_isolated(problems: Iterable[Problem], spec: CheckSpec, *, per_problem_s: float, budget_s: float,
                 log_path: Path, threads: int = 2, progress: Progress | None = None) -> list[ProblemCheck]:
    """Check each problem in a worker child; the log file collects every child's stdout and stderr."""
    problems = list(problems)
    results: list[ProblemCheck] = []
    deadline = time.monotonic() + budget_s
    crashes = 0
    with log_path.open("a", encoding="utf-8") as log, _Pool(log, threads) as pool:
        for i, problem in enumerate(problems):
            left = deadline - time.monotonic()
            if left <= 0:
                result = _failed(problem, "not-run", f"the run's time budget of {budget_s:.0f} s was spent")
            elif crashes >= MAX_CONSECUTIVE_CRASHES:
                result = _failed(problem, "not-run", f"{crashes} worker processes in a row died; see {log_path}")
            else:
                log.write(f"=== {problem.key}\n")
                log.flush()
                result = pool.check(problem, spec, min(per_problem_s, left), log_path)
                crashes = crashes + 1 if result.findings and result.findings[0].code == "worker-crashed" else 0
            results.append(result)
            if progress:
                progress(result, i + 1, len(problems))
    return results


class _Pool:
    """One worker at a time, replaced after a timeout or a crash."""

    def __init__(self, log: IO[str], threads: int) -> None:
        self.log, self.threads = log, threads
        self.worker: _Worker | None = None

    def __enter__(self) -> _Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.worker is not None:
            self.worker.close()

    def check(self, problem: Problem, spec: CheckSpec, timeout_s: float, log_path: Path) -> ProblemCheck:
        self.worker = self.worker or _Worker(self.log, self.threads)
        answer = self.worker.ask(problem, spec, timeout_s)
        if isinstance(answer, ProblemCheck):
            return answer
        self.worker.close()
        self.worker = None
        self.log.flush()
        if answer == "timeout":
            return _failed(problem, "timeout", f"no answer within {timeout_s:.3g} s")
        return _failed(problem, "worker-crashed", f"the worker process died; log tail: {_tail(log_path)}")


def _serve() -> None:
    """Child side: answer one JSON line per request line until stdin closes."""
    import torch

    out = os.fdopen(int(os.environ["KB_CATALOGUE_RESULT_FD"]), "w", encoding="utf-8")
    torch.set_num_threads(int(os.environ.get("KB_CATALOGUE_THREADS", "2")))
    if torch.cuda.is_available():
        # The reference is full fp32: no TF32 in matmuls or convolutions, no autotuned algorithm choice.
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False
        torch.backends.cudnn.benchmark = False
    for line in sys.stdin:
        request: dict[str, Any] = json.loads(line)
        problem = Problem(request["level"], request["problem_id"], request["name"], Path(request["path"]),
                          request["sha256"])
        result = check_problem(problem, CheckSpec(**request["spec"]))
        out.write(json.dumps(result.to_dict()) + "\n")
        out.flush()
        if torch.cuda.is_available():
            torch.cuda.empty_cache()


def default_log_path() -> Path:
    return Path(tempfile.gettempdir()) / f"kb-catalogue-check-{os.getpid()}.log"


if __name__ == "__main__":
    _serve()
