"""`python -m validator` is the same program as `kb-validate`."""

from validator.cli import run

run()
