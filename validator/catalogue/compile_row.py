"""The torch.compile baseline as a submission: every catalogue problem, one shared kernel file.

The kernel (`compile_baseline.KERNEL_SOURCE`) builds the problem's own `Model`, which the worker hands to
torch-compile kernels, and compiles its forward (inductor, default mode); so the row is measured by the same
pipeline and protocol as any other submission, and anyone can rerun it with
`kb-validate submissions/torch-compile-inductor.json`. The JSON lists each problem's sha256, so
`kb-validate catalogue baseline --check` fails when a problem changed and the file was not regenerated.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from validator.catalogue.problems import Catalogue
from validator.files import write_text_atomic
from validator.results.baselines import BACKEND, KERNEL_FILE, KERNEL_SOURCE, SUBMISSION_SLUG

DESCRIPTION = (
    "The compiler baseline: every problem's reference Model with its forward wrapped in torch.compile "
    "(inductor, default mode, no autotuning), one kernel file shared by all problems, listed by "
    "`kb-validate catalogue baseline --write`. It writes no kernel by hand; it shows what the PyTorch compiler "
    "achieves on the same hardware and protocol, so a submission's speedup can be read against it as well as "
    "against eager PyTorch."
)


def expected_files(catalogue: Catalogue, date: str) -> dict[str, str]:
    """Path relative to the submissions directory -> text, for the JSON document and its kernel file."""
    files = {f"{SUBMISSION_SLUG}/{KERNEL_FILE}": KERNEL_SOURCE}
    kernels = [{"level": problem.level, "problem_id": problem.problem_id, "problem_sha256": problem.sha256,
                "path": KERNEL_FILE, "backend": BACKEND} for problem in catalogue.problems]
    document = {
        "$schema": "../validator/submission/schema/submission-v1.schema.json", "schema_version": 1,
        "slug": SUBMISSION_SLUG, "name": "torch.compile (inductor, default mode)", "description": DESCRIPTION,
        "authors": [{"name": "KernelBench leaderboard maintainers"}], "method": "compiler", "date": date,
        "target_hardware": ["any CUDA GPU"], "kernels": kernels,
    }
    files[f"{SUBMISSION_SLUG}.json"] = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    return files


def committed_date(submissions_dir: Path) -> str:
    """The date of the committed document (regenerating keeps it), or today for a first write."""
    try:
        date = json.loads((submissions_dir / f"{SUBMISSION_SLUG}.json").read_text(encoding="utf-8"))["date"]
        return str(date)
    except (OSError, ValueError, KeyError, TypeError):
        return datetime.now(UTC).date().isoformat()


def _stray_files(submissions_dir: Path, expected: dict[str, str]) -> list[str]:
    """Files in the submission's kernel directory that the generator does not write."""
    kernel_dir = submissions_dir / SUBMISSION_SLUG
    found = sorted(kernel_dir.rglob("*")) if kernel_dir.is_dir() else []
    relative = (path.relative_to(submissions_dir).as_posix() for path in found if path.is_file())
    return [name for name in relative if name not in expected]


def differences(submissions_dir: Path, expected: dict[str, str]) -> list[str]:
    """Files that are missing, different, or left over from a problem no longer in the catalogue."""
    changed = []
    for relative, text in expected.items():
        path = submissions_dir / relative
        try:
            if path.read_text(encoding="utf-8") != text:
                changed.append(f"{relative} (differs)")
        except OSError:
            changed.append(f"{relative} (missing)")
    return changed + [f"{name} (not generated from the catalogue)" for name in _stray_files(submissions_dir, expected)]


def write(submissions_dir: Path, expected: dict[str, str]) -> int:
    """Write every generated file (atomically) and delete stray ones; returns how many files changed."""
    changed = len(differences(submissions_dir, expected))
    for name in _stray_files(submissions_dir, expected):
        (submissions_dir / name).unlink()
    for relative, text in expected.items():
        (submissions_dir / relative).parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(submissions_dir / relative, text)
    return changed
