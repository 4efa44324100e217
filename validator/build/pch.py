"""A precompiled torch/extension.h shared by every kernel's build (`--shared-pch`).

Every load_inline extension compiles a host file (`main.cpp`: the bindings) that starts with
`#include <torch/extension.h>`, and re-parsing torch's headers is most of that file's compile time: measured on
this project's 2-core CPU machine, 15.8 s without a precompiled header, 6.0 s with one (bench/build_levers.py).
torch's own `use_pch=True` writes the header into torch's installation, which a sandboxed build cannot, and only
for kernels that ask for it. Here the trusted parent compiles the header once per toolchain into the build cache
(`<cache>/pch/<key>/`, read-only to the builds), in two variants (no -O flag, and -O3: GCC refuses a header
compiled under another optimisation level), and the builds get a `CXX` wrapper that adds `-include` of the
matching variant to each C++ compile. GCC checks a precompiled header against the compile's options and macros
and silently falls back to the text when they differ, so the wrapper can only change build time, never what is
built. `TORCH_EXTENSION_NAME` is left out of the header's compile: it differs per extension, and GCC refuses a
header compiled with a different value (it accepts one compiled without it).
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from validator.build import interrupts
from validator.files import write_text_atomic

HEADER = "kb_torch.h"
VARIANTS = {"o0": [], "o3": ["-O3"]}
WRAPPER = r"""#!/bin/sh
# kb-validate's C++ compiler for extension builds: the real one, with the shared precompiled torch/extension.h
# forced first on each compile (validator/build/pch.py). GCC ignores the header where it does not match.
case " $* " in *" -c "*) ;; *) exec "{real}" "$@";; esac
case " $* " in
  *" -O3 "*) pch="{root}/o3/{header}";;
  *" -O"*) exec "{real}" "$@";;
  *) pch="{root}/o0/{header}";;
esac
[ -f "$pch.gch" ] && exec "{real}" -include "$pch" "$@"
exec "{real}" "$@"
"""


def torch_cflags() -> list[str]:
    """The flags torch's load_inline gives a host file, less TORCH_EXTENSION_NAME (torch/utils/cpp_extension.py)."""
    from torch.utils.cpp_extension import include_paths

    includes = [*include_paths(), sysconfig.get_paths()["include"]]
    return ["-DTORCH_API_INCLUDE_EXTENSION_H", *[f"-isystem{p}" for p in includes], "-fPIC", "-std=c++20"]


def real_compiler() -> str | None:
    return shutil.which("c++")


def key(compiler: str, flags: list[str], torch_version: str) -> str:
    material = "\n".join([compiler, torch_version, sys.version, *flags])
    return hashlib.sha256(material.encode()).hexdigest()[:24]


def prepare(cache: Path, torch_version: str) -> Path | None:
    """The directory holding the wrapper (`c++`) and both header variants, built here once (None when there is
    no C++ compiler or the header does not compile: builds then run as without the switch)."""
    compiler = real_compiler()
    if compiler is None:
        return None
    flags = torch_cflags()
    root = cache / "pch" / key(compiler, flags, torch_version)
    wrapper = root / "c++"
    if wrapper.exists():
        return root
    root.mkdir(parents=True, exist_ok=True)
    with interrupts.extension_lock(root):
        if wrapper.exists():  # built by another run while this one waited
            return root
        for name, extra in VARIANTS.items():
            (root / name).mkdir(exist_ok=True)
            header = root / name / HEADER
            header.write_text("#include <torch/extension.h>\n", encoding="utf-8")
            done = subprocess.run([compiler, *flags, *extra, "-x", "c++-header", str(header), "-o", f"{header}.gch"],
                                  capture_output=True, text=True, check=False)
            if done.returncode != 0:
                return None
        write_text_atomic(wrapper, WRAPPER.format(real=compiler, root=root, header=HEADER))
        wrapper.chmod(0o755)
    return root
