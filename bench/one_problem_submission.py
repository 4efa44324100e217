"""A pull request of a few problems made from a committed submission: `python3 bench/one_problem_submission.py DIR
KERNEL [KERNEL ...] [--from SUBMISSION]` writes DIR/submissions/one-problem.json with those kernels (files of the
submission's folder; by default submissions/kernelbench-team-examples) and prints the JSON's path. Used by
bench/one_problem.sh and bench/one_problem_ab.sh, and to run a submission's largest problems alone. `--track 91bfc2c`
points each kernel at that track's file of its problem (a shape-generic kernel then runs at that track's sizes: the
team's Triton kernels at the 2024 board's small sizes, where the judge's fixed costs per round show)."""

import argparse
import json
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("dir", type=Path, help="where submissions/one-problem.json and its kernels go")
parser.add_argument("kernels", nargs="+", help="files of the submission's folder, e.g. level1_19_relu_cuda.py")
parser.add_argument("--from", dest="source", type=Path, default=REPO / "submissions/kernelbench-team-examples.json")
parser.add_argument("--track", help="a hash list of problems/tracks/ (91bfc2c, 423217d): its version of each problem")
args = parser.parse_args()
sys.path.insert(0, str(REPO))
from validator.catalogue.problems import known_versions, load_catalogue  # noqa: E402

folder = args.source.with_suffix("")
(args.dir / "submissions" / "one-problem").mkdir(parents=True, exist_ok=True)
for kernel in args.kernels:
    if not (folder / kernel).is_file():
        parser.error(f"{kernel}: not a file of {folder}")
    shutil.copy(folder / kernel, args.dir / "submissions" / "one-problem" / kernel)
doc = json.loads(args.source.read_text())
doc.update(slug="one-problem", name="One problem", kernels=[k for k in doc["kernels"] if k["path"] in args.kernels])
doc.pop("$schema", None)
if args.track:
    catalogue, listed = load_catalogue(REPO / "problems"), known_versions(REPO / "problems").get(args.track, {})
    for k in doc["kernels"]:  # the track's own hash list: a file it shares with the headline track counts too
        version = [p for p in catalogue.versions_of(k["level"], k["problem_id"]) if p.sha256 in listed.values()]
        if not version:
            parser.error(f"{k['path']}: the track {args.track} has no version of level{k['level']}/{k['problem_id']}")
        k["problem_sha256"] = version[0].sha256
path = args.dir / "submissions" / "one-problem.json"
path.write_text(json.dumps(doc, indent=1))
print(path)
