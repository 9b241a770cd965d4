#!/usr/bin/env bash
# `mhcsim report` and `mhcsim sweep` through the real binary: outputs appear whole, existing
# outputs are refused (exit 2) without --force and replaced with it, infeasible points stay.
#   report_sweep_smoke.sh MHCSIM SOURCE_DIR
set -euo pipefail
mhcsim=$1 src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$mhcsim" report -s "$src/scenarios/deepseek_v3_serve.toml" -o "$work/serve" >/dev/null
for f in report.html report.md figures/memory.svg figures/kv_fit.svg; do
  [[ -s "$work/serve/$f" ]] || fail "report lacks $f"
done
grep -q 'figures/kv_fit.svg' "$work/serve/report.md" || fail "markdown does not link its figures"
grep -qE '\| tokens/s per node \(8 GPUs\) \| [0-9]+ \| tokens/s \|' "$work/serve/report.md" \
  || fail "serving report lacks tokens/s per node"
grep -qE '\| GPUs for the load \(decode alone at a full batch, no SLO: a floor\) \| [0-9]+ \| GPUs \|' "$work/serve/report.md" || fail "serving report lacks GPUs for the load"
[[ -s "$work/serve/figures/serve_throughput_latency.svg" ]] || fail "serving report lacks the throughput-latency plot"
# Serving splits an iteration by itself: the report listed training's schedule and 1 micro-batch
# per step where step prices two overlapped micro-batches.
grep -qE '\| micro-batches per iteration \(the scenario.s batch\) \| 2 \| micro-batches \|' "$work/serve/report.md" \
  || fail "serving report lacks its micro-batches per iteration"
! grep -q 'pipeline schedule' "$work/serve/report.md" || fail "serving report lists a training schedule"
rc=0; "$mhcsim" report -s "$src/scenarios/deepseek_v3_serve.toml" -o "$work/serve" 2>"$work/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- '--force' "$work/err" || fail "existing report dir not refused (rc $rc)"
"$mhcsim" report -s "$src/scenarios/deepseek_v3_serve.toml" -o "$work/serve" --force >/dev/null
[[ $(ls -A "$work" | wc -l) == 2 ]] || fail "temporary directories left behind: $(ls -A "$work")"

# Issue 17 item 8: the headline comes first; every figure has its data beside it as CSV, the
# numbers `kv` prints; the training cost has the energy at TDP x PUE.
"$mhcsim" kv -s "$src/scenarios/deepseek_v3_serve.toml" --context 4096 --json >"$work/kv.json"
python3 - "$work/serve" "$work/kv.json" <<'PY' || fail "serving report: headline or figure data"
import csv, json, os, sys
d, kv = sys.argv[1], json.load(open(sys.argv[2]))["results"]["rows"]
md = open(os.path.join(d, "report.md")).read()
assert md.index("## Headline") < md.index("## Model and hardware"), "headline is not first"
assert "cost per 1M output tokens" in md
figs = sorted(f[:-4] for f in os.listdir(os.path.join(d, "figures")) if f.endswith(".svg"))
assert figs and all(os.path.exists(os.path.join(d, "figures", f + ".csv")) for f in figs), figs
assert all(f"figures/{f}.csv" in md for f in figs)
rows = list(csv.DictReader(open(os.path.join(d, "figures", "kv_fit.csv"))))
own = [r for r in rows if r["series"].startswith("mla (scenario)") and float(r["context length (tokens)"]) == 4096]
assert own and float(own[0]["sequences that fit in HBM (sequences)"]) == kv[0]["sequences_per_replica"], (own, kv[0])
PY
# A replica of TP 8 holds a share of each sequence on all 8 GPUs: a node holds one replica's
# sequences, not 8 x them (the summary multiplied the per-replica count by the GPUs per node).
"$mhcsim" report -s "$src/scenarios/llama3_70b_gqa.toml" --set 'workload.mode="serve"' --set parallel.pp=1 \
  --set 'parallel.schedule="1f1b"' --set parallel.virtual_stages=1 --set hardware.gpus=8 --set parallel.zero_stage=0 \
  -o "$work/tp8" >/dev/null || fail "TP 8 serving report"
