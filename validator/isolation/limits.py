"""The resource bounds of every sandboxed build and runner, in one record that reports and results carry.

Issue 46: a build wrote 320 MB into its cache entry and was recorded valid; nothing bounded a runner's memory;
a sandbox's /tmp and /dev/shm were the host's 12 GB tmpfs sizes. Each bound below is applied where the
sandboxed command is started (`sandbox.apply_limits`, `bwrap.command`, `compile.stage.build_one`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class ResourceLimits:
    build_memory_bytes: int = 16 << 30
    """RLIMIT_DATA of each build process (the import, ninja, nvcc, cicc, the host compiler). RLIMIT_DATA, not
    RLIMIT_AS: the CUDA driver reserves terabytes of address space it never backs, which RLIMIT_AS refuses."""
    runner_memory_bytes: int = 64 << 30
    """RLIMIT_DATA of each runner process: host memory only (the GPU's own memory is the device's)."""
    build_processes: int = 512
    """RLIMIT_NPROC headroom of a build (`sandbox.Limits.processes`)."""
    runner_processes: int = 1024
    build_file_bytes: int = 2 << 30
    """RLIMIT_FSIZE of a build: no single file past this."""
    runner_file_bytes: int = 256 << 20
    scratch_bytes: int = 1 << 30
    """Size of each of a sandbox's own /tmp and /dev/shm (tmpfs `--size`)."""
    cache_entry_bytes: int = 256 << 20
    """A kernel's whole build cache entry: one over this is removed and reported as a build error."""

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


LIMITS = ResourceLimits()
