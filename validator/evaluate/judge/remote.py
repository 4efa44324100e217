"""The judge's handle on its runner: starts it sandboxed, hands it exactly the hashed bytes, and reads its
replies as data.

The judge copies the kernel and problem files into the runner's private job directory after checking their
sha256 against the job (a file changed since planning is refused, `kernel-changed`), and the kernel's
compiled artefacts after checking them against the build's manifest (`cache-tampered`). Each reply's
header is checked against what the judge expects (structure, shape, dtype) before any payload byte is
read, and payloads are bounded by the expected size. A failing status the runner reports is taken as it
is (a runner can only incriminate itself); it never decides a passing one.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from validator.evaluate import channel
from validator.evaluate.jobs import Job
from validator.evaluate.judge import deadline, launch
from validator.isolation import bwrap, process_tree, sandbox
from validator.protocol import protocol_from_dict

_perf_counter = time.perf_counter
FAILING = {"incorrect", "rejected", "runtime_error", "compile_error", "oom"}
"""Statuses a runner may report about itself; anything else it says about a failure is a protocol error."""


class RunnerFailed(Exception):
    """The runner reported a failure, broke the protocol, or died; `status` and `code` say which."""

    def __init__(self, status: str, code: str, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


@dataclass(frozen=True)
class Expected:
    """What the judge will accept as a call's outputs: the reference's structure."""

    container: str | None
    """`tuple` or `list` when the reference returned one, else None."""
    specs: Sequence[tuple[tuple[int, ...], str]]
    """(shape, dtype name) of each output."""

    def check(self, header: dict[str, Any], described: Sequence[channel.Described]) -> tuple[str, str] | None:
        """(code, message) for the first way the announced outputs differ from the reference's, else None."""
        if header.get("container") != self.container or len(described) != len(self.specs):
            shown = header.get("container") or "a tensor"
            return "wrong-structure", f"returned {shown} of {len(described)}; expected {self.container or 'a tensor'}"
        for i, (d, (shape, dtype)) in enumerate(zip(described, self.specs, strict=True)):
            where = f"output {i}: " if len(self.specs) > 1 else ""
            if d.kind != "Tensor":
                return "wrong-type", f"{where}returned {d.kind}; expected torch.Tensor"
            if tuple(d.shape) != tuple(shape):
                return "wrong-shape", f"{where}shape {tuple(d.shape)}; expected {tuple(shape)}"
            if d.dtype != dtype:
                return "wrong-dtype", f"{where}dtype torch.{d.dtype}; expected torch.{dtype}"
        return None

    @property
    def nbytes(self) -> int:
        return sum(channel.Described(dtype, tuple(shape)).nbytes for shape, dtype in self.specs)


def expected_of(tensors: Sequence[torch.Tensor], container: type | None) -> Expected:
    return Expected(container.__name__ if container else None,
                    [(tuple(t.shape), str(t.dtype).removeprefix("torch.")) for t in tensors])


def copy_verified(source: Path, sha256: str, target: Path) -> None:
    data = source.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise RunnerFailed("rejected", "kernel-changed", f"{source.name} changed after it was hashed at planning "
                           "time; the run evaluates only the bytes it checked")
    target.write_bytes(data)


