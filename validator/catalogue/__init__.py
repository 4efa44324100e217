"""Stage 0, the catalogue: KernelBench's problem files, their checks, manifest and speed-of-light bounds."""
