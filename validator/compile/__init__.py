"""Stage 4, build: every kernel compiled in parallel on the CPU, into a cache keyed by content and toolchain."""
