"""Does the board's upstream-rule verdict agree with KernelBench's own? Real runs in, agreement and disagreements out.

    python bench/upstream_agreement.py RUN_DIR [RUN_DIR ...] --out $OUT [--samples best|all] [--kernelbench-commit C]
                                      [--time-budget S] [--compare-only]

Input: KernelBench run directories, as `kb-validate import` reads them (validator/submission/importer.py):

    RUN_DIR/level_{L}_problem_{P}_sample_{S}_kernel.py   one generated kernel each, defining ModelNew
    RUN_DIR/eval_results.json                            KernelBench's verdicts: {"<problem id>": record, or a
                                                         list of records}, each {"sample_id": S, "compiled":
                                                         bool, "correctness": bool, "runtime": ms or -1, ...}
    RUN_DIR/**/<problem file>.py                         optional copies of the problem files (the version is
                                                         detected from them; else pass --kernelbench-commit)

One level per run directory (eval_results.json is keyed by problem id alone). Each sample with a verdict is
imported (`--samples best`: the sample the importer picks by default, the fastest correct one; `all`: every
sample, one submission per sample id) and run through the whole board pipeline (`kb-validate`: policy,
build, judge) on this machine's GPU; then each result's upstream verdict (`ProblemResult.upstream`) is
compared with eval_results.json's `correctness`. A kernel the board did not judge (build or policy failure,
so no upstream verdict) counts as not correct. Resumable: run it again after an interruption and kb-validate
measures only what it had not measured yet. Writes $OUT/agreement.json and $OUT/logs/*.log, and prints the
agreement and every disagreement with its errors last.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.results.records import ResultsFile, load  # noqa: E402
from validator.submission.importer import EVAL_RESULTS, RUN_FILE, read_eval_results  # noqa: E402


@dataclass(frozen=True)
class Expected:
    """KernelBench's verdict on one sample, from its eval_results.json."""

    level: int
    problem_id: int
    sample: int
    correct: bool


@dataclass(frozen=True)
class Compared:
    level: int
    problem_id: int
    sample: int
    key: str
    upstream_says: bool
    board_says: bool | None
    """The board's upstream-rule verdict; None where the board recorded none (never judged)."""
    status: str
    max_abs_error: float | None
    max_rel_error: float | None
    why: str

    @property
    def agrees(self) -> bool:
        return self.upstream_says == bool(self.board_says)


def expected_verdicts(run_dir: Path) -> list[Expected]:
    """KernelBench's verdict for every kernel file of the run that eval_results.json judged."""
    levels = {int(m.group(1)) for p in run_dir.glob("*.py") if (m := RUN_FILE.match(p.name))}
    if len(levels) != 1:
        raise SystemExit(f"{run_dir}: expected kernel files of exactly one level, found levels {sorted(levels)}")
    level = levels.pop()
    verdicts = read_eval_results(run_dir / EVAL_RESULTS)
    found = []
    for path in sorted(run_dir.glob("*.py")):
        match = RUN_FILE.match(path.name)
        if match:
            problem_id, sample = int(match.group(2)), int(match.group(3))
            record = verdicts.get(problem_id, {}).get(sample)
            if record is not None:
                found.append(Expected(level, problem_id, sample, record.correct))
    return found


def compare(expected: list[Expected], results: ResultsFile, picked: dict[tuple[int, int], int]) -> list[Compared]:
    """Each result of `results` beside KernelBench's verdict on the sample imported for its problem (`picked`:
    (level, problem id) -> sample id)."""
    by_problem = {(e.level, e.problem_id, e.sample): e for e in expected}
    rows = []
    for record in results.problems:
        sample = picked.get((record.level, record.problem_id))
        found = by_problem.get((record.level, record.problem_id, sample)) if sample is not None else None
        if found is None:
            continue
        verdict = record.upstream
        why = verdict.error if verdict is not None else f"not judged: {record.error[:200]}"
        rows.append(Compared(record.level, record.problem_id, found.sample, record.key, found.correct,
                             verdict.correct if verdict is not None else None, record.status.value,
                             verdict.max_abs_error if verdict else None, verdict.max_rel_error if verdict else None,
                             why))
    return rows


def picked_samples(run_dir: Path, sample: int | None, commit: str | None) -> dict[tuple[int, int], int]:
    """(level, problem id) -> the sample `kb-validate import` takes with `--sample N`, or by default (best)."""
    from validator.catalogue.problems import load_catalogue
    from validator.submission.importer import Pick, plan_import

    plan = plan_import(run_dir, load_catalogue(), Pick("best") if sample is None else Pick("sample", sample), commit)
    return {(c.candidate.level, c.candidate.problem_id): c.candidate.sample for c in plan.chosen}


