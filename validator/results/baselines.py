"""The torch.compile baseline: each problem's reference compiled with inductor (default mode), timed once
per hardware and problem version, then set beside every kernel's result on that hardware.

The compiled reference runs through the ordinary worker as if it were a kernel (`KERNEL_SOURCE`, a
`ModelNew` that builds the problem's `Model` and compiles its forward), so it gets the same protocol: fresh
inputs, L2 flushes, interleaving with the eager reference. Its median is cached by problem sha256 in
`results/<hardware>/baselines/torch-compile.json`; `speedup_vs_compile` = compiled median / kernel median.
The two medians come from different processes (and possibly runs), so this ratio is less precise than
the eager speedup, which is measured interleaved; the site says which baseline a number uses.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from validator import files
from validator.files import write_text_atomic
from validator.results.layout import baseline_cache_path
from validator.results.records import Flag, ProblemResult, Status, Timing

BACKEND = "torch-compile"
CACHE_VERSION = 1

SUBMISSION_SLUG = "torch-compile-inductor"
"""The baseline as a leaderboard row: `submissions/torch-compile-inductor.json` (`compile_submission`). Its
measured results also fill the cache, since its kernel is exactly this baseline."""
REFERENCE_MODULE = "kb_reference"
"""Name under which the runner gives a torch-compile kernel its problem's module (`Runner._import_kernel`)."""
KERNEL_FILE = "compiled_reference.py"
KERNEL_SOURCE = '''"""The torch.compile baseline (inductor, default mode): one kernel file for every problem.

kb-validate hands a torch-compile kernel its problem's module as `kb_reference`; this ModelNew builds that
module's reference Model (same arguments, same seeded initialisation) and compiles its forward. Generated
and kept in step by `kb-validate catalogue baseline --write`.
"""

import torch


class ModelNew(torch.nn.Module):
    def __init__(self, *args):
        super().__init__()
        from kb_reference import Model  # imported here: the module exists only while a problem is evaluated

        self.reference = Model(*args)
        self._compiled_forward = torch.compile(self.reference.forward)

    def forward(self, *inputs):
        return self._compiled_forward(*inputs)
'''


def cache_path(results_dir: Path, hardware: str) -> Path:
    return baseline_cache_path(results_dir, hardware, BACKEND)


def load_cache(path: Path) -> dict[str, dict[str, Any]]:
    """Entries by problem sha256; an unreadable or foreign cache counts as empty (it is only a cache)."""
    try:
        data = files.read_json(path, files.RESULTS_BYTES, expected="a baseline cache")
    except files.JsonError:  # deep nesting included: a hostile cache file is only an empty cache
        return {}
    if not isinstance(data, dict) or data.get("cache_version") != CACHE_VERSION:
        return {}
    entries = data.get("entries")
    return entries if isinstance(entries, dict) else {}


def save_cache(path: Path, entries: dict[str, dict[str, Any]]) -> None:
    document = {"cache_version": CACHE_VERSION, "baseline": BACKEND, "entries": dict(sorted(entries.items()))}
    write_text_atomic(path, json.dumps(document, indent=1) + "\n")


def write_kernel(directory: Path) -> tuple[Path, str]:
    """The baseline's kernel file, written into `directory`, and its sha256 (the same for every problem)."""
    path = directory / KERNEL_FILE
    path.write_text(KERNEL_SOURCE, encoding="utf-8")
    return path, hashlib.sha256(KERNEL_SOURCE.encode()).hexdigest()


def record(path: Path, measured: Sequence[ProblemResult], torch_version: str, protocol_version: str) -> None:
    """Remember what a run of the baseline submission measured, as if the engine had timed it here."""
    entries = load_cache(path)
    for result in measured:
        if result.status != Status.NOT_RUN:
            entries[result.problem_sha256] = cache_entry(result, torch_version, protocol_version)
    save_cache(path, entries)


def cache_entry(result: ProblemResult, torch_version: str, protocol_version: str) -> dict[str, Any]:
    """What to remember of a baseline run: its timing when it came out right, else its status and error
    (shown as a flag on the kernels' results, and tried again on the next run)."""
    entry: dict[str, Any] = {
        "key": result.key, "status": result.status.value, "torch": torch_version,
        "protocol_version": protocol_version, "measured_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }
    if result.status in (Status.CORRECT, Status.NEEDS_REVIEW) and result.kernel is not None:
        entry["compiled"] = dataclasses.asdict(result.kernel)
        entry["eager"] = dataclasses.asdict(result.reference) if result.reference else None
    else:
        codes = ", ".join(f.code for f in result.flags if f.severity == "error")
        entry["error"] = (result.error.splitlines()[0] if result.error else "") + (f" [{codes}]" if codes else "")
    return entry


def current(entry: dict[str, Any] | None, torch_version: str, protocol_version: str) -> bool:
    """Whether an entry was made under this torch and protocol (a timing from another counts for nothing)."""
    return bool(entry) and entry.get("torch") == torch_version and entry.get("protocol_version") == protocol_version


def usable(entry: dict[str, Any] | None, torch_version: str, protocol_version: str) -> bool:
    """A cached timing, measured under this torch and protocol."""
    return current(entry, torch_version, protocol_version) and "compiled" in (entry or {})


def attach(problems: Sequence[ProblemResult], entries: dict[str, dict[str, Any]]) -> tuple[ProblemResult, ...]:
    """Every measured kernel result gets the compiled reference's timing and the speedup against it, or a
    flag saying why there is none. `entries` holds only entries current for this torch and protocol."""
    def with_baseline(result: ProblemResult) -> ProblemResult:
        entry = entries.get(result.problem_sha256)
        if entry and "compiled" not in entry:
            message = f"the torch.compile baseline did not run cleanly: {entry.get('status')}: {entry.get('error', '')}"
            return dataclasses.replace(result, flags=(*result.flags, Flag("compile-baseline-failed", message, "info")))
        if not entry or result.kernel is None or result.kernel.median <= 0:
            return result
        compiled = Timing(**entry["compiled"])
        return dataclasses.replace(result, compile_reference=compiled,
                                   speedup_vs_compile=compiled.median / result.kernel.median)

    return tuple(with_baseline(result) for result in problems)
