"""How long a fresh worker process takes to be ready: spawned, or forked from the pre-imported-torch zygote.

Both go through the same sandbox (scrubbed environment, network namespace, limits), so the difference
is the start-up alone. On a GPU machine "ready" means torch imported and CUDA initialised with one
allocation; without a GPU it means torch imported.

    python bench/bench_spawn.py [--runs 5] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.isolation import sandbox  # noqa: E402
from validator.isolation.zygote import Target, Zygote, ZygoteError  # noqa: E402

JOB = """
import sys, time, torch
if torch.cuda.is_available():
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
print("ready", torch.cuda.is_available())
"""


def summary(name: str, times: list[float], once: float | None = None) -> dict:
    return {"mode": name, "runs": len(times), "median_s": statistics.median(times), "min_s": min(times),
            "max_s": max(times), "one_off_start_s": once}


def bench_spawn(script: Path, runs: int, env: dict[str, str]) -> dict:
    times = []
    for _ in range(runs):
        with sandbox.private_dir() as workdir:
            started = time.perf_counter()
            result = sandbox.run([sys.executable, str(script)], workdir=workdir, timeout_s=300,
                                 limits=sandbox.Limits.for_timeout(300, 1 << 28), env=env)
            times.append(time.perf_counter() - started)
            assert result.ok and "ready" in result.stdout, result.stderr[-2000:]
    return summary("spawn (fresh interpreter)", times)


def bench_zygote(script: Path, runs: int, env: dict[str, str]) -> dict:
    target = Target(path=str(script))
    times = []
    with sandbox.private_dir() as home:
        started = time.perf_counter()
        zygote = Zygote(home, target, env)
        once = time.perf_counter() - started
        try:
            for _ in range(runs):
                with sandbox.private_dir() as workdir:
                    started = time.perf_counter()
                    result = zygote.run(target, [], workdir=workdir, env=env,
                                        limits=sandbox.Limits.for_timeout(300, 1 << 28), timeout_s=300)
                    times.append(time.perf_counter() - started)
                    assert result.ok and "ready" in result.stdout, result.stderr[-2000:]
        finally:
            zygote.close()
    return summary("zygote fork (torch preloaded, CUDA not)", times, once)


def bench_bare(runs: int) -> dict:
    times = []
    for _ in range(runs):
        with sandbox.private_dir() as workdir:
            started = time.perf_counter()
            sandbox.run([sys.executable, "-c", "pass"], workdir=workdir, timeout_s=60,
                        limits=sandbox.Limits.for_timeout(60, 1 << 20))
            times.append(time.perf_counter() - started)
    return summary("sandboxed 'python -c pass' (overhead)", times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    env = {"CUDA_VISIBLE_DEVICES": "0"}
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "job.py"
        script.write_text(JOB)
        rows = [bench_bare(args.runs), bench_spawn(script, args.runs, env)]
        try:
            rows.append(bench_zygote(script, args.runs, env))
        except (ZygoteError, AssertionError) as exc:
            print(f"zygote failed: {exc}")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    print(f"{'mode':42} {'runs':>4} {'median s':>9} {'min s':>7} {'max s':>7} {'one-off s':>9}")
    for row in rows:
        once = f"{row['one_off_start_s']:.2f}" if row["one_off_start_s"] is not None else ""
        print(f"{row['mode']:42} {row['runs']:>4} {row['median_s']:>9.3f} {row['min_s']:>7.3f} {row['max_s']:>7.3f} "
              f"{once:>9}")


if __name__ == "__main__":
    main()
