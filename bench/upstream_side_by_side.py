"""Upstream KernelBench's own evaluation beside this board's, on the same kernels, GPUs and machine, in one run.

    python3 bench/upstream_side_by_side.py SUBMISSION.json --upstream .upstream/423217d --gpus 0,1,2,3 --out DIR

Upstream's side: for each kernel, a fresh Python process runs `kernelbench.eval.eval_kernel_against_ref` from the
checkout (`bench/upstream_checkout.sh` exports it; its code is never committed here) as upstream's
`scripts/eval_from_generations.py` calls it: 5 correctness trials, 100 timed trials, the reference timed too. A first
process per kernel fills the compile caches and is not counted; the second is timed whole (interpreter, imports,
loading the cached build, evaluation). Modules upstream imports only to call language models (dotenv, openai,
litellm) are stubbed where missing. The board's side: `python3 -m validator SUBMISSION --gpus ...` once; a problem's
`seconds` is its judge's whole evaluation (runners started, every read call judged, timing, profiler pass), its build
apart. Both sides use one GPU per kernel, as many at once as there are GPUs. Prints a table and the medians, and writes
DIR/side_by_side.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
UPSTREAM_CALL = r"""
import json, os, sys, types
for name, attrs in {"dotenv": {"load_dotenv": lambda *a, **k: None}, "openai": {"OpenAI": object},
                    "litellm": {"completion": None}}.items():
    try:
        __import__(name)
    except ImportError:
        stub = types.ModuleType(name)
        stub.__dict__.update(attrs)
        sys.modules[name] = stub
upstream, reference, kernel, backend, build = sys.argv[1:6]
sys.path.insert(0, os.path.join(upstream, "src"))
from kernelbench.eval import eval_kernel_against_ref
result = eval_kernel_against_ref(open(reference).read(), open(kernel).read(), num_correct_trials=5,
                                 num_perf_trials=100, measure_performance=True, build_dir=build, device=0,
                                 backend=backend)
