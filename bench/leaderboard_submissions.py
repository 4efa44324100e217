"""The 2024 KernelBench leaderboard as external submissions: one per model, each kernel referenced at a pinned commit
of github.com/anneouyang/KernelBenchLeaderboard, never copied (that repository carries no licence).

    python bench/leaderboard_submissions.py GIT_DIR [--commit SHA] [--out submissions] [--hardware L40S] [--mirror DIR]

GIT_DIR is a git directory of that repository (the `fetch` tool's mirror: /work/.mirror/anneouyang+
KernelBenchLeaderboard/repo). Each entry of `docs/assets/raw_data.json` at the commit is the file
`docs/assets/solutions/<file>.py` there; the script checks that the file's bytes are the entry's code, writes the
model's kernels into a temporary KernelBench run directory per level (`leaderboard_runs.write_runs`), plans their
import against the 91bfc2c track as `kb-validate import --kernelbench-commit 91bfc2c` does, and writes
`<out>/kb2024-<model>.json`, whose kernels carry `source` references (repository, commit, path, sha256). The
validator fetches and verifies each before anything of it runs (`validator/submission/external.py`). `--mirror DIR`
also lays the files out as `KB_EXTERNAL_MIRROR` reads them, for a GPU machine without a network (write it under
build/, which git ignores: the files are the leaderboard's code, never committed here).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.leaderboard_runs import write_runs
from validator.catalogue.problems import load_catalogue
from validator.submission.importer import ImportPlan, Metadata, parse_pick, plan_import, submission_document

REPOSITORY = "https://github.com/anneouyang/KernelBenchLeaderboard"
RAW = "docs/assets/raw_data.json"
SOLUTIONS = "docs/assets/solutions"
TRACK = "91bfc2c"


def git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(["git", f"--git-dir={git_dir}", *args], check=True, capture_output=True).stdout


def entries_at(git_dir: Path, commit: str) -> list[dict]:
    """raw_data.json's entries, typed, each with the bytes of its solution file (checked equal to its code)."""
    entries = json.loads(git(git_dir, "show", f"{commit}:{RAW}"))
    for entry in entries:
        entry["level"], entry["problem_id"] = int(entry["level"]), int(entry["problem_id"])
        blob = git(git_dir, "show", f"{commit}:{SOLUTIONS}/{entry['file']}.py")
        if blob != entry["code"].encode("utf-8"):
            raise SystemExit(f"{SOLUTIONS}/{entry['file']}.py differs from its entry's code in {RAW}")
        entry["blob"] = blob
    return entries


def slug_of(model: str) -> str:
    return "kb2024-" + re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")


def document_for(model: str, entries: list[dict], commit: str, date: str, hardware: str) -> dict:
    """One model's submission: its kernels planned as an import of its run directories, each a `source`."""
    catalogue = load_catalogue()
    by_problem = {(e["level"], e["problem_id"] + 1): e for e in entries}  # run files count from 1
    meta = Metadata(slug=slug_of(model), name=f"{model} (2024 KernelBench leaderboard)", method="one-shot",
                    date=date, authors=("KernelBench 2024 leaderboard",), target_hardware=(hardware,), model=model,
                    description="The kernels the public 2024 KernelBench leaderboard lists for this model, all "
                    "correct under KernelBench's own evaluation there, referenced at the leaderboard repository's "
                    "commit and measured here under this board's protocol.",
                    links=(("2024 leaderboard", REPOSITORY),))
    chosen = []
    with tempfile.TemporaryDirectory() as tmp:
        write_runs(entries, Path(tmp))
        for run_dir in sorted(Path(tmp).glob("level*")):
            chosen += plan_import(run_dir, catalogue, parse_pick(["best"]), commit=TRACK).chosen
    plan = ImportPlan(TRACK, "--kernelbench-commit", tuple(chosen), ())
    document = submission_document(plan, meta)
    for c, kernel in zip(chosen, document["kernels"], strict=True):
        entry = by_problem[(c.candidate.level, c.candidate.problem_id)]
        kernel["source"] = {"repository": REPOSITORY, "commit": commit, "path": f"{SOLUTIONS}/{entry['file']}.py",
                            "sha256": hashlib.sha256(entry["blob"]).hexdigest()}
    document["kernels"].sort(key=lambda k: (k["level"], k["problem_id"]))
    return document


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--out", type=Path, default=Path("submissions"))
    parser.add_argument("--hardware", default="L40S", help="the GPU the 2024 leaderboard measured on")
    parser.add_argument("--mirror", type=Path, help="also write each file as KB_EXTERNAL_MIRROR reads it")
    args = parser.parse_args(argv)
    commit = git(args.git_dir, "rev-parse", args.commit).decode().strip()
    date = git(args.git_dir, "log", "-1", "--format=%cs", commit).decode().strip()
    entries = entries_at(args.git_dir, commit)
    if args.mirror:
        root = args.mirror / REPOSITORY.removeprefix("https://github.com/") / commit / SOLUTIONS
        for entry in entries:
            target = root / f"{entry['file']}.py"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry["blob"])
    for model in sorted({e["display_name"] for e in entries}):
        mine = [e for e in entries if e["display_name"] == model]
        document = document_for(model, mine, commit, date, args.hardware)
        path = args.out / f"{document['slug']}.json"
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        print(f"{path}: {len(document['kernels'])} of {len(mine)} kernels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
