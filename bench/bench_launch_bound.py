"""A launch-bound problem: the harness's timing against the kernel time a profiler reports.

    python bench/bench_launch_bound.py [--sizes 4096 65536 1048576]

ReLU on a few thousand elements is a few microseconds of GPU work. The harness times each call with CUDA
events around the call (after an L2 flush and a device-wide synchronize), so its number includes launch
latency; the profiler reports only the kernel's execution. This prints both, per size, for the reference
(torch.relu) and a Triton ReLU, through the same `validator.evaluate.worker.timing.run_rounds` the worker
uses. GPU only.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))


def triton_relu():
    import torch
    import triton
    import triton.language as tl

    @triton.jit
    def relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        mask = offsets < n
        x = tl.load(x_ptr + offsets, mask=mask)
        tl.store(y_ptr + offsets, tl.where(x > 0, x, 0.0), mask=mask)

    def relu(x):
        y = torch.empty_like(x)
        relu_kernel[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
        return y

    return relu


def profiled_kernel_us(fn, inputs: list, flush) -> tuple[float, int]:
    """Median duration of fn's GPU kernels per call, from torch.profiler's trace (the L2 flush's fill
    kernel left out), and how many kernels were seen."""
    import tempfile

    import torch
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for x in inputs:
            flush.zero_()
            torch.cuda.synchronize()
            fn(x)
            torch.cuda.synchronize()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "trace.json"
        prof.export_chrome_trace(str(path))
        events = json.loads(path.read_text()).get("traceEvents", [])
    kernels = [e for e in events if str(e.get("cat", "")).lower() == "kernel"]
    durations = [float(e["dur"]) for e in kernels if "fill" not in str(e.get("name", "")).lower()]
    return statistics.median(durations), len(durations)


def measure(size: int, protocol, device) -> dict:
    import torch

    from validator.evaluate.worker import timing
    from validator.evaluate.worker.correctness import PASSED, Check

    kernel = triton_relu()
    hooks = timing.Hooks(
        new_inputs=lambda i: [torch.randn(size, device=device)],
        before_call=lambda: None,
        after_kernel=lambda out, args: PASSED,
        verify=lambda out, ref: PASSED if torch.equal(out, ref) else Check(False, "timed-output-mismatch"),
        release=lambda out: None,
    )
    series = timing.run_rounds(torch.relu, kernel, hooks, protocol=protocol, device=device, seed=size)
    flush = timing.flush_buffer(device, protocol.l2_flush_factor)
    xs = [torch.randn(size, device=device) for _ in range(50)]
    kernel(xs[0])
    ref_prof, _ = profiled_kernel_us(torch.relu, xs, flush)
    ker_prof, _ = profiled_kernel_us(kernel, xs, flush)
    us = lambda samples: 1e3 * statistics.median(samples)  # noqa: E731
    return {
        "elements": size, "rounds": len(series.ref_ms), "stop": series.stop,
        "ref_harness_us": us(series.ref_ms), "ker_harness_us": us(series.ker_ms),
        "ref_host_us": us(series.ref_host_ms), "ker_host_us": us(series.ker_host_ms),
        "ref_profiler_us": ref_prof, "ker_profiler_us": ker_prof,
        "speedup_harness": timing.speedup(series.ref_ms, series.ker_ms), "speedup_profiler": ref_prof / ker_prof,
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", nargs="*", type=int, default=[4096, 65536, 1 << 20, 1 << 24])
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp")))
    args = parser.parse_args(argv)
    import torch

    from validator.protocol import PROTOCOL

    device = torch.device("cuda", 0)
    protocol = replace(PROTOCOL, time_budget_s=10.0)
    rows = [measure(size, protocol, device) for size in args.sizes]
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "launch_bound.json").write_text(json.dumps(rows, indent=1))
    print(f"{'elements':>9} {'ref evt µs':>10} {'ref prof µs':>11} {'ker evt µs':>10} {'ker prof µs':>11} "
          f"{'ker host µs':>11} {'speedup evt':>11} {'speedup prof':>12}")  # fmt: skip
    for r in rows:
        print(f"{r['elements']:>9} {r['ref_harness_us']:10.2f} {r['ref_profiler_us']:11.2f} "
              f"{r['ker_harness_us']:10.2f} {r['ker_profiler_us']:11.2f} {r['ker_host_us']:11.2f} "
              f"{r['speedup_harness']:11.3f} {r['speedup_profiler']:12.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
