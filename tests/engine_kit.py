"""Helpers for the build, engine and merge tests: small submissions written into tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

from validator.catalogue.problems import load_catalogue
from validator.findings import StageOutcome
from validator.machine import probe
from validator.run_context import RunOptions, StageContext
from validator.submission.records import submission_from_document

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "tests" / "fixtures" / "engine"
FAKE_WORKER = FIXTURES / "fake_worker.py"
EXAMPLES = REPO / "submissions" / "kernelbench-team-examples"


def make_submission(root: Path, kernels: dict[str, tuple[int, int, str, str]], slug: str = "engine-test") -> Path:
    """Write submissions/<slug>.json and its kernel files under `root`.

    `kernels` maps a file name to (level, problem id, backend, source). Returns the JSON path.
    """
    catalogue = load_catalogue()
    directory = root / "submissions" / slug
    directory.mkdir(parents=True, exist_ok=True)
    entries = []
    for name, (level, problem_id, backend, source) in kernels.items():
        (directory / name).write_text(source, encoding="utf-8")
        problem = catalogue.get(level, problem_id)
        assert problem is not None, f"no level {level} problem {problem_id} in the catalogue"
        entries.append({"level": level, "problem_id": problem_id, "problem_sha256": problem.sha256,
                        "path": name, "backend": backend})
    document = {
        "schema_version": 1, "slug": slug, "name": "Engine test submission",
        "description": "Written by the engine tests.", "authors": [{"name": "tests"}], "method": "human",
        "date": "2026-11-22", "target_hardware": ["NVIDIA H100 80GB HBM3"], "kernels": entries,
    }
    path = root / "submissions" / f"{slug}.json"
    path.write_text(json.dumps(document, indent=1), encoding="utf-8")
    return path


def fake_kernel(behaviour: str, extra: str = "") -> str:
    """A kernel file whose comment tells the fake worker what to do (the fake never imports it)."""
    return f"# fake-worker: {behaviour}\n# {extra}\nimport torch\n\n\nclass ModelNew(torch.nn.Module):\n    pass\n"


def context(document: Path, options: RunOptions, earlier: tuple[StageOutcome, ...] = ()) -> StageContext:
    raw = json.loads(document.read_text(encoding="utf-8"))
    submission = submission_from_document(raw, document)
    return StageContext(submission, load_catalogue(), probe(), options, str(document), earlier)
