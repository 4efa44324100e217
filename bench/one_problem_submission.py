"""A one-problem pull request made from one of the examples: `python3 bench/one_problem_submission.py DIR KERNEL`
writes DIR/submissions/one-problem.json and its kernel (KERNEL: a file of submissions/kernelbench-team-examples)
and prints the JSON's path. Used by bench/one_problem.sh and bench/one_problem_ab.sh."""

import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "submissions" / "kernelbench-team-examples"

root, kernel = Path(sys.argv[1]), sys.argv[2]
(root / "submissions" / "one-problem").mkdir(parents=True, exist_ok=True)
shutil.copy(EXAMPLES / kernel, root / "submissions" / "one-problem" / kernel)
doc = json.loads(EXAMPLES.with_suffix(".json").read_text())
doc.update(slug="one-problem", name="One problem", kernels=[k for k in doc["kernels"] if k["path"] == kernel])
doc.pop("$schema", None)
path = root / "submissions" / "one-problem.json"
path.write_text(json.dumps(doc, indent=1))
print(path)