python3 - "$work/tp8/report.md" <<'PY' || fail "TP 8 serving report: sequences per replica and node"
import re, sys
md = open(sys.argv[1]).read()
replica = re.search(r"\| sequences per replica \(8 GPUs\) \| ([0-9]+) \|", md)
node = re.search(r"\| sequences per node \| ([0-9]+) \|", md)
assert replica and node and replica.group(1) == node.group(1), (replica, node)
PY
"$mhcsim" report -s "$src/scenarios/llama3_70b_gqa.toml" --set 'workload.mode="serve"' --set parallel.pp=1 \
  --set 'parallel.schedule="1f1b"' --set parallel.virtual_stages=1 --set hardware.gpus=8 --set parallel.zero_stage=0 \
  --set parallel.tp=4 -o "$work/tp4" >/dev/null || fail "TP 4 serving report"
python3 - "$work/tp4/report.md" <<'PY' || fail "TP 4 serving report: a node holds two replicas"
import re, sys
md = open(sys.argv[1]).read()
replica = re.search(r"\| sequences per replica \(4 GPUs\) \| ([0-9]+) \|", md)
node = re.search(r"\| sequences per node \| ([0-9]+) \|", md)
assert replica and node and 2 * int(replica.group(1)) == int(node.group(1)), (replica, node)
PY
"$mhcsim" report -s "$src/scenarios/deepseek_v3_train.toml" -o "$work/train" >/dev/null
"$mhcsim" step -s "$src/scenarios/deepseek_v3_train.toml" --json >"$work/step.json"
python3 - "$work/train/report.md" "$work/step.json" <<'PY' || fail "training report: headline or energy"
import json, re, sys
md, step = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))["results"]
head = md[md.index("## Headline"):md.index("## Model and hardware")]
assert float(re.search(r"\| step time \| ([0-9.]+) \| s \|", head).group(1)) == round(step["step_s"], 3)
energy = float(re.search(r"\| GPU energy at TDP x PUE 1.00 \| ([0-9.]+) \| MWh \|", head).group(1))
assert abs(energy - step["gpu_hours_for_budget"] * 700 / 1e6) <= 0.5, energy  # H800: 700 W TDP
PY
"$mhcsim" sweep --sweep parallel.pp=8,16 --sweep parallel.ep=16,32,512 -j 2 -o "$work/sw" >/dev/null
[[ $(wc -l < "$work/sw.csv") == 7 ]] || fail "sweep CSV should hold a header and 6 points"
grep -q '256 routed experts' "$work/sw.csv" || fail "infeasible EP point dropped or without reason"
rc=0; "$mhcsim" sweep --sweep parallel.pp=8 -o "$work/sw" 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "existing sweep output not refused (rc $rc)"
"$mhcsim" sweep --sweep parallel.pp=8 -o "$work/sw" --force >/dev/null
[[ $(wc -l < "$work/sw.csv") == 2 ]] || fail "--force did not replace the sweep CSV"
rc=0; "$mhcsim" sweep --sweep parallel.pp=8,16 --top 1 --by latency 2>/dev/null || rc=$?
[[ $rc == 2 ]] || fail "unknown --by metric not an input error"
# Serving points carry a step time and throughput, and an over-full batch is kept with its reason.
"$mhcsim" sweep -s "$src/scenarios/deepseek_v3_serve.toml" --sweep workload.batch_seqs=64,512 -o "$work/serve_sweep" >/dev/null
python3 - "$work/serve_sweep.json" <<'PY' || fail "serving sweep points lack step time / throughput / reason"
import json, math, sys
doc = json.load(open(sys.argv[1]))
pts = doc["points"] if isinstance(doc, dict) else doc
vals = [p.get("values", p) for p in pts]
assert len(pts) == 2, pts
assert all(math.isfinite(v["step_time_s"]) and v["step_time_s"] > 0 for v in vals), vals
assert vals[0]["tokens_per_s"] > 0
assert "KV cache" in json.dumps(pts[1])
PY
echo "report/sweep smoke: ok"