class Runner:
    """One sandboxed runner process for one job; `close()` ends its whole tree. A `twin` is the judge's own runner
    of the reference: started and confined as the kernel's runner is, it never sees the kernel, and the judge
    times the reference through it on the same path, in the same rounds, as the kernel (`judge_timing`)."""

    def __init__(self, job: Job, workdir: Path, isolation: str, *, twin: bool = False) -> None:
        self.job, self.isolation, self.twin = job, isolation, twin
        self.confined = isolation == "bubblewrap"
        ahead, pid = (job.twin_dir, job.twin_pid) if twin else (job.runner_dir, job.runner_pid)
        self.base = Path(ahead) if ahead and self.confined else None
        if self.base is not None:  # started ahead (by the scheduler, or by this judge's start), waiting for it
            self.dir, self.cache = self.base / "job", self.base / "cache"
        else:
            name = "twin" if twin else "runner"
            self.dir, self.cache = workdir / name, workdir / f"{name}-cache"
            self.dir.mkdir(mode=0o700)
            self.cache.mkdir(mode=0o700)
        if not twin:
            copy_verified(Path(job.kernel_path), job.kernel_sha256, self.dir / "kernel.py")
        copy_verified(Path(job.problem_path), job.problem_sha256, self.dir / "problem.py")
        triton_seen_as = Path(bwrap.CACHE_MOUNT if self.confined else self.cache) / "triton"
        self.seeded = seed_harness_cache(self.cache / "triton", triton_seen_as)
        """The files of the judges' Triton cache copied in, relative to it: never merged back into a kernel's."""
        if not twin:
            _copy_cache(job, self.cache)
        self.root = Path(bwrap.JOB_MOUNT) if self.confined else self.dir
        ring_dir = self._make_ring()
        self.network, self.log = "", None
        if self.base is not None:
            bwrap.prepare_job_dir(self.dir)  # the copies, for the runner's uid
            bwrap.prepare_job_dir(self.cache)
            self.process: Any = launch.Adopted(self.base, pid)
        elif self.confined:
            pipe = subprocess.PIPE
            self.process = launch.spawn_confined(self.dir, self.cache, launch.runner_env(os.environ),
                                                 gpu=not job.interpret, streams=(pipe, pipe, pipe), ring=ring_dir)
        else:  # no bubblewrap: limits and a network namespace only; recorded as `sandbox: none`
            env = launch.runner_env(os.environ) | {
                "TORCH_EXTENSIONS_DIR": job.extensions_dir, "TRITON_CACHE_DIR": str(self.cache / "triton"),
                "TORCHINDUCTOR_CACHE_DIR": str(self.cache / "inductor")}
            self.process, self.network = launch.spawn_unconfined(self.dir, env,
                                                                 job.protocol.get("problem_timeout_s", 300.0))
        _widen_pipes(self.process)
        if self.process.stderr is not None:
            self.log = sandbox.CappedReader(self.process.stderr, sandbox.OUTPUT_CAP)
            self.log.start()
        self.ready = False  # its "ready" (torch imported) is read before the first request's reply or pause
        self.deadlines: dict[str, float] = {}
        """Seconds the runner may take to answer each kind of request (`Deadline`); none: only the parent's bound."""
        self.first_slack_s = 0.0
        """Added to the deadline of the first request of each kind."""
        self.payload_s = 0.0
        """Seconds a reply's tensors may take to arrive once its header has (none: the parent's bound only)."""
        self.answered: set[str] = set()
        self.tree = process_tree.Tree(self.process.pid)
        self.watchdog = deadline.Watchdog(lambda: deadline.last_write(self.cache), self._overran, self.tree.tick,
                                          quiet_s=protocol_from_dict(job.protocol).compile_quiet_s)
        self.hit = ""
        """The request that overran its deadline, described (the runner was killed for it)."""
        self.exit_asked = False

    def _make_ring(self) -> Path | None:
        """The ring, made (and pinned, on a GPU) before the runner's uid is given it, so before any submitted code
        can touch it: in the directory on the host's tmpfs that the scheduler made for a confined runner (it
        outlives this judge, which may be killed), else in the job directory. Returns that tmpfs directory, which
        a runner this judge starts must be given."""
        ring_dir = None
        if self.base is not None:
            ring_dir = launch.adopted_ring_dir(self.base)
        elif self.confined and self.job.ring_dir and not self.twin:  # the scheduler's is the kernel runner's
            ring_dir = Path(self.job.ring_dir)
        self.ring = channel.Ring.create((ring_dir or self.dir) / RING_NAME)
        if not self.job.interpret:
            self.ring.pin()
        self.ring_inside = f"{bwrap.RING_MOUNT}/{RING_NAME}" if ring_dir else self.inside(RING_NAME)
        if ring_dir is not None:
            bwrap.give_to_runner(ring_dir / RING_NAME)
        return ring_dir

    def log_text(self) -> str:
        return self.log.text() if self.log is not None else launch.log_tail(self.base) if self.base else ""

    def inside(self, name: str) -> str:
        """A file of the runner's directory as the runner sees it."""
        return str(self.root / name)

    def describe_isolation(self) -> str:
        if self.confined:
            ahead = "; started ahead by the scheduler" if self.base is not None else ""
            return f"runner in bubblewrap ({bwrap.describe()}{ahead})"
        # the judge is not told why: the run's probe found it, and environment.extra.sandbox_detail records it
        return ("sandbox: none: the runner sandbox could not be set up on this machine (environment.extra."
                f"sandbox_detail in the results file says why), so the runner ran with resource limits only, as "
                f"the same user ({self.network}); not a verified result")

    def keep_caches(self) -> None:
        """After a warm-up: its compiler caches merged back into the job's cache directories (per kernel content
        hash, or the compiler baseline's own), and each entry's manifest recorded again."""
        from validator.isolation.manifest import record_tree

        for name, shared in cache_sources(self.job).items():
            produced = self.cache / name
            if name == "ext" or not produced.is_dir() or any(p.is_symlink() for p in produced.rglob("*")):
                continue
            shared.mkdir(parents=True, exist_ok=True)
            with _locked(shared.parent):  # warm-ups of several problems may share one entry
                _merge_tree(produced, shared, self.seeded if name == "triton" else set())
                record_tree(shared.parent)

    # -- requests ---------------------------------------------------------------------------------------

    def request(self, header: dict[str, Any], tensors: Sequence[torch.Tensor] = ()) -> dict[str, Any]:
        """Send one request and return the reply header (payload still unread: see `outputs`). A request with a
        deadline that the runner does not answer in time kills the runner (`kernel-deadline`)."""
        op = str(header.get("op"))
        if op == "load":  # opened by the runner before it imports the kernel
            header = {**header, "ring": self.ring_inside}
        limit = self.deadlines.get(op)
        if limit and op not in self.answered:  # a first call may compile (Triton JIT, a cached graph, the profiler)
            limit += self.first_slack_s
        self.answered.add(op)
        with self.watchdog.watching(limit, op):  # with no limit: no deadline, but a stopped member is continued
            return self._exchange(header, tensors)

    @staticmethod
    def request_each(runners: Sequence[Runner], header: dict[str, Any]) -> list[dict[str, Any]]:
        """One request without tensors or a deadline, sent to every runner before any reply is read, so that their
        work on it overlaps: a judge's two runners' CUDA start and digest load (`Evaluation.start_runner`) took
        turns before."""
        op = str(header.get("op"))
        for runner in runners:
            runner._send(header)
            runner.answered.add(op)
        replies = []
        for runner in runners:
            with runner.watchdog.watching(None, op):
                replies.append(runner._receive())
        return replies

    def _overran(self, why: str) -> None:
        """Runs on the watchdog's thread, so it only records and kills; the reading thread then sees the channel
        close and reports the deadline (`_died`)."""
        self.hit = why
        process_tree.kill_tree(self.process.pid)

    def _exchange(self, header: dict[str, Any], tensors: Sequence[torch.Tensor]) -> dict[str, Any]:
        self._send(header, tensors)
        return self._receive()

    def _send(self, header: dict[str, Any], tensors: Sequence[torch.Tensor] = ()) -> None:
        try:
            channel.send(self.process.stdin, header, tensors)
        except (BrokenPipeError, OSError) as exc:
            raise self._died(f"the runner stopped reading requests ({exc})") from None

    def _receive(self) -> dict[str, Any]:
        self._await_ready()
        reply, self.described = self._reply(0)
        return reply

    def _await_ready(self) -> None:
        """Read the runner's first message, sent once it has started (torch imported; bubblewrap has forked its
        processes). Before it, no kernel code has run: a failure is the sandbox's or the machine's."""
        if self.ready:
            return
        try:
            self._reply(0)
        except RunnerFailed as failed:
            raise RunnerFailed("runtime_error", "harness-error", f"the runner did not start: {failed.message}") \
                from None
        self.ready = True

    def _reply(self, budget: int = 0) -> tuple[dict[str, Any], list[channel.Described]]:
        try:
            reply, described = channel.read_header(self.process.stdout)
        except channel.ChannelError as exc:
            raise self._died(str(exc)) from None
        if reply.get("ok") is not True:
            status, code = str(reply.get("status", "")), str(reply.get("code", ""))[:80] or "runner-failed"
            if status not in FAILING:
                raise RunnerFailed("runtime_error", "runner-protocol", f"the runner answered {str(reply)[:300]}")
            raise RunnerFailed(status, code, str(reply.get("message", ""))[:4000])
        return reply, described

    def outputs(self, reply: dict[str, Any], expected: Expected, device: torch.device) -> list[torch.Tensor]:
        """The outputs a reply announced, if they have the reference's structure; read and moved to `device`."""
        wrong = expected.check(reply, self.described)
        if wrong is not None:
            self.close()  # its payload is never read: the channel is abandoned with the runner
            raise RunnerFailed("incorrect", *wrong)
        with self.watchdog.watching(self.payload_s or None, "payload"):
            try:
                return channel.read_tensors(self.process.stdout, self.described, expected.nbytes, device,
                                            ring=self.ring, acks=self.process.stdin)
            except channel.ChannelError as exc:
                raise self._died(str(exc)) from None

    def _died(self, why: str) -> RunnerFailed:
        """The runner died (`runner-exited`) or, alive, broke the wire format (`runner-protocol`); it is ended."""
        deadline = time.monotonic() + 1.0  # a runner that closed the channel by dying may not be gone yet
        while self.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        alive = self.process.poll() is None
        self.close()
        exit_text = "broke the channel protocol" if alive else describe_exit(self.process.returncode, self.confined)
        tail = "\n".join(self.log_text().strip().splitlines()[-8:])[-1500:]
        oom = any(sign in tail for sign in ("CUDA out of memory", "OutOfMemoryError", "MemoryError"))
        reason = "runner-protocol" if alive else "runner-exited"
        status, reason = ("oom", "out-of-memory") if oom else ("runtime_error", reason)
        if self.hit:
            return RunnerFailed("timeout", "kernel-deadline", f"the kernel hung or ran far too long: {self.hit} "
                                f"(the judge's deadline, set from the reference's own time), so its runner was killed"
                                + (f"\n{tail}" if tail else ""))
        return RunnerFailed(status, reason, f"the runner {exit_text} ({why})\n{tail}".strip())

    # -- the judge's control over the runner's process tree ------------------------------------------------

    def pause(self) -> None:
        """SIGSTOP the runner's whole process tree while the judge times the reference alone. Never before the
        runner has said it started: a stop and continue during bubblewrap's start-up left its init stopped for
        good (`isolation/process_tree`), so a pause first waits for that message."""
        with self.watchdog.watching(None, "start"):
            self._await_ready()
        self.tree.pause()

    def resume(self) -> None:
        """SIGCONT the tree, and make sure no member is left stopped (`process_tree.Tree.resume`)."""
        self.tree.resume()

    def ask_exit(self) -> None:
        """Ask the runner to exit (its CUDA context's teardown then runs in it, not yet waited for)."""
        self.watchdog.close()
        if self.process.poll() is None and not self.exit_asked:
            with contextlib.suppress(OSError):
                self.resume()
                channel.send(self.process.stdin, {"op": "exit"})
        self.exit_asked = True

    @staticmethod
    def close_each(runners: Sequence[Runner]) -> None:
        """`close` every runner, all asked to exit before any is waited for: the two runners' teardowns overlap."""
        for runner in runners:
            runner.ask_exit()
        for runner in runners:
            runner.close()

    def close(self) -> None:
        """End the runner and everything it started (its pid namespace dies with bwrap's init). A runner the
        scheduler started ahead is reaped by the scheduler, its parent."""
        self.ask_exit()
        if self.process.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=2)
        process_tree.kill_and_reap(self.process)
        self.process.returncode = self.process.returncode if self.process.returncode is not None else -9
        for stream in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                stream.close()
        if self.log is not None:
            self.log.join(timeout=2)
        self.ring.close()
        if self.tree.continued:  # rare (process_tree): said in the judge's log, beside its timings
            print(f"the judge continued runner processes found stopped: {self.tree.continued}", file=sys.stderr)
        if self.tree.strays:
            print(f"runner processes outside its process group, stopped by the judge's pauses: {self.tree.strays}",
                  file=sys.stderr)
        if os.environ.get("KB_RUNNER_TRACE"):  # a diagnosis: the runner's step times, beside the judge's own output
            text = self.log_text()  # its start-up lines first, then its last steps
            shown = text if len(text) <= 8000 else f"{text[:2000]}\n[...]\n{text[-6000:]}"
            print(f"--- runner log ---\n{shown}\n--- end of runner log ---", file=sys.stderr)


