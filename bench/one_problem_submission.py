"""A one-problem pull request made from one of the examples: `python3 bench/one_problem_submission.py DIR KERNEL`
writes DIR/submissions/one-problem.json and its kernel (KERNEL: a file of submissions/kernelbench-team-examples)
and prints the JSON's path. Used by bench/one_problem.sh and bench/one_problem_ab.sh."""

import argparse
import json
import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "submissions" / "kernelbench-team-examples"

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("dir", type=Path, help="where submissions/one-problem.json and its kernel go")
parser.add_argument("kernel", help="a file of submissions/kernelbench-team-examples, e.g. level1_19_relu_cuda.py")
args = parser.parse_args()
root, kernel = args.dir, args.kernel
if not (EXAMPLES / kernel).is_file():
    parser.error(f"{kernel}: not a file of {EXAMPLES}")
(root / "submissions" / "one-problem").mkdir(parents=True, exist_ok=True)
shutil.copy(EXAMPLES / kernel, root / "submissions" / "one-problem" / kernel)
doc = json.loads(EXAMPLES.with_suffix(".json").read_text())
doc.update(slug="one-problem", name="One problem", kernels=[k for k in doc["kernels"] if k["path"] == kernel])
doc.pop("$schema", None)
path = root / "submissions" / "one-problem.json"
path.write_text(json.dumps(doc, indent=1))
print(path)
