"""The environment a run measured in: GPU, driver, toolchain, clocks and throttle state (via nvidia-smi)."""

from __future__ import annotations

import contextlib
import os
import platform
import re
import shutil
import subprocess
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from validator import __version__
from validator.machine import Machine
from validator.protocol import PROTOCOL_VERSION
from validator.results.records import Environment

THROTTLE_BITS = {
    0x1: "gpu_idle", 0x2: "applications_clocks_setting", 0x4: "sw_power_cap", 0x8: "hw_slowdown",
    0x10: "sync_boost", 0x20: "sw_thermal_slowdown", 0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown", 0x100: "display_clock_setting",
}
FIELDS = ("driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "temperature.gpu", "power.limit")
# Newer drivers call them clock event reasons; older ones only know the throttle name.
REASON_FIELDS = ("clocks_event_reasons.active", "clocks_throttle_reasons.active")


@dataclass(frozen=True)
class Snapshot:
    driver: str = ""
    sm_clock_mhz: int | None = None
    mem_clock_mhz: int | None = None
    max_sm_clock_mhz: int | None = None
    temperature_c: int | None = None
    power_limit_w: float | None = None
    reasons: tuple[str, ...] = ()


def decode_reasons(mask_text: str) -> tuple[str, ...]:
    try:
        mask = int(mask_text.strip(), 16)
    except ValueError:
        return ()
    return tuple(name for bit, name in THROTTLE_BITS.items() if mask & bit)


def _number(text: str) -> float | None:
    match = re.match(r"^\s*([0-9.]+)", text)
    return float(match.group(1)) if match else None


def _int(text: str) -> int | None:
    value = _number(text)
    return int(value) if value is not None else None


def query(device: str) -> Snapshot | None:
    """One nvidia-smi reading of `device` (index or GPU-UUID); None where nvidia-smi is missing or fails."""
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    for reasons_field in REASON_FIELDS:
        command = [smi, f"--query-gpu={','.join((*FIELDS, reasons_field))}", "--format=csv,noheader,nounits"]
        if device:
            command += ["-i", device]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return None
        values = [v.strip() for v in done.stdout.strip().splitlines()[0].split(",")] if done.stdout.strip() else []
        if done.returncode == 0 and len(values) == len(FIELDS) + 1:
            return Snapshot(values[0], _int(values[1]), _int(values[2]), _int(values[3]), _int(values[4]),
                            _number(values[5]), decode_reasons(values[6]))
    return None


def _nvcc_release(machine: Machine) -> str:
    if not machine.nvcc:
        return ""
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        done = subprocess.run([machine.nvcc, "--version"], capture_output=True, text=True, timeout=30, check=False)
        match = re.search(r"release ([0-9.]+)", done.stdout)
        if match:
            return match.group(1)
    return ""


@dataclass
class ClockSampler:
    """Reads clocks and throttle reasons every few seconds while the GPUs work, for the record."""

    devices: Sequence[str]
    interval_s: float = 5.0
    samples: list[Snapshot] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True, name="kb-clock-sampler")

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            for device in self.devices:
                snapshot = query(device)
                if snapshot is not None:
                    self.samples.append(snapshot)

    def __enter__(self) -> ClockSampler:
        if self.devices and shutil.which("nvidia-smi"):
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=35)

    def summary(self) -> dict[str, Any]:
        busy = [s for s in self.samples if "gpu_idle" not in s.reasons]
        clocks = [s.sm_clock_mhz for s in busy if s.sm_clock_mhz is not None]
        reasons = sorted({r for s in busy for r in s.reasons})
        return {
            "samples": len(self.samples), "busy_samples": len(busy),
            "sm_clock_mhz_min": min(clocks, default=None), "sm_clock_mhz_max": max(clocks, default=None),
            "throttle_reasons_seen": reasons,
            "temperature_c_max": max((s.temperature_c for s in busy if s.temperature_c is not None), default=None),
        }


def cpu_model(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The host CPU's model name ("" where the system does not say). A small problem's reported time holds the
    host's launch of the call, so two runs on the same GPU model differ with the host: on H100s at protocol 25,
    2024-board calls of 20-100 us took twice as long on a host whose imports took twice as long
    (`bench/p25-h100-2026-12-07-session41.txt`)."""
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as lines:  # noqa: PTH123 (a /proc file, read lazily)
            for line in lines:
                name, _, value = line.partition(":")
                if name.strip() == "model name":
                    return value.strip()[:200]
    except OSError:
        pass
    return platform.processor()[:200]


def environment(machine: Machine, gpu_name: str, devices: Sequence[str], extra: dict[str, Any]) -> Environment:
    """The per-run environment record, read at the start of the run (clocks while idle are in `extra`)."""
    first = query(devices[0]) if devices and devices[0] else None
    try:
        import triton

        triton_version = triton.__version__
    except ImportError:
        triton_version = ""
    details = {
        "gpu_count": len(devices), "nvcc": _nvcc_release(machine), "cpu_count": os.cpu_count(),
        "cpu_model": cpu_model(), "platform": platform.platform(),
    }
    if first is not None:
        details.update(max_sm_clock_mhz=first.max_sm_clock_mhz, temperature_c=first.temperature_c,
                       power_limit_w=first.power_limit_w)
    details.update(extra)
    return Environment(
        gpu=gpu_name, driver=first.driver if first else "", cuda=machine.torch_cuda or "",
        torch=machine.torch_version, triton=triton_version, python=platform.python_version(),
        harness_version=__version__, protocol_version=PROTOCOL_VERSION,
        sm_clock_mhz=first.sm_clock_mhz if first else None, mem_clock_mhz=first.mem_clock_mhz if first else None,
        throttle_reasons=first.reasons if first else (), extra=details,
    )