def describe_exit(returncode: int | None, confined: bool) -> str:
    """How the runner ended. Bubblewrap exits with 128 + N when the process it ran was killed by signal N."""
    if confined and returncode is not None and 128 < returncode < 128 + signal.NSIG:
        with contextlib.suppress(ValueError):
            name = signal.Signals(returncode - 128).name
            return f"killed by {name} ({signal.strsignal(returncode - 128)}; bubblewrap's exit status {returncode})"
    return sandbox.describe_status(returncode)


def cache_sources(job: Job) -> dict[str, Path]:
    """The job's compiled artefacts: its extension (the build's entry) and the compiler caches the scheduler
    chose for it (KB_KERNEL_TRITON_CACHE, KB_KERNEL_INDUCTOR_CACHE in the judge's environment; the judge's own
    TRITON_CACHE_DIR is elsewhere, `toolchain.HARNESS_TRITON`)."""
    sources = {"ext": Path(job.extensions_dir)}
    for name, variable in (("triton", "KB_KERNEL_TRITON_CACHE"), ("inductor", "KB_KERNEL_INDUCTOR_CACHE")):
        if os.environ.get(variable):
            sources[name] = Path(os.environ[variable])
    return {name: path for name, path in sources.items() if path.parent != Path(os.devnull)}


