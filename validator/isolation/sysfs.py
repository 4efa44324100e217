"""The part of /sys a GPU runner sees: the NVIDIA PCI functions, the CPU and NUMA topology and the driver's
module directories; never the whole of /sys.

Issue 46: where the runner keeps outside uid 0 (its Python lives under /root, which uid 65534 cannot reach), a
file readable by root alone (mode 0400, e.g. /sys/firmware/dmi/tables/DMI, /sys/kernel/...) was readable in the
sandbox, since DAC checks the outside owner. Only the directories the CUDA driver reads are bound, and in them
every file that only the runner's outside uid could read, being its owner, is covered by an unreadable one.
"""

from __future__ import annotations

import functools
import os
import stat
import tempfile
from pathlib import Path

from validator.isolation import leftovers

SYS_SHOWN = ("/sys/devices/system/cpu", "/sys/devices/system/node", "/sys/module/nvidia", "/sys/module/nvidia_uvm")
"""Topology the driver and torch read (online CPUs, NUMA nodes) and the driver's own parameters."""
PCI_DEVICES = Path("/sys/bus/pci/devices")
NVIDIA_VENDOR = "0x10de"


def nvidia_functions(devices: Path = PCI_DEVICES) -> list[tuple[str, Path]]:
    """(PCI address, its real directory under /sys/devices) of every NVIDIA function (GPUs, NVSwitches)."""
    found = []
    for link in sorted(devices.iterdir()) if devices.is_dir() else ():
        try:
            vendor = (link / "vendor").read_text().strip()
        except OSError:
            continue
        if vendor == NVIDIA_VENDOR:
            found.append((link.name, link.resolve()))
    return found


def owner_only_files(roots: list[str], owner: int) -> list[str]:
    """Regular files under `roots` that `owner` reads only because it owns them (no read bit for others)."""
    hidden = []
    for root in roots:
        for directory, _dirs, files in os.walk(root, followlinks=False):
            for name in files:
                path = str(Path(directory) / name)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue
                if stat.S_ISREG(info.st_mode) and info.st_uid == owner and not info.st_mode & stat.S_IROTH:
                    hidden.append(path)
    return hidden


@functools.cache
def _unreadable() -> str:
    """An empty file of mode 000, bound over the files to hide (no capability inside reads it)."""
    folder = Path(tempfile.mkdtemp(prefix="kb-sysmask-"))
    leftovers.track(folder)
    folder.chmod(0o711)
    target = folder / "unreadable"
    target.touch(mode=0)
    target.chmod(0)
    return str(target)


@functools.cache
def bwrap_args(owner: int) -> tuple[str, ...]:
    """bwrap arguments showing the GPU's part of /sys read-only, owner-only files covered, for a runner whose
    outside uid is `owner`. Computed once per process: /sys does not change under a run."""
    shown = [p for p in SYS_SHOWN if Path(p).is_dir()]
    args: list[str] = []
    for path in shown:
        args += ["--ro-bind", path, path]
    for address, real in nvidia_functions():
        args += ["--ro-bind", str(real), str(real),
                 "--symlink", os.path.relpath(real, PCI_DEVICES), str(PCI_DEVICES / address)]
        shown.append(str(real))
    for path in owner_only_files(shown, owner):
        args += ["--ro-bind", _unreadable(), path]
    return tuple(args)
