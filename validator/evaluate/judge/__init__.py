"""The judge: one process per (submission, problem), `python -m validator.evaluate.judge.run`. It owns the secret
seed, makes every input, runs and times the reference, bounds the runner's times by its own clock and judges every
output. It never imports submitted code, nor the runner's package (`tests/evaluate/test_trust_boundary.py`)."""
