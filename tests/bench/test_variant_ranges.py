"""bench/variant_ranges.py names the variants the judge leaves out of a problem, on the CPU at reduced sizes."""

from __future__ import annotations

import subprocess
import sys

from tests.paths import REPO


def test_the_2024_product_reduction_loses_its_overflowing_scales_and_softplus_keeps_them():
    keys = ["level1/50_Product_reduction_over_a_dimension", "level1/29_Softplus"]
    root = REPO / "problems" / "tracks" / "91bfc2c"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "variant_ranges.py"), "--root", str(root), *keys],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines == ["level1/50_Product_reduction_over_a_dimension: scaled-x3, scaled-x100",
                     "1 of 2 problems lose a variant; 0 not probed"]


def test_with_subnormal_the_product_s_float64_outputs_below_float32_s_range_are_named():
    keys = ["level1/50_Product_reduction_over_a_dimension", "level1/29_Softplus"]
    root = REPO / "problems" / "tracks" / "91bfc2c"
    done = subprocess.run([sys.executable, str(REPO / "bench" / "variant_ranges.py"), "--root", str(root),
                           "--subnormal", *keys], capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[1].startswith("level1/50_Product_reduction_over_a_dimension: subnormal upstream 1")
    assert lines[2].startswith("level1/29_Softplus: subnormal scaled-x100 0.")  # exp(-300) at x100: below 1e-38
    assert lines[-1] == "1 of 2 problems lose a variant; 2 have subnormal float64 outputs; 0 not probed"
