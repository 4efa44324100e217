"""Synthetic problems, submissions and result records of the real shapes, for tests and the site benchmark.

Everything goes through the real record types (`validator.results.records.save`), so a change of the result
format changes the synthetic data with it. Deterministic for a given spec.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import math
import random
from dataclasses import dataclass
from pathlib import Path

from validator.catalogue.manifest_entry import MANIFEST_SCHEMA_VERSION, ManifestEntry, Measurement
from validator.protocol import PROTOCOL_VERSION
from validator.results.records import (
    Environment,
    Flag,
    ProblemResult,
    ResultsFile,
    Status,
    Timing,
    UpstreamVerdict,
    save,
)

HARDWARE_NAMES = {"nvidia-h100-80gb-hbm3": "NVIDIA H100 80GB HBM3", "nvidia-h200": "NVIDIA H200"}
FAILURES = (Status.INCORRECT, Status.COMPILE_ERROR, Status.RUNTIME_ERROR, Status.TIMEOUT, Status.OOM)


@dataclass(frozen=True)
class SyntheticSpec:
    submissions: int = 4
    problems_per_level: tuple[int, ...] = (8, 6, 4)
    hardware: tuple[str, ...] = ("nvidia-h100-80gb-hbm3", "nvidia-h200")
    coverage: float = 0.85
    """Share of the problems each submission attempts."""
    seed: int = 0
    kernel_lines: int = 60
    verified_share: float = 0.5


@dataclass(frozen=True)
class SyntheticTree:
    problems_dir: Path
    submissions_dir: Path
    results_dir: Path


def _problem_source(level: int, problem_id: int) -> str:
    size = 1024 * (problem_id % 7 + 1)
    return (
        f'"""Synthetic problem {problem_id} of level {level}."""\n'
        "import torch\n\n"
        f"N = {size}\n\n\n"
        "class Model(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n\n"
        "    def forward(self, x):\n"
        f"        return torch.relu(x) * {level + problem_id}\n\n\n"
        "def get_inputs():\n"
        "    return [torch.randn(N, N)]\n\n\n"
        "def get_init_inputs():\n"
        "    return []\n"
    )


def _manifest_entry(entry: dict) -> ManifestEntry:
    """The entry as the catalogue writes it (the same record the site reads back)."""
    measured = {hw: Measurement(m["eager_ms"], m["peak_mem_bytes"], "2026-11-20T00:00:00Z", entry["sha256"])
                for hw, m in entry["measured"].items()}
    tensor = {"shape": [int(entry["min_bytes"] ** 0.5 / 8 ** 0.5)] * 2, "dtype": "float32"}
    return ManifestEntry(entry["key"], entry["level"], entry["problem_id"], entry["name"], entry["sha256"],
                         init_inputs=[], inputs=(tensor,), output=tensor, flops=entry["flops"],
                         min_bytes=entry["min_bytes"], measured=measured)


def write_problems(problems_dir: Path, per_level: tuple[int, ...]) -> list[dict]:
    """Problem files plus a manifest; returns the manifest's entries."""
    entries = []
    for level, count in enumerate(per_level, start=1):
        for problem_id in range(1, count + 1):
            name = f"{problem_id}_Synthetic_op_{level}_{problem_id}"
            path = problems_dir / f"level{level}" / f"{name}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            source = _problem_source(level, problem_id)
            path.write_text(source, encoding="utf-8")
            n = 1024 * (problem_id % 7 + 1)
            entries.append(
                {
                    "key": f"level{level}/{name}",
                    "level": level,
                    "problem_id": problem_id,
                    "name": name,
                    "sha256": hashlib.sha256(source.encode()).hexdigest(),
                    "flops": n * n,
                    "min_bytes": 8 * n * n,
                    "measured": {
                        hw: {"eager_ms": 0.05 * (problem_id % 7 + 1) ** 2, "peak_mem_bytes": 8 * n * n}
                        for hw in HARDWARE_NAMES
                    },
                }
            )
    problems = {e["key"]: _manifest_entry(e).to_json() for e in entries}
    manifest = {"schema_version": MANIFEST_SCHEMA_VERSION, "problems": problems}
    (problems_dir / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return entries


def _kernel_source(slug: str, entry: dict, lines: int) -> str:
    body = "".join(f"        y = y + 0 * {i}  # step {i} of the synthetic kernel\n" for i in range(lines))
    return (
        f'"""Kernel of {slug} for {entry["key"]}."""\n'
        "import torch\n\n\n"
        "class ModelNew(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        y = torch.relu(x)\n"
        f"{body}"
        f"        return y * {entry['level'] + entry['problem_id']}\n"
    )


def _submission(index: int, attempted: list[dict], submissions_dir: Path, spec: SyntheticSpec) -> dict:
    slug = f"synthetic-{index:03d}"
    kernels = []
    for entry in attempted:
        path = f"level{entry['level']}_{entry['problem_id']}.py"
        kernel_file = submissions_dir / slug / path
        kernel_file.parent.mkdir(parents=True, exist_ok=True)
        kernel_file.write_text(_kernel_source(slug, entry, spec.kernel_lines), encoding="utf-8")
        kernel = {
            "level": entry["level"],
            "problem_id": entry["problem_id"],
            "problem_sha256": entry["sha256"],
            "path": path,
            "backend": "triton" if entry["problem_id"] % 2 else "cuda",
        }
        if entry["problem_id"] % 3 == 0:
            kernel["claimed"] = {
                "speedup": 1.1 + entry["problem_id"] / 10,
                "hardware": "H100",
                "baseline": "eager",
            }
        kernels.append(kernel)
    document = {
        "schema_version": 1,
        "slug": slug,
        "name": f"Synthetic submission {index}",
        "description": "Generated for tests and the site benchmark.",
        "authors": [{"name": f"Synthetic team {index}", "github": f"synthetic-{index}"}],
        "model": {"name": f"model-{index % 5}"},
        "method": ["one-shot", "agent", "human"][index % 3],
        "date": (datetime.date(2026, 1, 1) + datetime.timedelta(days=3 * index)).isoformat(),  # best-over-time
        "links": [{"label": "paper", "url": "https://example.org/paper"}],
        "target_hardware": ["NVIDIA H100 80GB HBM3"],
        "kernels": kernels,
    }
    (submissions_dir / f"{slug}.json").write_text(json.dumps(document, indent=1), encoding="utf-8")
    return document


def _timing(ms: float) -> Timing:
    return Timing(median=ms, q1=ms * 0.98, q3=ms * 1.02, minimum=ms * 0.95, n=50)


def _problem_result(
    entry: dict, kernel: dict, skill: float, rng: random.Random, *, stale: bool, kernel_sha256: str
) -> ProblemResult:
    roll = rng.random()
    common = {
        "key": entry["key"],
        "level": entry["level"],
        "problem_id": entry["problem_id"],
        "problem_sha256": "0" * 64 if stale else entry["sha256"],
        "kernel_path": kernel["path"],
        "kernel_sha256": kernel_sha256,
        "backend": kernel["backend"],
    }
    if roll > skill:
        status = FAILURES[int(rng.random() * len(FAILURES))]
        return ProblemResult(**common, status=status, error=f"synthetic {status.value}",
                             upstream=UpstreamVerdict(False, 1, error=f"synthetic {status.value}"))
    reference = entry["measured"]["nvidia-h200"]["eager_ms"]
    speedup = round(math.exp(rng.gauss(math.log(1.0 + skill / 2), 0.6)), 4)
    compiled = reference * rng.uniform(0.5, 1.0)
    flags: tuple[Flag, ...] = ()
    status = Status.CORRECT
    if speedup > 10:
        status, flags = Status.NEEDS_REVIEW, (Flag("speedup-implausible", "above 10x; held for review"),)
    elif roll < 0.02:
        status, flags = Status.REJECTED, (Flag("no-own-kernel", "launched no kernel of its own", "error"),)
    return ProblemResult(
        **common,
        status=status,
        max_abs_error=1e-6,
        max_rel_error=1e-6,
        reference=_timing(reference),
        kernel=_timing(reference / speedup),
        speedup=speedup,
        speedup_ci=(speedup * 0.97, speedup * 1.03),
        compile_reference=_timing(compiled),
        speedup_vs_compile=round(speedup * compiled / reference, 4),
        rounds=20,
        flags=flags,
        own_kernel_fraction=0.9,
        seconds=2.0,
        upstream=UpstreamVerdict(status is not Status.REJECTED, 5, 1e-6, 1e-6, held=status is Status.NEEDS_REVIEW),
    )


def _results_file(
    document: dict, hardware: str, entries: dict, rng: random.Random, *, verified: bool, lines: int
) -> ResultsFile:
    skill = rng.uniform(0.3, 0.95)
    problems = []
    for k in document["kernels"]:
        entry = entries[(k["level"], k["problem_id"])]
        digest = hashlib.sha256(_kernel_source(document["slug"], entry, lines).encode()).hexdigest()
        problems.append(_problem_result(entry, k, skill, rng, stale=rng.random() < 0.01, kernel_sha256=digest))
    environment = Environment(
        gpu=HARDWARE_NAMES.get(hardware, hardware),
        driver="580.00",
        cuda="13.0",
        torch="2.14.1",
        triton="3.8",
        python="3.11",
        harness_version="0.1.0",
        protocol_version=PROTOCOL_VERSION,
    )
    return ResultsFile(
        slug=document["slug"],
        submission_name=document["name"],
        submission_sha256="1" * 64,
        hardware=hardware,
        environment=environment,
        protocol={"version": PROTOCOL_VERSION},
        problems=tuple(problems),
        started_at="2026-11-22T10:00:00Z",
        finished_at="2026-11-22T11:00:00Z",
        verified=verified,
        provenance={"runner": "synthetic"} if verified else {},
    )


def write_synthetic(root: Path, spec: SyntheticSpec = SyntheticSpec()) -> SyntheticTree:
    """Write problems/, submissions/ and results/ under `root` and return where they are."""
    tree = SyntheticTree(root / "problems", root / "submissions", root / "results")
    rng = random.Random(spec.seed)
    entries = write_problems(tree.problems_dir, spec.problems_per_level)
    by_id = {(e["level"], e["problem_id"]): e for e in entries}
    tree.submissions_dir.mkdir(parents=True, exist_ok=True)
    for index in range(spec.submissions):
        attempted = [e for e in entries if rng.random() < spec.coverage] or entries[:1]
        document = _submission(index, attempted, tree.submissions_dir, spec)
        for hardware in spec.hardware:
            verified = rng.random() < spec.verified_share
            results = _results_file(document, hardware, by_id, rng, verified=verified, lines=spec.kernel_lines)
            save(results, tree.results_dir / hardware / f"{document['slug']}.json")
    return tree


def add_track(problems_dir: Path, version: str) -> dict[str, str]:
    """Another KernelBench version whose every file differs from the headline's (`tracks/<version>/` and its
    hash list); returns headline problem key -> that version's file sha256."""
    listing, shas = [], {}
    for path in sorted(problems_dir.glob("level*/*.py")):
        rel = path.relative_to(problems_dir).as_posix()
        old = problems_dir / "tracks" / version / rel
        old.parent.mkdir(parents=True, exist_ok=True)
        old.write_text(path.read_text(encoding="utf-8") + "# the older version\n", encoding="utf-8")
        sha = hashlib.sha256(old.read_bytes()).hexdigest()
        listing.append(f"{sha}  {rel}")
        shas[f"{path.parent.name}/{path.stem}"] = sha
    (problems_dir / "tracks" / f"{version}.sha256").write_text("\n".join(listing) + "\n", encoding="utf-8")
    return shas


def move_run_to_track(results_path: Path, shas: dict[str, str], version: str) -> None:
    """Rewrite a result file as if its kernels had been written for (and measured on) another version."""
    data = json.loads(results_path.read_text(encoding="utf-8"))
    for record in data["problems"]:
        record["problem_sha256"] = shas[record["key"]]
        record["key"] += f"@{version}"
    results_path.write_text(json.dumps(data), encoding="utf-8")
