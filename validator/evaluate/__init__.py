"""Stage 5, evaluate: one sandboxed process per problem on the GPU; the worker side is `worker/`."""