def _copy_cache(job: Job, target: Path) -> None:
    """The job's compiled artefacts, copied into the runner's cache directory after checking each entry's
    manifest: the runner never sees the shared cache, and a file planted there is refused, never loaded."""
    from validator.isolation.manifest import verify_tree

    for name, source in cache_sources(job).items():
        if not source.is_dir():
            continue
        with _locked(source.parent):
            problem = verify_tree(source.parent)
            if problem:
                raise RunnerFailed("rejected", "cache-tampered", f"the build cache for this kernel was changed "
                                   f"after its build ({problem}); it is not used")
            # into what may be there already: on a 4-GPU H200 run, 17 of 30 torch.compile baselines failed with
            # FileExistsError on cache/inductor of a runner started ahead (made before this copy; the runner has
            # loaded nothing submitted yet, so what it holds is the harness's own)
            shutil.copytree(source, target / name, symlinks=False, dirs_exist_ok=True)


def seed_harness_cache(target: Path, seen_as: Path) -> set[Path]:
    """The judges' Triton cache (`toolchain.HARNESS_TRITON`, named by KB_HARNESS_TRITON_CACHE) copied into a runner's
    Triton cache `target` before the runner compiles anything, so its first digest loads the judges' compile (Triton's
    driver module, the digest's launcher and kernel) instead of compiling them again. Only judges write that cache,
    and the runner gets a copy, never the cache. Triton's group files name their members by absolute path: each is
    rewritten to where the runner sees the copy (`seen_as`), or Triton would find the members missing and compile
    again. Returns the copied files, relative to `target`; none where there is no such cache."""
    source = Path(os.environ.get("KB_HARNESS_TRITON_CACHE") or os.devnull)
    if not source.is_dir():
        return set()
    copied = set()
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_symlink() or not path.is_file() or any(part.startswith("tmp.") for part in relative.parts):
            continue  # a compile still being written (Triton's own temporary directory)
        data = path.read_bytes()
        if path.name.startswith("__grp__"):
            data = _regrouped(data, source, seen_as)
            if data is None:
                continue
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        (target / relative).write_bytes(data)
        copied.add(relative)
    return copied


