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
grep -qE '\| GPUs for the load \| [0-9]+ \| GPUs \|' "$work/serve/report.md" || fail "serving report lacks GPUs for the load"
[[ -s "$work/serve/figures/serve_throughput_latency.svg" ]] || fail "serving report lacks the throughput-latency plot"
rc=0; "$mhcsim" report -s "$src/scenarios/deepseek_v3_serve.toml" -o "$work/serve" 2>"$work/err" || rc=$?
[[ $rc == 2 ]] && grep -q -- '--force' "$work/err" || fail "existing report dir not refused (rc $rc)"
"$mhcsim" report -s "$src/scenarios/deepseek_v3_serve.toml" -o "$work/serve" --force >/dev/null
[[ $(ls -A "$work" | wc -l) == 2 ]] || fail "temporary directories left behind: $(ls -A "$work")"

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
assert vals[0]["tokens_per_second"] > 0
assert "KV cache" in json.dumps(pts[1])
PY
echo "report/sweep smoke: ok"
