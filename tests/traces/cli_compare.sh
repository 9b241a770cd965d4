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
all_within() { echo "assert d['rows'] and all(r['error'] is not None and abs(r['error']) < $1 / 100 for r in d['rows']), d['rows']"; }

seed="$SRC/fuzz/seeds/trace/kineto_small.json"
check_json self_compare "$(all_within 1e-12); assert d['max_abs_error'] == 0 and d['compared_rows'] >= 8" -- compare --trace "$seed" --simulated "$seed"
check_json gzip_same "$(all_within 1e-12)" -- compare --trace "$seed.gz" --simulated "$seed"

# Issue 15: --list-kernels (classes by stable id), a partial step (--steps 1/120, --window),
# stable snake_case row ids, the window needing the simulated schedule.
check_json list_kernels "ks = d['kernels']; assert {k['op_class'] for k in ks} >= {'attention', 'dispatch', 'mlp'}, ks; \
assert all(set(k) >= {'name', 'count', 'total_s', 'op_class', 'direction'} for k in ks)" -- \
  compare --trace "$seed" --list-kernels --json
check_json row_ids "import re; assert all(re.fullmatch('[a-z0-9_]+', r['id']) for r in d['rows']); \
assert d['rows'][0]['id'] == 'step_time'" -- compare --trace "$seed" --simulated "$seed"
check_json window_fraction "assert d['rows'][0]['id'] == 'window_time' and abs(d['window_fraction'] - 1/120) < 1e-12" -- \
  compare --trace "$seed" --steps 1/120
check_json window_chunk_pair "assert d['rows'][0]['id'] == 'window_time' and d['window_fraction'] < 1" -- \
  compare --trace "$seed" --window chunk-pair
check window_needs_schedule 2 "--window: 'micro-batch' needs the simulated schedule" -- \
  "$M" compare --trace "$seed" --simulated "$seed" --window micro-batch
check bad_steps 2 "--steps" -- "$M" compare --trace "$seed" --steps 1/0
check empty_window 2 "--window: .. is not a window" -- "$M" compare --trace "$seed" --window ""
# Kernels that last 0 s: nothing to compare, not a 0 % match.
echo '{"traceEvents":[{"ph":"X","cat":"kernel","name":"gemm","ts":0,"dur":0,"pid":0,"tid":7}]}' >"$tmp/zero.json"
check zero_time 2 "kernels last 0 s in all" -- "$M" compare --trace "$tmp/zero.json"

S="$SRC/scenarios/mhc_27b_h100.toml"
if verb_exists simulate && "$M" simulate -s "$S" --trace "$tmp/sim.json" >/dev/null 2>"$tmp/err"; then
  gzip -k "$tmp/sim.json"
  # ts/dur are written to 1 ns: well under 0.01% on ms-scale chunks.
  check_json sim_round_trip "$(all_within 0.01); assert len(d['rows']) >= 8" -- compare --trace "$tmp/sim.json" -s "$S"
  check_json sim_round_trip_gz "$(all_within 0.01)" -- compare --trace "$tmp/sim.json.gz" -s "$S"
  # One rank cut out of it compares with the same rank (--rank): that rank's own span on both sides.
  python3 -c "import json, sys; d = json.load(open(sys.argv[1])); \
json.dump({'traceEvents': [e for e in d['traceEvents'] if e.get('pid') == 1]}, open(sys.argv[2], 'w'))" \
    "$tmp/sim.json" "$tmp/rank1.json"
  check_json sim_one_rank "$(all_within 0.01)" -- compare --trace "$tmp/rank1.json" -s "$S" --rank 1
else
  fail "simulate --trace did not run:"; head -3 "$tmp/err"
fi
summary cli_compare
