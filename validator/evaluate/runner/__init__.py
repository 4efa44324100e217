"""The runner: the only process that imports submitted code, `python -m validator.evaluate.runner.serve`, started
sandboxed by the judge (`judge/launch.py`). What it reports is advisory or checked by the judge; its guards
(`integrity.py`) can only count against the kernel. It never imports the judge's package."""
