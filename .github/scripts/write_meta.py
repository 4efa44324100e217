"""Write meta.json for a workflow's report artifact: which workflow, PR and commit it is about.

Usage: write_meta.py OUT WORKFLOW PR SHA VALIDATED(true|false). Standard library only, so it runs before
anything is installed (a run whose install fails still says which PR it was about).
"""

import json
import re
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    if len(argv) != 5:
        print("usage: write_meta.py OUT WORKFLOW PR SHA VALIDATED", file=sys.stderr)
        return 2
    out, workflow, pr, sha, validated = argv
    if not pr.isdigit() or not re.fullmatch(r"[0-9a-f]{40}", sha) or validated not in ("true", "false"):
        print(f"write_meta.py: bad PR {pr!r}, SHA {sha!r} or VALIDATED {validated!r}", file=sys.stderr)
        return 2
    meta = {"workflow": workflow, "pr": int(pr), "sha": sha, "validated": validated == "true"}
    Path(out).write_text(json.dumps(meta) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
