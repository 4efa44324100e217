"""Results: the per-(submission, hardware) records, their file layout, merging shards, and cached baselines."""
