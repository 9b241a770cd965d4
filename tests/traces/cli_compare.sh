#!/usr/bin/env bash
# `mhcsim compare` end to end (issue 8): the simulator's own trace compared with the same
# scenario gives ~0% error, a gzipped copy gives the same rows, and a trace compared with
# itself gives exactly 0%.
# Usage: cli_compare.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
verb_exists compare || fail "the compare verb is not built"
# Every row's error below LIMIT percent (rows whose measured value is 0 have none and fail).
all_within() { echo "assert d['rows'] and all(r['error_pct'] is not None and abs(r['error_pct']) < $1 for r in d['rows']), d['rows']"; }

seed="$SRC/fuzz/seeds/trace/kineto_small.json"
check_json self_compare "$(all_within 1e-12); assert d['max_abs_error_pct'] == 0" -- compare --trace "$seed" --simulated "$seed"
check_json gzip_same "$(all_within 1e-12)" -- compare --trace "$seed.gz" --simulated "$seed"

S="$SRC/scenarios/mhc_27b_h100.toml"
if verb_exists simulate && "$M" simulate -s "$S" --trace "$tmp/sim.json" >/dev/null 2>"$tmp/err"; then
  gzip -k "$tmp/sim.json"
  # ts/dur are written to 1 ns: well under 0.01% on ms-scale chunks.
  check_json sim_round_trip "$(all_within 0.01); assert len(d['rows']) >= 8" -- compare --trace "$tmp/sim.json" -s "$S"
  check_json sim_round_trip_gz "$(all_within 0.01)" -- compare --trace "$tmp/sim.json.gz" -s "$S"
else
  fail "simulate --trace did not run:"; head -3 "$tmp/err"
fi
summary cli_compare
