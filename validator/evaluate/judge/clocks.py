"""The GPU's clock state through NVML (`pynvml`, from nvidia-ml-py), read by the judge around each timing
block, and the clock lock `kb-validate --lock-clocks` asks for.

nvbench drops samples taken below 75% of the default clock; SOL-ExecBench reports 10-30% variance from boost
clocks. Here a block is *slowed* when NVML reported a throttle reason that lowers the clock for reasons of the
hardware's state (thermal, power brake, hardware or software slowdown), or an SM clock below `floor` of the
application clock while the GPU was busy. A reading taken while NVML says the GPU is idle is not judged on its
clock: an idle GPU drops its clock, which says nothing about how the block ran. `pynvml` is optional: without it
(a CPU machine, the interpreter) nothing is read and no block is judged.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SLOWING = {
    "hw-slowdown": 0x8, "sw-thermal": 0x20, "hw-thermal": 0x40, "hw-power-brake": 0x80,
}
"""Throttle reasons (nvmlClocksEventReason*) that mean the clock was held down by the hardware's state."""
REPORTED = {"gpu-idle": 0x1, "app-clock-setting": 0x2, "sw-power-cap": 0x4, "sync-boost": 0x10,
            "display-clock": 0x100, **SLOWING}
"""Every reason recorded with a block. sw-power-cap alone is not a slowdown: under a heavy kernel the power
cap is routinely active at full clock; when it does lower the clock, the clock floor sees it."""


@dataclass(frozen=True)
class ClockState:
    sm_mhz: int
    mem_mhz: int
    app_sm_mhz: int
    """The application (or, where not set, the maximum) SM clock the floor is a fraction of."""
    reasons: tuple[str, ...]
    processes: tuple[int, ...] = ()
    """Pids NVML listed with compute work on the device (the driver's, so host pids)."""


def decode(mask: int) -> tuple[str, ...]:
    return tuple(name for name, bit in REPORTED.items() if mask & bit)


def slowed(before: ClockState | None, after: ClockState | None, floor: float) -> str:
    """Why a block's clock state says it ran slowed ("" when it did not, or when nothing was read)."""
    for when, state in (("before", before), ("after", after)):
        if state is None:
            continue
        held = [r for r in state.reasons if r in SLOWING]
        if held:
            return f"throttled {when} the block ({', '.join(held)})"
        if "gpu-idle" not in state.reasons and state.sm_mhz < floor * state.app_sm_mhz:
            return (f"SM clock {state.sm_mhz} MHz {when} the block, below {floor:.0%} of the application clock "
                    f"{state.app_sm_mhz} MHz")
    return ""


def merged(before: ClockState | None, after: ClockState | None) -> ClockState | None:
    """One state for the record: the lower clocks and every reason seen."""
    states = [s for s in (before, after) if s is not None]
    if not states:
        return None
    reasons = tuple(dict.fromkeys(r for s in states for r in s.reasons))
    processes = tuple(dict.fromkeys(p for s in states for p in s.processes))
    return ClockState(min(s.sm_mhz for s in states), min(s.mem_mhz for s in states), states[0].app_sm_mhz, reasons,
                      processes)


def others(states: tuple[ClockState | None, ...], ours: set[int]) -> list[str]:
    """Processes NVML saw on the GPU around a block that are neither the judge nor its runner's (`ours`), as
    "pid (name)": a shared GPU delays the judge's clock, not the kernel's events. Only processes this judge sees
    in /proc are named (a pid of another pid namespace could be anyone's, ours included)."""
    named = []
    for pid in dict.fromkeys(p for s in states if s is not None for p in s.processes):
        if pid in ours:
            continue
        try:
            name = Path(f"/proc/{pid}/comm").read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            continue
        named.append(f"{pid} ({name})")
    return named


def gpu_processes(nvml: Any, handle: Any) -> tuple[int, ...]:
    """Pids with compute work on the device now; () where NVML cannot say."""
    try:
        return tuple(int(p.pid) for p in nvml.nvmlDeviceGetComputeRunningProcesses(handle))
    except Exception:
        return ()


