#!/usr/bin/env bash
# `mhcsim compare` end to end (issue 8): the simulator's own trace compared with the same
# scenario gives ~0% error, a gzipped copy gives the same rows, and a trace compared with
# itself gives exactly 0%.
# Usage: cli_compare.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0
verbs=$("$M" --help 2>/dev/null)
# check NAME PYTHON_ASSERTS -- ARGS...: `d` = the JSON document of `mhcsim ARGS --json`
check() {
  local name=$1 asserts=$2; shift 3
  if ! "$M" "$@" --json >"$tmp/out.json" 2>"$tmp/err"; then
    echo "FAIL $name: exit code $?"; head -3 "$tmp/err"; fails=$((fails+1)); return
  fi
  if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $asserts" "$tmp/out.json"; then
    passes=$((passes+1)); else echo "FAIL $name"; head -c 1500 "$tmp/out.json"; fails=$((fails+1)); fi
}
# Every row's error below LIMIT percent (rows whose measured value is 0 have none and fail).
all_within() { echo "assert d['rows'] and all(r['error_pct'] is not None and abs(r['error_pct']) < $1 for r in d['rows']), d['rows']"; }

seed="$SRC/fuzz/seeds/trace/kineto_small.json"
check self_compare "$(all_within 1e-12); assert d['max_abs_error_pct'] == 0" -- compare --trace "$seed" --simulated "$seed"
check gzip_same "$(all_within 1e-12)" -- compare --trace "$seed.gz" --simulated "$seed"

S="$SRC/scenarios/mhc_27b_h100.toml"
if grep -qE '^ +simulate ' <<<"$verbs" && "$M" simulate -s "$S" --trace "$tmp/sim.json" >/dev/null 2>"$tmp/err"; then
  gzip -k "$tmp/sim.json"
  # ts/dur are written to 1 ns: well under 0.01% on ms-scale chunks.
  check sim_round_trip "$(all_within 0.01); assert len(d['rows']) >= 8" -- compare --trace "$tmp/sim.json" -s "$S"
  check sim_round_trip_gz "$(all_within 0.01)" -- compare --trace "$tmp/sim.json.gz" -s "$S"
else
  echo "FAIL simulate --trace did not run:"; head -3 "$tmp/err"; fails=$((fails+1))
fi
echo "cli_compare: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