def run(command: list[str], log: Path) -> int:
    with log.open("w", encoding="utf-8") as out:
        return subprocess.run(command, cwd=REPO, stdout=out, stderr=subprocess.STDOUT, check=False).returncode


def judge_run_dir(run_dir: Path, out: Path, samples: str, commit: str | None,
                  time_budget: float | None = None, *, judge: bool = True) -> list[Compared]:
    expected = expected_verdicts(run_dir)
    picks = sorted({e.sample for e in expected}) if samples == "all" else [None]
    rows = []
    for sample in picks:
        slug = re.sub(r"[^a-z0-9]+", "-", f"agree-{run_dir.name}-{'best' if sample is None else sample}".lower())
        submissions, results_dir = out / "submissions", out / "results"
        submissions.mkdir(parents=True, exist_ok=True)
        results_dir.mkdir(exist_ok=True)  # kb-validate refuses a --results-dir that does not exist
        logs = out / "logs"
        logs.mkdir(exist_ok=True)
        pick = ["--pick", "best"] if sample is None else ["--sample", str(sample)]
        version = ["--kernelbench-commit", commit] if commit else []
        if judge and not (submissions / f"{slug}.json").is_file():
            run([sys.executable, "-m", "validator", "import", str(run_dir), "--slug", slug, "--name", slug,
                 "--method", "repeated-sampling", "--author", "agreement bench", "--hardware", "H200", "--force",
                 "--submissions-dir", str(submissions), *pick, *version], logs / f"{slug}.import.log")
        if not (submissions / f"{slug}.json").is_file():
            print(f"{slug}: import wrote nothing (see {logs / (slug + '.import.log')})", flush=True)
            continue
        # kb-validate resumes: problems an earlier (interrupted) run measured are not measured again
        budget = ["--time-budget", str(time_budget)] if time_budget else []
        if judge:
            run([sys.executable, "-m", "validator", str(submissions / f"{slug}.json"), "--results-dir",
                 str(results_dir), *budget], logs / f"{slug}.validate.log")
        # one row per kernel: where calls ran on different GPU models (one results file each), the newest wins
        newest: dict[str, Compared] = {}
        for path in sorted(results_dir.glob(f"*/{slug}.json"), key=lambda p: p.stat().st_mtime):
            newest.update((r.key, r) for r in compare(expected, load(path), picked_samples(run_dir, sample, commit)))
        rows += newest.values()
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dirs", nargs="+", type=Path, metavar="RUN_DIR")
    parser.add_argument("--out", type=Path, required=True, help="where submissions, results, logs and the JSON go")
    parser.add_argument("--samples", choices=("best", "all"), default="all")
    parser.add_argument("--kernelbench-commit", help="the version the runs were written against, if not detectable")
    parser.add_argument("--time-budget", type=float, help="kb-validate's --time-budget: verdicts need little timing")
    parser.add_argument("--compare-only", action="store_true",
                        help="judge nothing: compare the results already under --out (after parallel calls)")
    args = parser.parse_args(argv)
    by_key: dict[tuple[str, int], Compared] = {}
    judge = not args.compare_only
    for run_dir in args.run_dirs:  # a run directory listed later (a re-check of a few kernels) replaces rows
        try:
            rows = judge_run_dir(run_dir.resolve(), args.out.resolve(), args.samples, args.kernelbench_commit,
                                 args.time_budget, judge=judge)
        except KeyboardInterrupt:  # the caller's time limit (timeout --signal=INT): compare what was measured
            print(f"interrupted in {run_dir}: comparing what was measured; run again to resume", flush=True)
            judge = False
            rows = judge_run_dir(run_dir.resolve(), args.out.resolve(), args.samples, args.kernelbench_commit,
                                 judge=False)
        by_key.update(((r.key, r.sample), r) for r in rows)
    rows = list(by_key.values())
    agree = sum(r.agrees for r in rows)
    summary = {"kernels": len(rows), "agree": agree, "agreement": agree / len(rows) if rows else None,
               "rows": [asdict(r) | {"agrees": r.agrees} for r in rows]}
    (args.out / "agreement.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"\n{'problem':40} {'sample':>6} {'upstream':>9} {'board':>9} {'status':14} {'max abs':>9} {'max rel':>9}")
    for r in rows:
        if not r.agrees:
            board = "unjudged" if r.board_says is None else str(r.board_says)
            print(f"{r.key[:40]:40} {r.sample:6} {r.upstream_says!s:>9} {board:>9} {r.status:14} "
                  f"{_num(r.max_abs_error):>9} {_num(r.max_rel_error):>9}  {r.why[:120]}")
    shown = f"{agree}/{len(rows)} = {agree / len(rows):.1%}" if rows else "no kernels compared"
    print(f"agreement of the board's upstream-rule verdict with KernelBench's: {shown}")
    return 0


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2e}"


if __name__ == "__main__":
    raise SystemExit(main())
