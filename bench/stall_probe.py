"""Runs the GPU timing-bound test (upstream ReLU sizes) in this process, optionally with the judge's pause of
the runner (SIGSTOP around the reference) turned off, to tell whether the pause causes the stall seen on the
H200 (judge in a pipe read of a `fetch` payload, runner in its write). A diagnosis tool, not part of the suite.

    python3 bench/stall_probe.py [--no-pause]
"""

from __future__ import annotations

import argparse
import sys

import pytest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-pause", action="store_true", help="never SIGSTOP the runner")
    args = parser.parse_args()
    if args.no_pause:
        from validator.evaluate.judge import remote

        remote.Runner.pause = lambda self: None  # type: ignore[method-assign]
    return int(pytest.main(["-q", "-s", "-p", "no:cacheprovider", "-m", "gpu",
                            "tests/evaluate/judge/test_judge_runner.py", "-k", "bound"]))


if __name__ == "__main__":
    sys.exit(main())
