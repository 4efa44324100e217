"""What the shared precompiled header saves per extension build (CPU only: the host file is the C++ part).
  OUT=/some/dir python bench/build_levers.py [--repeat 2]
Builds the same kind of load_inline extension (a host file with torch/extension.h and its bindings) in a fresh
directory each time, with the compiler torch picks and with the `--shared-pch` wrapper (validator/build/pch.py),
and prints the median seconds of each and the one-off cost of compiling the header. Writes $OUT/build_levers.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from validator.build import pch  # noqa: E402

BUILD = """
import sys
from torch.utils.cpp_extension import load_inline
load_inline(name=sys.argv[1], cpp_sources="torch::Tensor twice(torch::Tensor x) { return x * 2; }",
            functions=["twice"], build_directory=sys.argv[2], extra_cflags=["-O3"])
"""


def build(name: str, tmp: Path, cxx: str | None) -> float:
    out = tmp / name
    out.mkdir()
    env = {**os.environ, "TORCH_EXTENSIONS_DIR": str(tmp / "ext")} | ({"CXX": cxx} if cxx else {})
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", BUILD, name, str(out)], env=env, check=True, capture_output=True)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    out = Path(os.environ.get("OUT", "/tmp/kb-build-levers"))
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="kb-levers-") as tmp:
        root = Path(tmp)
        started = time.perf_counter()
        pch_dir = pch.prepare(root / "cache", "bench")
        header_s = time.perf_counter() - started
        if pch_dir is None:
            sys.exit("no C++ compiler, or torch/extension.h does not compile here")
        plain = [build(f"plain{i}", root, None) for i in range(args.repeat)]
        shared = [build(f"shared{i}", root, str(pch_dir / "c++")) for i in range(args.repeat)]
    report = {"cores": os.cpu_count(), "header_once_s": header_s, "plain_s": plain, "shared_pch_s": shared}
    (out / "build_levers.json").write_text(json.dumps(report, indent=1))
    print(f"cores {os.cpu_count()}; header compiled once in {header_s:.1f} s")
    print(f"{'extension build':28} {'median s':>9}")
    print(f"{'plain':28} {statistics.median(plain):9.1f}")
    print(f"{'shared precompiled header':28} {statistics.median(shared):9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
