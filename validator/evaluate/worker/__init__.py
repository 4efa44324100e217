"""The evaluation worker: what runs in the sandboxed process beside the submitted kernel."""
