"""Stages 1–2, the submission: reading the JSON document, its schema, semantic checks and the run importer."""
