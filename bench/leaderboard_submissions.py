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

Each submission declares `attempted_levels`, the levels the board evaluated, read from the leaderboard's
`docs/assets/data.json` (the table its page draws). That file is keyed by problem: its keys are every problem of
levels 1, 2 and 3 (100 + 100 + 50 = 250, named as this catalogue's 91bfc2c track names them; no level-4 problem),
94 of them with nothing under them, so the board ran whole levels and a problem nobody solved is still a row.
Under each key it lists only correct kernels, the five fastest (exactly raw_data.json's top five by speedup), so
a failure leaves no trace and nothing in it gives a model a problem set of its own: every model is a contestant
on the same 250 rows. Every model is therefore declared on each level whose problems the keys cover in full
(`board_levels`): levels 1, 2 and 3, for all seven. The models' own appearances are consistent with that but
cannot prove it, since a level a model failed throughout looks the same as one it never ran: five models have
kernels on all three levels; llama-3.1-405b has 40, 0 and 2 on levels 1-3 (none on level 2, yet two on level 3,
the hardest); llama-3.1-70b has 26 on level 1 and none on 2 or 3. Those levels without a kernel are declared all
the same: the format allows a declared level with no kernel, and fast_p 0 there is KernelBench's score for a
model that solved none of a level's problems, where leaving the level out would list the model there as partial
(0 attempted) and unranked. A level the keys cover only in part is not declared, since the declaration says every
problem was attempted. The script prints, per model, the declared levels on which it has no kernel.
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
from validator.catalogue.problems import Catalogue, load_catalogue
from validator.submission.importer import ImportPlan, Metadata, parse_pick, plan_import, submission_document

REPOSITORY = "https://github.com/anneouyang/KernelBenchLeaderboard"
RAW = "docs/assets/raw_data.json"
BOARD = "docs/assets/data.json"
BOARD_KEY = re.compile(r"^Level (\d+): (\d+)_(.+)$")
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


def board_at(git_dir: Path, commit: str) -> dict[str, list[dict]]:
    """data.json: problem (`Level 1: 19_ReLU`) -> the correct kernels the board lists for it."""
    try:
        return json.loads(git(git_dir, "show", f"{commit}:{BOARD}"))
    except subprocess.CalledProcessError:
        raise SystemExit(f"{BOARD} is missing at {commit}: the levels the board evaluated are read from it") from None


def board_levels(board: dict[str, list[dict]], catalogue: Catalogue) -> tuple[int, ...]:
    """The levels whose every problem of the track (id and name) is a key of the board: the levels it evaluated."""
    listed = set()
    for key in board:
        match = BOARD_KEY.match(key)
        if match is None:
            raise SystemExit(f"{BOARD}: key {key!r} is not of the form 'Level L: <id>_<Name>'")
        listed.add((int(match[1]), int(match[2]), f"{match[2]}_{match[3]}"))
    track = catalogue.tracks()[TRACK]
    levels = sorted({p.level for p in track})
    return tuple(level for level in levels
                 if all((p.level, p.problem_id, p.name) in listed for p in track if p.level == level))


def slug_of(model: str) -> str:
    return "kb2024-" + re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")


def document_for(model: str, entries: list[dict], commit: str, date: str, hardware: str, *,
                 levels: tuple[int, ...] = ()) -> dict:
    """One model's submission: its kernels planned as an import of its run directories, each a `source`;
    `levels`: the levels it declares attempted (`board_levels`)."""
    catalogue = load_catalogue()
    by_problem = {(e["level"], e["problem_id"] + 1): e for e in entries}  # run files count from 1
    meta = Metadata(slug=slug_of(model), name=f"{model} (2024 KernelBench leaderboard)", method="one-shot",
                    date=date, authors=("KernelBench 2024 leaderboard",), target_hardware=(hardware,), model=model,
                    description="The kernels the public 2024 KernelBench leaderboard lists for this model, all "
                    "correct under KernelBench's own evaluation there, referenced at the leaderboard repository's "
                    "commit and measured here under this board's protocol.",
                    links=(("2024 leaderboard", REPOSITORY),), attempted_levels=levels)
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
    levels = board_levels(board_at(args.git_dir, commit), load_catalogue())
    if args.mirror:
        root = args.mirror / REPOSITORY.removeprefix("https://github.com/") / commit / SOLUTIONS
        for entry in entries:
            target = root / f"{entry['file']}.py"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(entry["blob"])
    for model in sorted({e["display_name"] for e in entries}):
        mine = [e for e in entries if e["display_name"] == model]
        document = document_for(model, mine, commit, date, args.hardware, levels=levels)
        path = args.out / f"{document['slug']}.json"
        path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        empty = sorted(set(levels) - {k["level"] for k in document["kernels"]})
        note = f"; no kernel on level(s) {', '.join(map(str, empty))}: fast_p 0 there" if empty else ""
        print(f"{path}: {len(document['kernels'])} of {len(mine)} kernels; attempted_levels "
              f"{document.get('attempted_levels', [])}{note}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
