"""Helpers for the build, engine and merge tests: small submissions written into tmp_path."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

from tests.paths import REPO
from validator.catalogue.problems import load_catalogue
from validator.compile.stage import BuildResult, BuildStatus, KernelBuild
from validator.compile.toolchain import cache_root, kernel_cache_dir, toolchain
from validator.findings import StageOutcome
from validator.machine import probe
from validator.run_context import RunOptions, StageContext
from validator.submission.records import submission_from_document

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


def context(document: Path, options: RunOptions, earlier: tuple[StageOutcome, ...] = (),
            builds: dict[str, BuildResult] | None = None) -> StageContext:
    """A stage context for `document`; unless `builds` is given, every kernel counts as built (imported, no
    extension), as the build stage reports a Triton or PyTorch kernel, without building anything."""
    raw = json.loads(document.read_text(encoding="utf-8"))
    submission = submission_from_document(raw, document)
    catalogue, machine = load_catalogue(), probe()
    if builds is None:
        builds = {}
        root, tools = cache_root(options.build), toolchain(machine, options)
        for entry in submission.kernels:
            problem = catalogue.get(entry.level, entry.problem_id)
            sha = entry.sha256()
            build = KernelBuild(problem.key, entry.file, entry.path, entry.backend, sha,
                                kernel_cache_dir(root, sha, entry.backend, tools))
            builds[problem.key] = BuildResult(build, BuildStatus.IMPORTED, False, 0.0, "imported (test)")
    return StageContext(submission, catalogue, machine, options, str(document), earlier, builds)


def with_status(ctx: StageContext, key: str, status: BuildStatus, message: str) -> dict[str, BuildResult]:
    """The context's builds with one kernel's build ended as `status`."""
    return {**ctx.builds, key: dataclasses.replace(ctx.builds[key], status=status, message=message)}
