"""Stage 5, evaluate: one sandboxed process per problem on the GPU.

The trust boundary is in the folders: `judge/` is the judge process (secret seed, inputs, reference, clock,
verdicts) and never imports submitted code; `runner/` is the sandboxed process that imports and runs it. The
modules here beside the engine's (`channel.py`, `correctness.py`, `digest.py`,
`input_variants.py`, `anticheat.py`) are the ones both sides import; `tests/evaluate/test_trust_boundary.py`
checks that neither side imports the other.
"""
