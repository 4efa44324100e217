#!/usr/bin/env bash
# A few problems of the torch.compile row through kb-validate, as the row runs them (warm-up, judge, runner):
# what each costs per problem, by phase, to estimate a shard's device time.
#   OUT=/dir bash bench/row_sample.sh LEVEL/ID...     e.g. 1/19 1/21 1/39 1/1
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/kb-row-sample}
mkdir -p "$OUT"
[ -f bench/device_env.sh ] && source bench/device_env.sh
work=$(mktemp -d)
mkdir -p "$work/submissions/row-sample"
cp submissions/torch-compile-inductor/compiled_reference.py "$work/submissions/row-sample/"
python3 - "$work/submissions/row-sample.json" "$@" <<'PY'
import json, sys
doc = json.load(open("submissions/torch-compile-inductor.json"))
wanted = {tuple(int(n) for n in item.split("/")) for item in sys.argv[2:]}
doc.update(slug="row-sample", name="Row sample", kernels=[k for k in doc["kernels"]
                                                          if (k["level"], k["problem_id"]) in wanted])
doc.pop("$schema", None)
json.dump(doc, open(sys.argv[1], "w"), indent=1)
PY
t0=$(date +%s); mkdir -p "$OUT/results"
timeout --signal=INT 400 python3 -m validator "$work/submissions/row-sample.json" --problems-dir problems \
  --results-dir "$OUT/results" > "$OUT/row-sample.log" 2>&1
echo "row sample: rc=$? wall $(( $(date +%s) - t0 )) s" | tee "$OUT/summary.txt"
python3 - "$OUT/results" <<'PY' | tee -a "$OUT/summary.txt"
import json, pathlib, sys
for path in pathlib.Path(sys.argv[1]).rglob("row-sample.json"):
    data = json.loads(path.read_text())
    print("warm-up", data["environment"]["extra"].get("compile_warmup"))
    for p in data["problems"]:
        print(p["key"], p["status"], p.get("speedup"), round(p.get("seconds", 0), 1),
              {k: round(v, 1) for k, v in (p.get("phases") or {}).items() if v >= 0.5})
PY
tar -cf "$OUT/results.tar" -C "$OUT" results; rm -rf "$work" "$OUT/results"
