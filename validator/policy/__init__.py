"""Stage 3, static policy: an AST pass over every kernel file before any submitted code runs."""
