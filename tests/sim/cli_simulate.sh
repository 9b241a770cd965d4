#!/usr/bin/env bash
# `mhcsim simulate` through the real binary on the shipped DeepSeek-V3 scenario: the table,
# the JSON, a Chrome trace file, and DualPipe's shape errors (exit 2, one line naming the key).
# Usage: cli_simulate.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
scn="$SRC/scenarios/deepseek_v3_train.toml"
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
fails=0
fail() { echo "FAIL $*"; fails=$((fails+1)); }

"$M" simulate -s "$scn" > "$out/table.txt" || fail "table: exit $?"
grep -q "simulated step" "$out/table.txt" || fail "table: no step line"
grep -q "bubble (ms)" "$out/table.txt" || fail "table: no per-rank bubble column"

"$M" simulate -s "$scn" --json --trace "$out/trace.json" > "$out/doc.json" || fail "json: exit $?"
for key in step_s max_bubble_s mean_bubble_fraction ranks peak_activation_bytes; do
  grep -q "\"$key\"" "$out/doc.json" || fail "json: no $key"
done
for key in versus_step within_bounds trace_slices trace_flows; do
  grep -q "\"$key\"" "$out/doc.json" || fail "json: no $key"
done
[ -s "$out/trace.json" ] || fail "trace: not written"
grep -q '"traceEvents"' "$out/trace.json" || fail "trace: no traceEvents"
grep -q '"thread_name"' "$out/trace.json" || fail "trace: no thread_name metadata"

# The comparison with `step`, and the count printed for a gzip trace equals the slices in it.
"$M" simulate -s "$scn" --trace "$out/trace.json.gz" > "$out/gz.txt" || fail "gz: exit $?"
grep -q "^# simulated vs analytic: step" "$out/gz.txt" || fail "table: no comparison with step"
[ "$(head -c 2 "$out/trace.json.gz" | od -An -tx1 | tr -d ' ')" = "1f8b" ] || fail "gz: not gzip"
printed=$(sed -n 's/^# trace written to .*: \([0-9]*\) slices.*/\1/p' "$out/gz.txt")
in_file=$(gzip -dc "$out/trace.json.gz" | grep -o '"ph":"X"' | wc -l)
[ -n "$printed" ] && [ "$printed" -eq "$in_file" ] || fail "gz: printed $printed slices, file holds $in_file"

check_error() {  # check_error KEY --set ... (scn= to use another scenario)
  local key="$1"; shift
  "$M" simulate -s "$scn" "$@" > "$out/stdout" 2> "$out/stderr"
  local rc=$?
  [ "$rc" -eq 2 ] || fail "$*: exit $rc, expected 2"
  [ "$(wc -l < "$out/stderr")" -eq 1 ] || fail "$*: stderr is not one line"
  grep -q "$key" "$out/stderr" || fail "$*: stderr does not name $key: $(cat "$out/stderr")"
}
check_error parallel.pp --set parallel.pp=3
check_error parallel.micro_batches --set parallel.micro_batches=30
check_error parallel.micro_batches --set parallel.micro_batches=33
# A serving scenario runs forward passes only, the batch split into two overlapped micro-batches
# (issue 14, item 4): no backward op in the trace, and the iteration compared with `step`'s.
serve="$SRC/scenarios/deepseek_v3_serve.toml"
"$M" simulate -s "$serve" --trace "$out/serve.json" > "$out/serve.txt" || fail "serve: exit $?"
grep -q "forward only, two overlapped micro-batches" "$out/serve.txt" || fail "serve: not the two-micro-batch overlap"
grep -q "^  forward_passes " "$out/serve.txt" || fail "serve: no comparison with step's iteration"
grep -q '"name":"B ' "$out/serve.json" && fail "serve: a backward op in the trace"
grep -q '"name":"F ' "$out/serve.json" || fail "serve: no forward op in the trace"
# Micro-batches split the batch: a budget counts the serving program's ops, named by its key.
scn="$serve" check_error parallel.pp --max-sim-ops 10

[ "$fails" -eq 0 ] && echo "cli_simulate: all checks passed"
exit $((fails > 0))
