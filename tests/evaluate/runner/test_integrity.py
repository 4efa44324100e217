"""Runtime integrity checks: kernel names for attribution, identity snapshots, thread counting, output
storage (alias/replay), persisting L2, and the profiler trace summary."""

from __future__ import annotations

import _thread
import threading
import time

import pytest
import torch

from tests.paths import REPO
from validator.evaluate import correctness
from validator.evaluate.anticheat import is_own_kernel, kernel_base_name
from validator.evaluate.runner import integrity
from validator.evaluate.runner.integrity import (
    OutputLedger,
    changed_names,
    snapshot,
    summarize_trace,
)
from validator.submission.kernel_names import own_kernel_names

EXAMPLES = REPO / "submissions" / "kernelbench-team-examples"


def test_kernel_names_come_from_cuda_globals_and_triton_jit_functions():
    assert own_kernel_names((EXAMPLES / "level1_19_relu_cuda.py").read_text()) == ("relu_scalar", "relu_vec4")
    assert own_kernel_names((EXAMPLES / "level1_23_softmax_triton.py").read_text()) == ("softmax_rows",)


def test_kernel_names_cover_launch_bounds_templates_and_autotuned_triton():
    source = '''
import triton
src = """
template <typename T> __global__ void __launch_bounds__(256) scale_kernel(T* x) {}
extern "C" __global__ void plain(float* x) {}
"""
@triton.autotune(configs=[], key=["n"])
@triton.jit
def tuned(x_ptr, n):
    pass
def helper():
    pass
'''
    assert own_kernel_names(source) == ("plain", "scale_kernel", "tuned")


def test_kernel_names_are_still_found_in_a_file_that_does_not_parse():
    assert own_kernel_names('x = """__global__ void k1(int n) {}\n') == ("k1",)


@pytest.mark.parametrize(
    ("profiled", "base"),
    [
        ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int, float)",
         "vectorized_elementwise_kernel"),
        ("relu_vec4(float4 const*, float4*, long)", "relu_vec4"),
        ("void (anonymous namespace)::softmax_warp_forward<float, 8>(float*, float const*)", "softmax_warp_forward"),
        ("sm90_xmma_gemm_f32f32_tn_n_tilesize128x128x32", "sm90_xmma_gemm_f32f32_tn_n_tilesize128x128x32"),
        ("softmax_rows", "softmax_rows"),
    ],
)
def test_profiler_names_reduce_to_their_function_name(profiled, base):
    assert kernel_base_name(profiled) == base


def test_only_the_submissions_own_names_count_as_its_kernels():
    own = ("relu", "softmax_rows")
    assert is_own_kernel("softmax_rows", own)
    assert is_own_kernel("softmax_rows_0d1d2de", own)  # older Triton suffixes
    assert not is_own_kernel("void at::native::vectorized_elementwise_kernel<4, relu>(int)", own)
    assert not is_own_kernel("relu_kernel_with_more_words", own)


def test_the_trace_summary_splits_own_and_library_time_and_skips_the_marker():
    events = [
        {"cat": "kernel", "name": "marker_fill", "dur": 100.0, "args": {"stream": 7}},
        {"cat": "kernel", "name": "softmax_rows", "dur": 30.0, "args": {"stream": 7}},
        {"cat": "kernel", "name": "sm90_xmma_gemm", "dur": 10.0, "args": {"stream": 7}},
        {"cat": "gpu_memset", "name": "Memset", "dur": 10.0, "args": {"stream": 7}},
    ]
    found = summarize_trace(events, ("softmax_rows",))
    assert (found.own_ms, found.total_ms, found.streams) == (0.03, 0.05, (7,))
    assert found.own_fraction == pytest.approx(0.6)
    moved = [events[0], {**events[1], "args": {"stream": 13}}]
    assert summarize_trace(moved, ("softmax_rows",)).streams == (7, 13)


@pytest.mark.parametrize(("name", "suspect"), [
    ("softmax_rows", True),  # the submission's own kernel
    ("triton_poi_fused_relu_0", True),  # a Triton kernel (torch.compile's, or an unnamed one)
    ("void at::native::vectorized_elementwise_kernel<4, float>(int)", True),  # a PyTorch op
    ("Memcpy DtoD (Device -> Device)", True),
    ("sm90_xmma_dgrad_implicit_gemm_f32f32_tf32f32_f32_nhwckrsc_nchw", False),  # cuDNN's internal stream
    ("void cudnn::engines_precompiled::nchwToNhwcKernel<float>(cudnn::params)", False),
    ("elemWiseRNNcell<float, float, float, 0, (cudnnRNNBiasMode_t)2>", False),
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_flat::Params>(Params)", False),
])
def test_side_stream_work_is_suspect_unless_a_library_forked_it(name: str, suspect: bool):
    events = [{"cat": "kernel", "name": "marker_fill", "dur": 1.0, "args": {"stream": 7}},
              {"cat": "kernel", "name": "softmax_rows", "dur": 1.0, "args": {"stream": 7}},
              {"cat": "kernel", "name": name, "dur": 1.0, "args": {"stream": 13}}]
    found = summarize_trace(events, ("softmax_rows",))
    assert found.side_work == (name,)
    assert found.side_suspects(("softmax_rows",)) == ((name,) if suspect else ())