def _nvml() -> Any | None:
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
    except Exception:  # no driver, no device: the same as no pynvml
        return None
    return pynvml


def handle_for(uuid: str) -> tuple[Any, Any] | None:
    """(pynvml, handle) for the GPU with this UUID (torch's `get_device_properties(d).uuid`), or None."""
    nvml = _nvml()
    if nvml is None:
        return None
    text = uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"
    try:
        return nvml, nvml.nvmlDeviceGetHandleByUUID(text)
    except Exception:
        return None


def reader(nvml: Any, handle: Any) -> Callable[[], ClockState | None]:
    """A function that reads the device's clock state now (None when NVML fails to answer)."""

    def read() -> ClockState | None:
        try:
            sm = nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_SM)
            mem = nvml.nvmlDeviceGetClockInfo(handle, nvml.NVML_CLOCK_MEM)
            app = 0
            with contextlib.suppress(Exception):
                app = nvml.nvmlDeviceGetApplicationsClock(handle, nvml.NVML_CLOCK_SM)
            app = app or nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM)
            reasons = getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None) or \
                nvml.nvmlDeviceGetCurrentClocksThrottleReasons  # the older name
            mask = reasons(handle)
        except Exception:
            return None
        return ClockState(int(sm), int(mem), int(app), decode(int(mask)), gpu_processes(nvml, handle))

    return read


def device_reader(device: Any) -> Callable[[], ClockState | None]:
    """The reader for a torch CUDA device, or one that reads nothing where NVML is not available."""
    import torch

    if _nvml() is None:
        return lambda: None
    try:
        found = handle_for(str(torch.cuda.get_device_properties(device).uuid))
    except (AssertionError, RuntimeError, AttributeError):  # a torch without CUDA, or without device UUIDs
        found = None
    return reader(*found) if found is not None else (lambda: None)


@dataclass(frozen=True)
class LockResult:
    locked: bool
    detail: str


def lock(nvml: Any, handle: Any) -> LockResult:
    """Lock the SM clock at the application clock (needs root or the driver's permission); says whether it did."""
    try:
        app = nvml.nvmlDeviceGetApplicationsClock(handle, nvml.NVML_CLOCK_SM) or \
            nvml.nvmlDeviceGetMaxClockInfo(handle, nvml.NVML_CLOCK_SM)
        nvml.nvmlDeviceSetGpuLockedClocks(handle, app, app)
    except Exception as exc:  # NVMLError_NoPermission, NotSupported: recorded, the run goes on unlocked
        return LockResult(False, f"clocks not locked: {type(exc).__name__}: {exc}"[:300])
    return LockResult(True, f"SM clock locked at {app} MHz")


def unlock(nvml: Any, handle: Any) -> None:
    with contextlib.suppress(Exception):
        nvml.nvmlDeviceResetGpuLockedClocks(handle)


def _handle(nvml: Any, visible: str) -> Any | None:
    """The NVML handle of a device as CUDA_VISIBLE_DEVICES names it (`GPU-<uuid>` or an index)."""
    try:
        if visible.startswith("GPU-"):
            return nvml.nvmlDeviceGetHandleByUUID(visible)
        return nvml.nvmlDeviceGetHandleByIndex(int(visible))
    except Exception:
        return None


@contextlib.contextmanager
def locked_clocks(devices: Sequence[str], wanted: bool) -> Iterator[dict[str, Any]]:
    """`--lock-clocks`: lock each device's SM clock for the run and always unlock it at the end; yields what was
    done per device (recorded in the results' environment)."""
    if not wanted:
        yield {"requested": False}
        return
    nvml = _nvml()
    record: dict[str, Any] = {"requested": True, "devices": {}}
    held = []
    for visible in devices:
        handle = _handle(nvml, visible) if nvml is not None else None
        result = lock(nvml, handle) if handle is not None else LockResult(False, "clocks not locked: NVML is not "
                                                                            "available (pynvml missing or no driver)")
        record["devices"][visible] = {"locked": result.locked, "detail": result.detail}
        if result.locked:
            held.append(handle)
    try:
        yield record
    finally:
        for handle in held:
            unlock(nvml, handle)