def _regrouped(data: bytes, source: Path, seen_as: Path) -> bytes | None:
    """A Triton group file with its members' paths under `source` moved under `seen_as`; None if unreadable."""
    try:
        members = json.loads(data)["child_paths"]
        moved = {name: str(seen_as / Path(p).relative_to(source)) for name, p in members.items()}
    except (ValueError, KeyError, TypeError, AttributeError):
        return None
    return json.dumps({"child_paths": moved}).encode()


@contextlib.contextmanager
def _locked(entry: Path) -> Iterator[None]:
    """An exclusive lock on a cache entry between judges (separate processes): a copy-in never sees a
    half-merged warm-up, and a manifest always covers what was merged."""

    with (entry / ".judge.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _merge_tree(produced: Path, into: Path, skip: set[Path]) -> None:
    """Add a warm-up's new or changed files to the shared entry, each replaced atomically; never delete. Files at
    `skip` (relative paths: the harness's own, seeded before the runner started) stay out."""
    for path in produced.rglob("*"):
        if not path.is_file() or path.relative_to(produced) in skip:
            continue
        target = into / path.relative_to(produced)
        if target.is_file() and target.read_bytes() == path.read_bytes():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        shutil.copyfile(path, staging)
        staging.replace(target)


RING_NAME = "ring"
"""The file in the runner's job directory through which its replies' tensors cross (`channel.Ring`)."""
PIPE_BYTES = 1 << 20
"""Linux's default unprivileged ceiling (/proc/sys/fs/pipe-max-size). Outputs of gigabytes cross the pipe in
64 KiB pieces otherwise: one system call and one wake-up on each side per piece."""


def _widen_pipes(process: Any) -> None:
    for stream in (process.stdin, process.stdout):
        with contextlib.suppress(AttributeError, OSError, ValueError):  # not a pipe, or the ceiling is lower
            fcntl.fcntl(stream.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)
