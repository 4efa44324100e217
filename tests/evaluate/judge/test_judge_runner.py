"""The trust boundary: the judge<->runner wire format, the judge's checks of what a runner says, the timing
bound, the seccomp program, the cache manifest, and refusal to run when a file changed after hashing."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import signal
import struct
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest
import torch

from tests.evaluate.judge.test_run import EXAMPLES, REPO, make_job
from validator.evaluate import channel
from validator.evaluate.judge import deadline, launch
from validator.evaluate.judge import run as worker
from validator.evaluate.judge.judge_timing import read_share
from validator.evaluate.judge.remote import Expected, expected_of
from validator.isolation import manifest, process_tree, seccomp
from validator.protocol import PROTOCOL
from validator.results.records import Status

RELU = REPO / "tests" / "redteam" / "control" / "relu_triton.py"
SEGFAULT = REPO / "tests" / "fixtures" / "engine" / "kernels" / "segfault_relu.py"


def _round_trip(tensors: list[torch.Tensor], budget: int = 1 << 30) -> tuple[dict, list[torch.Tensor]]:
    buffer = io.BytesIO()
    channel.send(buffer, {"op": "x"}, tensors)
    buffer.seek(0)
    return channel.receive(buffer, budget)


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16, torch.float16, torch.int64, torch.bool,
                                   torch.complex64, torch.uint8])
def test_tensors_cross_the_channel_bit_for_bit_whatever_their_dtype_and_shape(dtype: torch.dtype):
    made = [torch.randn(3, 5).to(dtype), torch.randn(()).to(dtype), torch.empty(0, 4, dtype=dtype),
            torch.randn(4, 6).to(dtype).t()]  # a non-contiguous view too
    header, got = _round_trip(made)
    assert header == {"op": "x"}
    for sent, received in zip(made, got, strict=True):
        assert received.dtype == sent.dtype and received.shape == sent.shape
        assert torch.equal(received, sent.contiguous())


def _across_pipes(made: list[torch.Tensor], device: torch.device | None, ring_dir: Path | None,
                  pinned: tuple[bool, bool] = (False, False)):
    """`made` sent by a thread as the runner sends a reply (through a ring in `ring_dir` when given), read as the
    judge reads one; then a request on the acknowledgement pipe, which the sender's side must read intact.
    `pinned`: whether the judge's and the runner's side each pin the ring (and must manage to)."""
    import os
    import threading

    replies, requests = os.pipe(), os.pipe()
    judge_ring = channel.Ring.create(ring_dir / "ring") if ring_dir else None
    runner_ring = channel.Ring.open(str(ring_dir / "ring")) if ring_dir else None
    for ring, pin in zip((judge_ring, runner_ring), pinned, strict=True):
        if pin:
            assert ring is not None and ring.pin(), "a ring on tmpfs could not be pinned"
    with os.fdopen(replies[0], "rb") as reader, os.fdopen(replies[1], "wb") as writer, \
            os.fdopen(requests[0], "rb", buffering=0) as runner_in, os.fdopen(requests[1], "wb") as judge_out:
        sender = threading.Thread(target=channel.send, args=(writer, {"op": "x"}, made),
                                  kwargs={"ring": runner_ring, "acks": runner_in})
        sender.start()
        header, described = channel.read_header(reader)
        got = channel.read_tensors(reader, described, 1 << 30, device, ring=judge_ring, acks=judge_out)
        sender.join()
        channel.send(judge_out, {"op": "next"})
        following = channel.receive(runner_in, 0)[0]
    for ring in (judge_ring, runner_ring):
        if ring is not None:
            ring.close()
    assert header == {"op": "x"} and following == {"op": "next"}
    for sent, received in zip(made, got, strict=True):
        assert received.dtype == sent.dtype and received.shape == sent.shape
        assert received.device == (device or torch.device("cpu"))
        assert torch.equal(received.cpu(), sent.contiguous().cpu())


@pytest.mark.parametrize("through_ring", [False, True], ids=["pipe", "ring"])
def test_tensors_of_several_chunks_cross_real_pipes_and_the_ring_bit_for_bit(tmp_path: Path, through_ring: bool):
    """More than two chunks' worth with a ragged last chunk, an empty tensor and a view: the slots alternate,
    and every acknowledgement is consumed (the next request on that pipe arrives intact)."""
    made = [torch.randint(-2**31, 2**31 - 1, (2 * channel.STAGE // 4 + 12345,), dtype=torch.int32),
            torch.empty(0, 3), torch.randn(7, 3).t(), torch.randn(3).to(torch.bfloat16)]
    _across_pipes(made, None, tmp_path if through_ring else None)


@pytest.mark.gpu
@pytest.mark.parametrize("through_ring", [False, True], ids=["pipe", "ring"])
def test_gpu_tensors_cross_in_staged_chunks_bit_for_bit_and_land_on_the_device(tmp_path: Path, through_ring: bool):
    device = torch.device("cuda", 0)
    made = [torch.randint(-2**31, 2**31 - 1, (2 * channel.STAGE // 4 + 12345,), dtype=torch.int32, device=device),
            torch.randn(7, 3, device=device).t(), torch.randn(3, device=device).to(torch.bfloat16)]
    _across_pipes(made, device, tmp_path if through_ring else None)


@pytest.mark.gpu
@pytest.mark.parametrize("pinned", [(True, True), (True, False), (False, True)],
                         ids=["both-pinned", "judge-pinned", "runner-pinned"])
def test_gpu_tensors_cross_a_pinned_ring_on_tmpfs_bit_for_bit_whichever_side_pinned_it(pinned: tuple[bool, bool]):
    """Each side pins on its own or copies: a DMA into the slot is read by pread, a pwrite by a DMA."""
    device = torch.device("cuda", 0)
    made = [torch.randint(-2**31, 2**31 - 1, (3 * channel.STAGE // 4 + 12345,), dtype=torch.int32, device=device),
            torch.randn(7, 3, device=device).t(), torch.empty(0, device=device)]
    with contextlib.ExitStack() as hold:
        ring_dir = launch.ring_dir(hold)
        assert ring_dir is not None
        _across_pipes(made, device, ring_dir, pinned)


@pytest.mark.gpu
def test_a_pinned_ring_truncated_under_the_judge_is_a_channel_error_not_a_fault():
    """The judge's pinned pages outlive a truncation; it sees the file's size and refuses the chunk."""
    import os

    with contextlib.ExitStack() as hold:
        ring_dir = launch.ring_dir(hold)
        assert ring_dir is not None
        ring = channel.Ring.create(ring_dir / "ring")
        assert ring.pin()
        os.ftruncate(ring.fd, 10)
        with pytest.raises(channel.ChannelError, match="truncated"):
            channel.read_tensors(io.BytesIO(channel.TOKEN), [channel.Described("float32", (64,))], 1 << 20,
                                 torch.device("cuda", 0), ring=ring, acks=io.BytesIO())
        torch.ones(4, device="cuda").sum().item()  # the context is still usable
        ring.close()


def test_a_ring_is_pinned_only_on_tmpfs_and_only_with_a_gpu(tmp_path: Path):
    import os

    with contextlib.ExitStack() as hold:
        ring_dir = launch.ring_dir(hold)
        if ring_dir is None:
            pytest.skip("no writable /dev/shm here")
        ring = channel.Ring.create(ring_dir / "ring")
        assert channel._on_tmpfs(ring.fd)
        assert ring.pin() is torch.cuda.is_available()
        ring.close()
    fd = os.open("/proc/self/status", os.O_RDONLY)
    try:
        assert not channel._on_tmpfs(fd)  # procfs
    finally:
        os.close(fd)


def test_a_ring_truncated_under_the_judge_is_a_channel_error_not_a_fault(tmp_path: Path):
    import os

    ring = channel.Ring.create(tmp_path / "ring")
    os.ftruncate(ring.fd, 10)  # what a runner can do to the file between its write and its token
    announced = io.BytesIO(channel.TOKEN)
    with pytest.raises(channel.ChannelError, match="truncated"):
        channel.read_tensors(announced, [channel.Described("float32", (64,))], 1 << 20, ring=ring, acks=io.BytesIO())
    ring.close()


def test_a_reply_larger_than_the_judge_expects_is_refused_before_its_bytes_are_read():
    with pytest.raises(channel.ChannelError, match="at most"):
        _round_trip([torch.zeros(1024)], budget=1024)


@pytest.mark.parametrize("raw", [
    struct.pack("<I", channel.HEADER_CAP + 1),  # an absurd header length
    struct.pack("<I", 5) + b"{nope",  # not JSON
    struct.pack("<I", 2) + b"{}",  # no tensors list
    struct.pack("<I", 2) + b"[]",  # not an object
    b"\x01\x00",  # closed mid-length
])
def test_malformed_messages_are_channel_errors_not_exceptions_from_inside_torch(raw: bytes):
    with pytest.raises(channel.ChannelError):
        channel.receive(io.BytesIO(raw), 1 << 20)


@pytest.mark.parametrize("announced", [{"dtype": "object", "shape": [1]}, {"dtype": "float32", "shape": [-1]},
                                       {"dtype": "float32", "shape": ["x"]}])
def test_an_unknown_dtype_or_a_bad_shape_is_refused(announced: dict):
    body = json.dumps({"ok": True, "tensors": [announced]}).encode()
    with pytest.raises(channel.ChannelError):
        channel.receive(io.BytesIO(struct.pack("<I", len(body)) + body), 1 << 20)


def test_the_judge_checks_announced_outputs_against_the_reference_before_reading_them():
    expected = expected_of([torch.zeros(2, 3), torch.zeros(4, dtype=torch.int64)], tuple)
    ok = [channel.Described("float32", (2, 3)), channel.Described("int64", (4,))]
    assert expected.check({"container": "tuple"}, ok) is None
    assert expected.check({"container": "list"}, ok)[0] == "wrong-structure"
    assert expected.check({"container": "tuple"}, ok[:1])[0] == "wrong-structure"
    assert expected.check({"container": "tuple"}, [ok[0], channel.Described("int32", (4,))])[0] == "wrong-dtype"
    assert expected.check({"container": "tuple"}, [channel.Described("float32", (6,)), ok[1]])[0] == "wrong-shape"
    lazy = channel.Described("float32", (2, 3), kind="LazyTensor")
    assert expected.check({"container": "tuple"}, [lazy, ok[1]])[0] == "wrong-type"
    assert Expected(None, [((2, 3), "float32")]).nbytes == 24


def test_huge_outputs_are_read_less_often_but_still_read():
    assert read_share(4 << 20, 10, PROTOCOL) == 0.5  # 4 MiB outputs: half a call per span, as always
    huge = read_share(6_400_000_000, 10, PROTOCOL)  # upstream's 19_ReLU: 6.4 GB a call
    assert huge == 0.2  # two expected reads among the minimum ten rounds, not five
    assert read_share(1, 0, PROTOCOL) == 0.5


def test_the_runner_serves_calls_of_nothing_only_before_it_loads_a_kernel():
    from validator.evaluate.runner.serve import Refused, Runner

    runner = Runner()
    reply = runner.null({"flush_bytes": 0, "interpret": True})
    assert reply["ok"] and reply["device_ms"][0] >= 0
    runner.guard = object()  # what `load` sets before it imports the kernel
    with pytest.raises(Refused, match="after the kernel was loaded"):
        runner.null({"flush_bytes": 0, "interpret": True})


def test_the_seccomp_program_is_well_formed_and_denies_what_the_threat_model_lists():
    program = seccomp.assemble()
    assert len(program) < 256  # classic BPF jumps are 8-bit
    for index, (code, jt, jf, _k) in enumerate(program):
        if code in (seccomp.JEQ_K, seccomp.JGE_K, seccomp.JSET_K):
            assert index + 1 + max(jt, jf) < len(program), "a jump past the end"
    numbers = {k for code, _jt, _jf, k in program if code == seccomp.JEQ_K}
    for name in ("ptrace", "process_vm_readv", "process_vm_writev", "mount", "bpf", "perf_event_open", "keyctl",
                 "setns", "unshare"):
        assert seccomp.DENIED_X86_64[name] in numbers, name
    assert seccomp.program() is None or len(seccomp.program()) == 8 * len(program)


def test_a_cache_entry_changed_after_its_manifest_is_refused(tmp_path: Path):
    entry = tmp_path / "kernels" / "abc"
    (entry / "ext" / "relu").mkdir(parents=True)
    (entry / "ext" / "relu" / "relu.so").write_bytes(b"built")
    manifest.record_tree(entry)
    assert manifest.verify_tree(entry) is None
    (entry / "ext" / "relu" / "planted.so").write_bytes(b"planted")
    assert "differ" in manifest.verify_tree(entry)
    (entry / "ext" / "relu" / "planted.so").unlink()
    (entry / "ext" / "relu" / "relu.so").write_bytes(b"swapped")
    assert "differ" in manifest.verify_tree(entry)
    (entry / manifest.NAME).unlink()
    assert "manifest" in manifest.verify_tree(entry)


def test_a_job_whose_cache_entry_was_tampered_with_is_rejected_before_the_kernel_runs(tmp_path: Path):
    entry = tmp_path / "cache" / "kernels" / "k"
    (entry / "ext").mkdir(parents=True)
    (entry / "ext" / "relu.so").write_bytes(b"built")
    manifest.record_tree(entry)
    (entry / "ext" / "other.so").write_bytes(b"planted")
    job = replace(make_job("level1/19_ReLU", RELU, tmp_path, interpret=True), extensions_dir=str(entry / "ext"))
    result = worker.evaluate_job(job, tmp_path)
    assert (result.status, result.flags[-1].code) == (Status.REJECTED, "cache-tampered")


def test_a_kernel_file_changed_after_it_was_hashed_is_never_run(tmp_path: Path):
    kernel = tmp_path / "kernel_triton.py"
    kernel.write_bytes(RELU.read_bytes())
    job = make_job("level1/19_ReLU", kernel, tmp_path, interpret=True)
    kernel.write_text(RELU.read_text() + "\nraise SystemExit('the rewritten kernel ran')\n")
    result = worker.evaluate_job(job, tmp_path)
    assert (result.status, result.flags[-1].code) == (Status.REJECTED, "kernel-changed")
    assert "rewritten kernel ran" not in result.error


@pytest.mark.slow  # over 4 s alone on a 2-core machine
def test_the_judge_writes_a_correct_result_for_an_honest_kernel_and_leaves_its_directory_empty(tmp_path: Path):
    job = make_job("level1/40_LayerNorm", EXAMPLES / "level1_40_layernorm_triton.py", tmp_path, interpret=True)
    work = tmp_path / "work"
    work.mkdir()
    result = worker.evaluate_job(job, work)
    assert result.status is Status.CORRECT, result.error
    assert list(work.iterdir()) == []  # the runner's directory went with the judge's temporary one
    assert result.kernel_sha256 == hashlib.sha256(job_bytes(job)).hexdigest()
    # where the problem's time went, phase by phase, in the order they ran
    assert list(result.phases)[:4] == ["setup", "start_runner", "take_gpu", "compute_references"]
    assert {"load_kernel", "time"} <= set(result.phases) and "check_correctness" not in result.phases
    assert sum(result.phases.values()) <= result.seconds


def job_bytes(job) -> bytes:
    return Path(job.kernel_path).read_bytes()


def test_the_warm_up_markers_the_parent_writes_later_do_not_count_as_tampering(tmp_path: Path):
    from validator.evaluate.warmup import MARKER_DIR

    entry = tmp_path / "entry"
    (entry / "inductor").mkdir(parents=True)
    (entry / "inductor" / "graph.py").write_text("compiled")
    manifest.record_tree(entry)
    (entry / "inductor" / MARKER_DIR).mkdir()
    (entry / "inductor" / MARKER_DIR / "problem-sha").touch()
    assert manifest.verify_tree(entry) is None


@pytest.mark.gpu
def test_on_the_gpu_the_bound_passes_an_honest_kernel_and_rejects_a_shortened_report(tmp_path: Path):
    # Upstream's ReLU (6.4 GB per tensor: a call of 3 ms, well above the harness's overhead), with one trial per
    # kind and one timing block: every output crosses the channel, and at this size that is what costs.
    protocol = PROTOCOL.to_dict() | {"time_budget_s": 3.0, "upstream_trials": 1, "input_scales": (1.0,),
                                     "timing_blocks": 1}
    honest = worker.evaluate_job(make_job("level1/19_ReLU", RELU, tmp_path, interpret=False, protocol=protocol),
                                 tmp_path)
    assert honest.status is Status.CORRECT, honest.error
    assert "timing-bound" in {f.code for f in honest.flags}
    forged = REPO / "tests" / "redteam" / "sandbox-escape" / "forged_timing_reply.py"
    caught = worker.evaluate_job(make_job("level1/19_ReLU", forged, tmp_path, interpret=False, protocol=protocol),
                                 tmp_path)
    assert (caught.status, caught.flags[-1].code) == (Status.REJECTED, "timing-unverified")


@pytest.mark.slow  # over 10 s alone on a 2-core machine
def test_the_scheduler_starts_runners_ahead_and_each_serves_one_job_then_ends(tmp_path: Path):
    from validator.evaluate.scheduler import WORKER, Device, SchedulerConfig, WorkItem, run_all
    from validator.isolation.bwrap import machine_isolation

    if not machine_isolation().confined:
        pytest.skip(f"bubblewrap unavailable here: {machine_isolation().detail}")
    escape = REPO / "tests" / "redteam" / "sandbox-escape" / "detached_child.py"
    items = [WorkItem(make_job("level1/19_ReLU", kernel, tmp_path, interpret=True), kernel.name)
             for kernel in (RELU, escape, SEGFAULT, RELU)]
    config = SchedulerConfig((Device("cpu", ""),), 300, target=WORKER, launcher="spawn", probe_after_crash=False,
                             base_env={"TRITON_INTERPRET": "1"}, prepare_runners=True)
    results: list = []
    run_all(items, config, on_result=results.append)
    assert [r.status for r in results] == [Status.CORRECT, Status.INCORRECT, Status.RUNTIME_ERROR, Status.CORRECT]
    assert "SIGSEGV" in results[2].error  # read from /proc by the judge: the scheduler is the runner's parent
    for result in results:
        assert "started ahead" in next(f.message for f in result.flags if f.code == "sandbox")
    left = [p for p in Path("/proc").glob("[0-9]*/cmdline") if b"600.4242" in _read(p)]
    assert left == []


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError:
        return b""


@pytest.mark.slow  # over 6 s alone on a 2-core machine
def test_a_runner_killed_by_a_signal_is_described_by_that_signal_whoever_started_it(tmp_path: Path):
    from validator.evaluate.judge.launch import _waited_status
    from validator.evaluate.judge.remote import describe_exit

    result = worker.evaluate_job(make_job("level1/19_ReLU", SEGFAULT, tmp_path, interpret=True), tmp_path)
    assert result.status is Status.RUNTIME_ERROR and "SIGSEGV" in result.error, result.error
    assert "Segmentation fault" in result.error  # faulthandler's line from the runner's log
    assert describe_exit(139, confined=True).startswith("killed by SIGSEGV")
    assert describe_exit(139, confined=False) == "exited with status 139"
    assert (_waited_status(11), _waited_status(3 << 8), _waited_status(0)) == (-11, 3, -9)


def test_a_stopped_member_of_the_runner_s_group_is_seen_and_resumed():
    child = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        group = process_tree.Tree(child.pid)
        group.pause()
        assert group.stopped
        for _ in range(100):
            if process_tree.stopped_members(child.pid):
                break
            time.sleep(0.01)
        assert process_tree.stopped_members(child.pid) == [child.pid]
        group.resume()
        assert process_tree.stopped_members(child.pid) == [] and not group.stopped
    finally:
        child.kill()
        child.wait()


def _answers_after_stop(paused: bool) -> tuple[bytes, float, list[int]]:
    """A one-line answer awaited from a stopped process group under the watchdog: stopped by the judge's pause
    (`paused`) or behind its back; (what arrived within 6 s, seconds taken, members the watchdog continued)."""
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(0.3); print('answer', flush=True)"],
                             stdout=subprocess.PIPE, start_new_session=True)
    group = process_tree.Tree(child.pid)
    if paused:
        group.pause()
    else:
        os.killpg(child.pid, signal.SIGSTOP)
    watchdog = deadline.Watchdog(lambda: 0.0, lambda why: None, group.tick)
    limit = threading.Timer(6.0, child.kill)  # the test fails rather than waits forever
    limit.start()
    t0 = time.monotonic()
    watchdog.arm(None, "call")  # no deadline: only the parent's bound, as for a load
    try:
        line = child.stdout.readline()
    finally:
        watchdog.close()
        limit.cancel()
        child.kill()
        child.wait()
    return line, time.monotonic() - t0, group.continued


@pytest.mark.slow  # over 6 s alone on a 2-core machine
def test_a_runner_left_stopped_is_continued_while_the_judge_waits_but_never_during_the_judge_s_pause():
    line, seconds, continued = _answers_after_stop(paused=False)
    assert line == b"answer\n" and seconds < 4.0 and len(continued) == 1
    line, _, continued = _answers_after_stop(paused=True)  # the judge holds it stopped: left alone
    assert line == b"" and continued == []


@pytest.mark.slow  # over 4 s alone on a 2-core machine
def test_the_judge_pauses_a_runner_only_once_it_has_said_it_started(tmp_path: Path):
    from validator.evaluate.judge.remote import Runner

    job = make_job("level1/19_ReLU", RELU, tmp_path, interpret=True)
    runner = Runner(job, tmp_path, job.sandbox)
    try:
        runner.pause()  # at once after the start: it first reads the runner's "started"
        assert runner.ready and runner.tree.stopped
        ends = time.monotonic() + 5  # a stop is delivered asynchronously: /proc shows it a moment later
        while not process_tree.stopped_members(runner.process.pid) and time.monotonic() < ends:
            time.sleep(0.01)
        assert process_tree.stopped_members(runner.process.pid)
        runner.resume()
        assert process_tree.stopped_members(runner.process.pid) == []
        assert runner.request({"op": "null", "flush_bytes": 0, "interpret": True})["ok"] is True
    finally:
        runner.close()


def test_what_the_judge_compiles_for_itself_never_changes_the_kernel_s_cache_entry(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    """The judge's own Triton kernel (the output digest) compiles into its own cache beside the kernel's: the
    entry still matches its manifest afterwards (it did not, and every later run rebuilt the kernel)."""
    from validator.compile import toolchain
    from validator.evaluate.judge.remote import cache_sources

    entry = tmp_path / "kernels" / "key"
    (entry / "triton" / "abc").mkdir(parents=True)
    (entry / "triton" / "abc" / "kernel.cubin").write_bytes(b"the kernel's")
    manifest.record_tree(entry)
    env = toolchain.worker_cache_env(entry, "triton", "problem-sha", tmp_path / toolchain.HARNESS_TRITON)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    judge_cache = Path(env["TRITON_CACHE_DIR"]) / "def"
    judge_cache.mkdir(parents=True)
    (judge_cache / "digest_blocks.cubin").write_bytes(b"the judge's")
    assert manifest.verify_tree(entry) is None
    job = make_job("level1/19_ReLU", RELU, tmp_path, interpret=True)
    assert cache_sources(replace(job, extensions_dir=str(entry / "ext")))["triton"] == entry / "triton"


def test_the_judge_takes_a_kernel_s_inductor_cache_only_from_the_scheduler_never_from_inductor_s_own_variable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    """Inductor sets TORCHINDUCTOR_CACHE_DIR (/tmp/torchinductor_<user>) in any process that touches it, and a judge
    started from such a process inherited it: it took that per-user directory for the kernel's cache, locked /tmp
    and copied all of it into the runner (found as an unprivileged user: root had left /tmp/.judge.lock)."""
    from validator.compile import toolchain
    from validator.evaluate.judge.remote import cache_sources

    job = make_job("level1/19_ReLU", RELU, tmp_path, interpret=True)
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "torchinductor_someone"))
    monkeypatch.delenv("KB_KERNEL_INDUCTOR_CACHE", raising=False)
    assert "inductor" not in cache_sources(job)
    compiled = toolchain.worker_cache_env(tmp_path / "entry", "torch-compile", "problem-sha", tmp_path / "harness")
    assert "TORCHINDUCTOR_CACHE_DIR" not in compiled
    monkeypatch.setenv("KB_KERNEL_INDUCTOR_CACHE", compiled["KB_KERNEL_INDUCTOR_CACHE"])
    assert cache_sources(job)["inductor"] == tmp_path / "entry" / toolchain.PER_PROBLEM / "problem-sha" / "inductor"


def test_a_runner_the_judge_starts_early_waits_in_the_job_directory_that_the_scheduler_removes(monkeypatch,
                                                                                                 tmp_path: Path):
    made: list[Path] = []

    class Started:
        pid = 4242

    def prepare(base, env, *, gpu, hold, ring=None):
        made.append(base)
        base.mkdir(parents=True)
        return Started()

    monkeypatch.setattr(launch, "prepare", prepare)
    monkeypatch.setattr(process_tree, "kill_and_reap", lambda process: None)
    job = replace(make_job("level1/19_ReLU", RELU, tmp_path, interpret=True), sandbox="bubblewrap")
    with contextlib.ExitStack() as stack:
        started = worker.start_runner_early(job, stack, tmp_path)
    # the scheduler removes the job's directory after the judge, however it ended; nothing else was made
    assert made == [tmp_path / "runner-early", tmp_path / "twin-early"]
    assert (started.runner_dir, started.runner_pid) == (str(made[0]), 4242)
    assert (started.twin_dir, started.twin_pid) == (str(made[1]), 4242)
    assert all(base.is_dir() for base in made)
    made.clear()  # a runner the scheduler started ahead: only the twin is started here; a warm-up starts none
    other = tmp_path / "other"
    ahead = worker.start_runner_early(replace(job, runner_dir="ahead", runner_pid=7), contextlib.ExitStack(), other)
    assert made == [other / "twin-early"] and ahead.runner_dir == "ahead" and ahead.twin_pid == 4242
    warm = replace(job, runner_dir="ahead", runner_pid=7, warm_only=True)
    assert worker.start_runner_early(warm, contextlib.ExitStack(), tmp_path / "warm").twin_dir == ""


@pytest.mark.slow  # over 6 s alone on a 2-core machine
def test_the_twin_runner_is_never_given_the_kernel_nor_its_compiled_caches(tmp_path: Path):
    """The twin holds the problem's own model only: its directory has the hash-checked problem file and no kernel,
    and the kernel's build and compiler caches are not copied into its cache; it loads the reference and serves
    timed spans of it."""
    from validator.catalogue.problem_module import load_problem_module, reduced_sizes
    from validator.evaluate.judge.remote import Runner

    job = make_job("level1/19_ReLU", RELU, tmp_path, interpret=True)
    sizes = reduced_sizes(load_problem_module(Path(job.problem_path), reduced=True))
    workdir = tmp_path / "judge"
    workdir.mkdir()
    twin = Runner(job, workdir, "none", twin=True)
    try:
        assert sorted(p.name for p in twin.dir.iterdir() if p.name != "ring") == ["problem.py"]
        assert not (twin.cache / "ext").exists()
        load = {"op": "load", "reference": True, "backend": job.backend, "model_seed": 3, "interpret": True,
                "problem": twin.inside("problem.py"), "problem_sha256": job.problem_sha256, "reduced": True,
                "reduced_sizes": sizes}
        assert twin.request(load)["ok"] is True
        twin.request({"op": "prepare", "fresh": True, "flush_bytes": 0})
        specs = [{"seed": seed, "variant": "upstream", "variant_seed": 0} for seed in (1, 2)]
        reply = twin.request({"op": "go", "inputs": specs})
        assert len(reply["device_ms"]) == 2 and all(isinstance(d, str) for d in reply["digests"])
    finally:
        twin.close()


def test_a_request_to_each_runner_goes_to_all_of_them_before_any_reply_is_read():
    """So the runners work on it at once (a judge's two runners' CUDA start and digest load took turns before)."""
    from validator.evaluate.judge.remote import Runner

    order: list[str] = []

    class Recorded:
        def __init__(self, name: str) -> None:
            self.name, self.answered = name, set()
            self.watchdog = type("Quiet", (), {"watching": lambda _self, limit, op: contextlib.nullcontext()})()

        def _send(self, header: dict) -> None:
            order.append(f"send {self.name} {header['op']}")

        def _receive(self) -> dict:
            order.append(f"read {self.name}")
            return {"ok": True, "from": self.name}

    replies = Runner.request_each([Recorded("kernel"), Recorded("twin")], {"op": "null"})
    assert order == ["send kernel null", "send twin null", "read kernel", "read twin"]
    assert [r["from"] for r in replies] == ["kernel", "twin"]


@pytest.mark.slow  # two runners' start
def test_two_real_runners_both_answer_a_request_sent_to_each(tmp_path: Path):
    from validator.evaluate.judge.remote import Runner

    job = make_job("level1/19_ReLU", RELU, tmp_path, interpret=True)
    workdir = tmp_path / "judge"
    workdir.mkdir()
    runners = [Runner(job, workdir, "none"), Runner(job, workdir, "none", twin=True)]
    try:
        replies = Runner.request_each(runners, {"op": "null", "flush_bytes": 0, "interpret": True})
        assert [r["ok"] for r in replies] == [True, True] and all(r.ready for r in runners)
        assert runners[1].request({"op": "null", "flush_bytes": 0, "interpret": True})["ok"] is True  # in step
        Runner.close_each(runners)  # each exits when asked: none is left for the kill
        assert [r.process.returncode for r in runners] == [0, 0]
    finally:
        for runner in runners:
            runner.close()


def test_closing_runners_asks_each_to_exit_before_waiting_for_any():
    """So their exits (a CUDA context's teardown each, inside the GPU's turn) overlap, as their starts do."""
    from validator.evaluate.judge.remote import Runner

    order: list[str] = []

    class Recorded:
        def __init__(self, name: str) -> None:
            self.name = name

        def ask_exit(self) -> None:
            order.append(f"ask {self.name}")

        def close(self) -> None:
            order.append(f"wait {self.name}")

    Runner.close_each([Recorded("kernel"), Recorded("twin")])
    assert order == ["ask kernel", "ask twin", "wait kernel", "wait twin"]