data = result.model_dump() if hasattr(result, "model_dump") else dict(result.__dict__)
print("RESULT " + json.dumps(data, default=str))
"""


def kernels(submission: Path, problems: Path) -> list[dict]:
    data = json.loads(submission.read_text())
    out = []
    for entry in data["kernels"]:
        found = sorted((problems / f"level{entry['level']}").glob(f"{entry['problem_id']}_*.py"))
        if found:
            kernel = submission.parent / submission.stem / entry["path"]  # kernel paths are under submissions/<slug>/
            out.append({"key": f"level{entry['level']}/{found[0].stem}", "problem": str(found[0]),
                        "kernel": str(kernel), "backend": entry.get("backend", "cuda")})
    return out


def upstream_one(item: dict, gpu: str, upstream: Path, work: Path, timeout_s: float) -> dict:
    build = work / "build" / item["key"].replace("/", "_")
    build.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "CUDA_VISIBLE_DEVICES": gpu, "PYTHONUNBUFFERED": "1"}
    command = [sys.executable, "-c", UPSTREAM_CALL, str(upstream), item["problem"], item["kernel"],
               item["backend"], str(build)]
    runs = []
    for _ in range(2):  # the first fills the caches; the second is timed
        started = time.perf_counter()
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout_s, check=False)
            output = done.stdout + done.stderr
        except subprocess.TimeoutExpired:
            output = "timeout"
        runs.append((time.perf_counter() - started, output))
    seconds, output = runs[-1]
    line = next((ln for ln in output.splitlines() if ln.startswith("RESULT ")), None)
    result = json.loads(line[7:]) if line else {"error": output[-600:]}
    (work / f"{item['key'].replace('/', '_')}.log").write_text(output)
    return {"upstream_s": round(seconds, 2), "upstream_first_s": round(runs[0][0], 2), "upstream": result}


def ours(submission: Path, gpus: str, out: Path, timeout_s: float) -> tuple[dict[str, dict], float]:
    started = time.perf_counter()
    with (out / "ours.log").open("w") as log:
        subprocess.run([sys.executable, "-m", "validator", str(submission), "--gpus", gpus, "--results-dir",
                        str(out / "results"), "--force"], stdout=log, stderr=subprocess.STDOUT, timeout=timeout_s,
                       check=False, cwd=REPO)
    wall = time.perf_counter() - started
    found = {}
    for path in (out / "results").glob("*/*.json"):
        for problem in json.loads(path.read_text())["problems"]:
            found[problem["key"]] = problem
    return found, wall


def speedup(result: dict) -> float | None:
    runtime, reference = result.get("runtime"), result.get("ref_runtime")
    try:
        return float(reference) / float(runtime) if runtime and reference and float(runtime) > 0 else None
    except (TypeError, ValueError):
        return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("submission", type=Path)
    parser.add_argument("--upstream", type=Path, required=True, help="an exported upstream checkout")
    parser.add_argument("--gpus", default="0")
    parser.add_argument("--start", type=int, default=0, help="skip this many kernels (a run over several calls)")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--kernel-timeout-s", type=float, default=240.0,
                        help="each upstream process's bound (at 423217d's sizes upstream took 75-124 s a kernel)")
    parser.add_argument("--out", type=Path, default=Path("/tmp/kb-side-by-side"))
    parser.add_argument("--side", choices=("both", "upstream", "ours"), default="both")
    parser.add_argument("--budget-s", type=float, default=520.0, help="the board's side's bound on its wall seconds")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    items = kernels(args.submission.resolve(), REPO / "problems")
    items = items[args.start:args.start + args.limit] if args.limit else items[args.start:]
    gpus = args.gpus.split(",")
    rows = {item["key"]: {"key": item["key"], "backend": item["backend"]} for item in items}
    walls = {}
    if args.side in ("both", "upstream"):
        started = time.perf_counter()
        with ThreadPoolExecutor(len(gpus)) as pool:
            slots = [gpus[i % len(gpus)] for i in range(len(items))]
            done = pool.map(lambda pair: upstream_one(pair[0], pair[1], args.upstream.resolve(), args.out,
                                                      args.kernel_timeout_s), zip(items, slots, strict=True))
            for item, value in zip(items, done, strict=True):
                rows[item["key"]].update(value)
        walls["upstream"] = round(time.perf_counter() - started, 1)
    if args.side in ("both", "ours"):
        found, wall = ours(args.submission.resolve(), args.gpus, args.out, args.budget_s)
        walls["ours"] = round(wall, 1)
        for key, problem in found.items():
            if key in rows:
                rows[key].update({"ours_s": problem.get("seconds"), "status": problem.get("status"),
                                  "speedup": problem.get("speedup"),
                                  "headline": (problem.get("upstream") or {}).get("correct")})
    print(f"{'problem':42} {'upstream s':>10} {'ours s':>8} {'ratio':>6} {'upstream':>9} {'ours':>13} "
          f"{'x up':>6} {'x ours':>6}")
    ratios = []
    for row in rows.values():
        up = row.get("upstream") or {}
        ratio = row["ours_s"] / row["upstream_s"] if row.get("ours_s") and row.get("upstream_s") else None
        if ratio:
            ratios.append(ratio)
        verdict = "correct" if up.get("correctness") else ("built" if up.get("compiled") else "failed")
        print(f"{row['key'][:42]:42} {row.get('upstream_s', 0):10.1f} {row.get('ours_s') or 0:8.1f} "
              f"{ratio or 0:6.2f} {verdict:>9} {row.get('status')!s:>13} {speedup(up) or 0:6.2f} "
              f"{row.get('speedup') or 0:6.2f}")
    summary = {"walls_s": walls, "median_ratio": statistics.median(ratios) if ratios else None,
               "median_upstream_s": statistics.median([r["upstream_s"] for r in rows.values() if "upstream_s" in r])
               if any("upstream_s" in r for r in rows.values()) else None,
               "median_ours_s": statistics.median([r["ours_s"] for r in rows.values() if r.get("ours_s")])
               if any(r.get("ours_s") for r in rows.values()) else None, "kernels": len(rows), "gpus": len(gpus)}
    print(json.dumps(summary))
    (args.out / "side_by_side.json").write_text(json.dumps({"summary": summary, "rows": list(rows.values())},
                                                           indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
