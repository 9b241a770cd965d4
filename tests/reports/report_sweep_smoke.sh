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
echo "report/sweep smoke: ok"
