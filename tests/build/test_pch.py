"""The shared precompiled header: the CXX wrapper forces the header variant matching a compile's optimisation
level into C++ compiles only, and (slow, a real compiler) an extension built through it imports and computes the
same as one built without."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from validator.build import pch


def wrapper(tmp: Path, variants: tuple[str, ...] = ("o0", "o3")) -> Path:
    real = tmp / "real-c++"
    real.write_text('#!/bin/sh\necho "$@"\n')
    real.chmod(0o755)
    for name in variants:
        (tmp / name).mkdir()
        (tmp / name / f"{pch.HEADER}.gch").write_bytes(b"")
    script = tmp / "c++"
    script.write_text(pch.WRAPPER.format(real=real, root=tmp, header=pch.HEADER))
    script.chmod(0o755)
    return script


def run(script: Path, *args: str) -> str:
    return subprocess.run([str(script), *args], capture_output=True, text=True, check=True).stdout.strip()


def test_each_compile_gets_the_header_of_its_optimisation_level_and_nothing_else_is_touched(tmp_path: Path):
    script = wrapper(tmp_path)
    assert run(script, "-DX", "-c", "main.cpp", "-o", "main.o") == f"-include {tmp_path}/o0/{pch.HEADER} -DX -c " \
        "main.cpp -o main.o"
    assert run(script, "-O3", "-c", "main.cpp").startswith(f"-include {tmp_path}/o3/{pch.HEADER} ")
    assert run(script, "-O2", "-c", "main.cpp") == "-O2 -c main.cpp"  # no header built for -O2
    assert run(script, "main.o", "-shared", "-o", "x.so") == "main.o -shared -o x.so"  # the link
    assert run(script, "-v") == "-v"  # torch's compiler check


def test_without_the_header_file_the_compile_runs_as_it_would_without_the_switch(tmp_path: Path):
    script = wrapper(tmp_path, variants=())
    assert run(script, "-c", "main.cpp") == "-c main.cpp"


BUILD = """
import sys, torch
from torch.utils.cpp_extension import load_inline
m = load_inline(name=sys.argv[1], cpp_sources="torch::Tensor twice(torch::Tensor x) { return x * 2; }",
                functions=["twice"], build_directory=sys.argv[2], extra_cflags=sys.argv[3:], verbose=True)
assert torch.equal(m.twice(torch.arange(4.0)), torch.arange(4.0) * 2)
"""


@pytest.mark.slow
def test_an_extension_built_through_the_shared_header_uses_it_and_works(tmp_path: Path):
    root = pch.prepare(tmp_path / "cache", "test")
    assert root is not None and (root / "o0" / f"{pch.HEADER}.gch").stat().st_size > 1 << 20
    assert pch.prepare(tmp_path / "cache", "test") == root  # built once
    for name, flags in (("kb_pch_o0", []), ("kb_pch_o3", ["-O3"])):
        out = tmp_path / name
        out.mkdir()
        env = {**os.environ, "CXX": str(root / "c++"), "TORCH_EXTENSIONS_DIR": str(tmp_path / "ext")}
        done = subprocess.run([sys.executable, "-c", BUILD, name, str(out), "-H", *flags], env=env, timeout=900,
                              capture_output=True, text=True, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        variant = "o3" if flags else "o0"
        assert f"! {root}/{variant}/{pch.HEADER}.gch" in done.stdout + done.stderr  # gcc -H: the header was used