def test_replacing_a_torch_function_or_a_harness_functions_code_is_seen(monkeypatch):
    before = snapshot()
    assert changed_names(before, snapshot()) == []
    monkeypatch.setattr(torch, "allclose", lambda *a, **k: True)
    monkeypatch.setattr(correctness.check_values, "__code__", (lambda *a, **k: None).__code__)
    changed = changed_names(before, snapshot())
    assert "torch.allclose" in changed and "validator.evaluate.correctness.check_values" in changed


def test_patching_a_method_on_a_watched_class_is_seen(monkeypatch):
    before = snapshot()
    monkeypatch.setattr(torch.cuda.Event, "elapsed_time", lambda self, end: 0.001)
    monkeypatch.setattr(time, "perf_counter", lambda: 0.0)
    assert {"torch.cuda.Event.elapsed_time", "time.perf_counter"} <= set(changed_names(before, snapshot()))


@pytest.fixture
def thread_watch(monkeypatch):
    for module in (threading, _thread):
        for name in integrity.ThreadWatch._HOOKS:
            if hasattr(module, name):
                monkeypatch.setattr(module, name, getattr(module, name))  # restored after the test
    return integrity.ThreadWatch()


def test_threads_started_during_a_call_are_counted_even_after_they_finish(thread_watch):
    mark, alive = thread_watch.mark(), integrity.live_threads()
    assert thread_watch.check(mark, alive).ok
    worker = threading.Thread(target=lambda: None, name="sneaky")
    worker.start()
    worker.join()
    verdict = thread_watch.check(mark, alive)
    assert (verdict.code, "sneaky" in verdict.message) == ("background-thread", True)


def test_raw_thread_starts_are_counted_too(thread_watch):
    mark = thread_watch.mark()
    done = threading.Event()
    _thread.start_new_thread(done.set, ())
    done.wait(5)
    assert thread_watch.check(mark, integrity.live_threads()).code == "background-thread"


def test_an_output_sharing_memory_with_an_input_or_a_held_reference_is_an_alias():
    x, held = torch.randn(8), torch.randn(8)
    ledger = OutputLedger()
    assert ledger.check([x[2:]], [x], [held]).code == "output-aliases-input"
    assert ledger.check([held.view(2, 4)], [x], [held]).code == "output-aliases-reference"
    assert ledger.check([torch.randn(8)], [x], [held]).ok


def test_an_earlier_output_kept_alive_and_returned_again_is_a_replay():
    ledger = OutputLedger()
    kept = torch.randn(8)
    assert ledger.check([kept], [], []).ok
    assert ledger.check([kept.view(2, 4)], [], []).code == "output-replayed"


def test_memory_reused_after_an_earlier_output_was_freed_is_not_a_replay():
    ledger = OutputLedger()
    first = torch.randn(1 << 16)
    assert ledger.check([first], [], []).ok
    del first
    assert ledger.check([torch.randn(1 << 16)], [], []).ok


def test_persisting_l2_control_is_unavailable_without_a_cuda_runtime():
    if torch.cuda.is_available():
        pytest.skip("a CUDA runtime is loaded here")
    control = integrity.PersistingL2()
    assert not control.available
    assert control.limit() is None and control.check().ok


def test_a_changed_precision_switch_is_reported_and_reset(thread_watch, monkeypatch):
    monkeypatch.setattr(torch.backends.cudnn, "allow_tf32", torch.backends.cudnn.allow_tf32)
    integrity.force_full_precision()
    guard = integrity.Guard(None)
    guard.before()
    torch.backends.cuda.matmul.allow_tf32 = True
    verdict = guard.after("a call")
    assert verdict.code == "precision-lowered"
    assert torch.get_float32_matmul_precision() == "highest"


@pytest.mark.gpu
def test_the_profiler_pass_attributes_a_triton_kernel_and_sees_a_side_stream():
    import triton
    import triton.language as tl

    @triton.jit
    def double_it(x_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)

    x = torch.randn(1 << 20, device="cuda")
    launch = lambda: double_it[(triton.cdiv(x.numel(), 1024),)](x, x.numel(), BLOCK=1024)  # noqa: E731
    found = integrity.attribute_gpu_time(launch, ("double_it",))
    assert found.own_fraction > 0.9 and len(found.streams) == 1
    side = torch.cuda.Stream()

    def on_side_stream():
        with torch.cuda.stream(side):
            launch()

    assert len(integrity.attribute_gpu_time(on_side_stream, ("double_it",)).streams) == 2


@pytest.mark.gpu
def test_the_persisting_l2_limit_is_reset_and_read_back():
    torch.cuda.init()
    control = integrity.PersistingL2()
    assert control.available and control.limit() == 0
