#!/usr/bin/env bash
# Issue 16, outputs, flags and the feasibility verdict, through the real binary. Every case runs
# within 5 s and 1 GiB of address space and must exit with the documented code (README, Using
# it): 2 for bad input, 3 for a configuration that does not fit (result printed, then one line),
# with exactly one line on stderr and no crash. Output cases also check the file system after:
# nothing created where it must not be, a directory mhcsim did not write left intact, and a run
# killed at the point where its complete temporaries are about to be renamed (the fault hook
# MHCSIM_FAULT_AFTER_TEMP_WRITE) leaves the old output whole and its leftovers to the next run.
# Usage: outputs_flags.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
export MHCSIM_DATA_DIR="$SRC/scenarios"
TRAIN="$SRC/scenarios/deepseek_v3_train.toml"
SERVE="$SRC/scenarios/deepseek_v3_serve.toml"
SMALL="$SRC/scenarios/mhc_27b_h100.toml"
TRACE="$SRC/fuzz/seeds/trace/kineto_small.json"


# expect NAME RC PATTERN -- ARGS...: exit code RC and one line on stderr matching PATTERN.
expect() {
  local name=$1 want=$2 pat=$3; shift 4
  run_bounded "$@"
  local lines why=""
  lines=$(grep -c '' "$tmp/err")
  if ((rc == 124)); then why="timed out ($kBoundSeconds s)"
  elif ((rc > 128)); then why="killed by signal $((rc - 128))"
  elif ((rc != want)); then why="exit code $rc (want $want)"
  elif grep -qE 'terminate called|Sanitizer|runtime error:|std::bad_alloc' "$tmp/err"; then why="crash report on stderr"
  elif ((lines != 1)); then why="$lines lines on stderr (want 1)"
  elif ! grep -qE -- "$pat" "$tmp/err"; then why="stderr does not match /$pat/"
  fi
  if [[ -n $why ]]; then fail "$name: $why"; head -c 600 "$tmp/err" | head -4; else pass; fi
}

# killed NAME FAULT -- ARGS...: the run dies by SIGKILL at the fault hook for output file name FAULT.
killed() {
  local name=$1 fault=$2; shift 3
  { ( export MHCSIM_FAULT_AFTER_TEMP_WRITE="$fault"; bound_memory; exec timeout "$kBoundSeconds" "$M" "$@" ) \
      >"$tmp/out" 2>"$tmp/err" </dev/null; } 2>/dev/null  # bash's "Killed" notice is expected here
  rc=$?
  if ((rc == 137)); then pass; else fail "$name: exit code $rc (want 137, killed at the hook)"; head -3 "$tmp/err"; fi
}

ok() { if eval "$2"; then pass; else fail "$1: $2"; fi; }  # ok NAME BASH_CONDITION
leftovers() { find "$1" -maxdepth 1 -name ".$2.*" | wc -l; }  # temporaries of output NAME in DIR

# The sweep's JSON is the manifest of its CSV: bytes and FNV-1a 64 must match.
manifest_matches() {
  python3 - "$1.csv" "$1.json" <<'PY'
import json, sys
csv = open(sys.argv[1], 'rb').read()
m = json.load(open(sys.argv[2]))['meta']['csv']
h = 0xcbf29ce484222325
for b in csv: h = ((h ^ b) * 0x100000001b3) & 0xffffffffffffffff
sys.exit(0 if m['bytes'] == len(csv) and m['fnv1a64'] == format(h, '016x') else 1)
PY
}

# --- CLI flags: the scenario keys' ranges and messages; non-finite, empty and multi-line values.
expect context_int64_max 2 '^mhcsim: --context: 9223372036854775807 is out of range \(expected integer in \[1, 4294967296\]\)$' -- \
  kv --context 9223372036854775807
expect context_zero 2 '^mhcsim: --context: 0 is out of range \(expected integer in \[1, 4294967296\]\)$' -- kv --context 0
expect context_word 2 '^mhcsim: --context: expected integer in \[1, 4294967296\] \(got a string\)$' -- kv --context lots
expect batch_zero 2 '^mhcsim: --batch: 0 is out of range \(expected integer in \[1, 16777216\]\)$' -- kv --batch 0
expect mhc_n_range 2 '^mhcsim: --n: 65 is out of range \(expected integer in \[1, 64\]\)$' -- traffic --n 65
expect a2a_tokens 2 '^mhcsim: --tokens: 0 is out of range' -- a2a --tokens 0
kSteps="is not a number of steps \(expected N, 0\.25 or 1/120, between 1e-6 and 1e6\)$"
expect steps_inf 2 "^mhcsim: --steps: 'inf' $kSteps" -- compare --trace "$TRACE" --steps inf
expect steps_nan 2 "^mhcsim: --steps: 'nan' $kSteps" -- compare --trace "$TRACE" --steps nan
expect steps_tiny 2 "^mhcsim: --steps: '1e-300' $kSteps" -- compare --trace "$TRACE" --steps 1e-300
expect rank_negative 2 '^mhcsim: --rank: -1 is out of range' -- compare --trace "$TRACE" --rank -1
expect jobs_range 2 '^mhcsim: --jobs: 5000 is out of range \(expected integer in \[0, 4096\]\)$' -- \
  sweep --sweep parallel.pp=8 -j 5000
expect scenario_empty 2 '^mhcsim: --scenario: empty path' -- step -s ""
expect calibration_empty 2 '^mhcsim: --calibration: empty path' -- step --calibration ""
expect sweep_output_empty 2 '^mhcsim: --output: empty path' -- sweep --sweep parallel.pp=8 -o ""
expect trace_empty 2 '^mhcsim: --trace: empty path' -- simulate --trace ""
expect set_newline 2 '^mhcsim: --set: "parallel.pp=8\\nparallel.tp=2" holds a line break' -- \
  step --set $'parallel.pp=8\nparallel.tp=2'
expect sweep_newline 2 'holds a line break' -- sweep --sweep $'parallel.pp=8\nparallel.tp=2'
# A value wrong at any point (a range written as a word, an unknown schedule) is bad input, not
# a sweep of one infeasible point that exits 0.
expect sweep_value_word 2 '^mhcsim: --sweep: parallel\.pp=1-16: expected integer in \[1, 4096\] \(got a string\)$' -- \
  sweep --sweep parallel.pp=1-16
expect sweep_value_enum 2 "^mhcsim: --sweep: parallel\.schedule=dualpipes: 'dualpipes' is not valid" -- \
  sweep --sweep parallel.schedule=1f1b,dualpipes
expect unknown_verb 2 '^mhcsim: "frob" is not a verb \(expected one of hw, scenario, .*step' -- frob
expect blame_set_key 2 '^mhcsim: --set: parallel.pp: 2048 GPUs do not split into TP 1 x CP 1 x PP 6$' -- \
  step --set parallel.pp=6
run_bounded step --set workload.token_budget=-0.0 --json
# The results, not meta.overrides, which echoes the -0.0 as typed.
python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))["results"]))' "$tmp/out" >"$tmp/results" 2>/dev/null
ok token_budget_negative_zero '((rc == 0)) && [[ -s $tmp/results ]] && ! grep -qE "(^|[^0-9.eE])-0(\.0*)?([^0-9.]|$)" "$tmp/results"'

# --- One feasibility verdict: what sweep calls out of memory, step/memory/simulate/report say does not fit.
run_bounded sweep --sweep parallel.pp=2 --json
reason=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results']['rows'][0]['reason'])" "$tmp/out" 2>/dev/null)
ok sweep_says_oom '[[ $reason == "out of memory: "*" GiB per GPU > 80.0 GiB HBM" ]]'
for verb in step memory simulate; do
  expect "${verb}_does_not_fit" 3 "^mhcsim: does not fit: ${reason//./\\.}\$" -- $verb --set parallel.pp=2
  ok "${verb}_prints_result" '[[ -s $tmp/out ]]'
done
expect report_does_not_fit 3 "^mhcsim: does not fit: ${reason//./\\.}\$" -- report --set parallel.pp=2 -o "$tmp/oom_report"
ok report_written_anyway '[[ -f $tmp/oom_report/report.html ]]'
expect serve_kv_does_not_fit 3 '^mhcsim: does not fit: KV cache: [0-9]+ sequences of [0-9]+ tokens fit per GPU, batch needs 16777216$' -- \
  step -s "$SERVE" --set workload.batch_seqs=16777216
run_bounded step -s "$SMALL"
ok fits_exits_0 '((rc == 0)) && [[ ! -s $tmp/err ]]'

# E1: a base scenario no point repairs is exit 2 with its own error; one a swept key repairs is fine.
expect sweep_invalid_base 2 '^mhcsim: --set: model.moe.top_k: top-k 500 exceeds routed experts' -- \
  sweep --set model.moe.top_k=500 --sweep parallel.pp=8,16
sed 's/^pp = 16/pp = 6/' "$TRAIN" > "$tmp/pp6.toml"
run_bounded sweep -s "$tmp/pp6.toml" --sweep parallel.pp=8,16
ok sweep_base_repaired_by_axis '((rc == 0))'
# A key both --set and swept is refused: the sweep's values replaced the --set one unseen.
expect sweep_set_and_swept 2 '^mhcsim: --sweep: parallel.pp is both swept and given with --set' -- \
  sweep --set parallel.pp=6 --sweep parallel.pp=8,16

# --- H1: a simulation past the op budget is refused before it allocates, everywhere it runs.
expect simulate_budget 2 '^mhcsim: parallel.micro_batches: 1048576 micro-batches .* more than --max-sim-ops allows' -- \
  simulate --set parallel.micro_batches=1048576
expect report_budget 2 'more than --max-sim-ops allows' -- report --set parallel.micro_batches=1048576 -o "$tmp/h1"
ok report_budget_no_dir '[[ ! -e $tmp/h1 ]]'
expect compare_budget 2 'more than --max-sim-ops allows' -- compare --trace "$TRACE" --set parallel.micro_batches=1048576
run_bounded sweep --simulate --sweep parallel.micro_batches=1048576 --json
ok sweep_simulate_budget '((rc == 0)) && grep -q "more than --max-sim-ops allows" "$tmp/out"'
expect budget_flag_range 2 '^mhcsim: --max-sim-ops: 0 is out of range' -- simulate --max-sim-ops 0
expect budget_flag_low 2 'more than --max-sim-ops allows \(100;' -- simulate -s "$SMALL" --max-sim-ops 100

# --- Outputs: errors name the user's path and the OS reason; nothing written where it must not be.
echo x > "$tmp/file"
expect sweep_output_under_file 2 "^mhcsim: $tmp/file: cannot create the output directory \(" -- \
  sweep --sweep parallel.pp=8 -o "$tmp/file/s"
expect report_output_under_file 2 "^mhcsim: $tmp/file: cannot create the output directory \(" -- \
  report -s "$SMALL" -o "$tmp/file/r"
expect trace_output_under_file 2 "$tmp/file: cannot create the output directory \(" -- \
  simulate -s "$SMALL" --trace "$tmp/file/t.json"
had_null_csv=$([[ -e /dev/null.csv ]] && echo 1 || echo 0)
expect sweep_dev_null 2 "^mhcsim: -o: '/dev/null' is a device or other special file" -- sweep --sweep parallel.pp=8 -o /dev/null
ok no_dev_null_csv '((had_null_csv)) || [[ ! -e /dev/null.csv ]]'
expect trace_dev_null 2 "'/dev/null' is a character device" -- simulate -s "$SMALL" --trace /dev/null
ok dev_null_still_device '[[ -c /dev/null ]]'
mkdir -p "$tmp/dir"
expect sweep_dir_prefix 2 "^mhcsim: -o: '$tmp/dir/' names a directory" -- sweep --sweep parallel.pp=8 -o "$tmp/dir/"
ok no_hidden_csv '[[ ! -e $tmp/dir/.csv && ! -e $tmp/dir/.json ]]'
# -o PREFIX with the extension of one of its files names the prefix (issue 17 item 4).
run_bounded sweep --sweep parallel.pp=8 -o "$tmp/ext.csv"
ok prefix_drops_csv '((rc == 0)) && [[ -s $tmp/ext.csv && -s $tmp/ext.json && ! -e $tmp/ext.csv.csv ]]'

# --- File outputs: an existing one is replaced only with --force, and --force replaces only a
# file mhcsim wrote (its written_by key; a sweep's CSV by its JSON manifest).
run_bounded simulate -s "$SMALL" --trace "$tmp/tr.json.gz"
expect trace_exists 2 "'$tmp/tr.json.gz' exists \(use --force to replace it\)" -- simulate -s "$SMALL" --trace "$tmp/tr.json.gz"
run_bounded simulate -s "$SMALL" --trace "$tmp/tr.json.gz" --force
ok trace_force_replaces_ours '((rc == 0))'
echo "years of work" > "$tmp/thesis.json"
expect trace_force_not_ours 2 "'$tmp/thesis.json' was not written by mhcsim" -- simulate -s "$SMALL" --trace "$tmp/thesis.json" --force
expect serve_trace_force_not_ours 2 "'$tmp/thesis.json' was not written by mhcsim" -- \
  serve -s "$SERVE" --rate 1 --requests 10 --trace "$tmp/thesis.json" --force
ok thesis_kept 'grep -q "years of work" "$tmp/thesis.json"'
echo "a,b" > "$tmp/mine.csv"
expect sweep_csv_not_ours 2 "'$tmp/mine.csv' was not written by mhcsim" -- sweep --sweep parallel.pp=8 -o "$tmp/mine" --force
ok mine_csv_kept 'grep -q "a,b" "$tmp/mine.csv"'
# A CSV the user wrote over a sweep's (its manifest still beside it) is no longer the sweep's.
run_bounded sweep --sweep parallel.pp=8 -o "$tmp/edited"
echo "my,own,table" > "$tmp/edited.csv"
expect sweep_csv_edited 2 "'$tmp/edited.csv' was not written by mhcsim sweep \(its manifest" -- \
  sweep --sweep parallel.pp=8 -o "$tmp/edited" --force
ok edited_csv_kept 'grep -q "my,own,table" "$tmp/edited.csv"'
# --force replaces only the same verb's output: a trace never replaces a sweep's manifest.
expect trace_force_other_verb 2 "'$tmp/edited.json' was not written by mhcsim simulate" -- \
  simulate -s "$SMALL" --trace "$tmp/edited.json" --force
# Standard output that cannot be written (a full disk) is a failure, not a success.
( "$M" step -s "$SMALL" >/dev/full 2>"$tmp/err" ); rc=$?
ok stdout_full '((rc == 1)) && grep -q "cannot write standard output" "$tmp/err"'

# --- report --force: only over a directory mhcsim wrote.
mkdir -p "$tmp/mine"; echo "years of work" > "$tmp/mine/thesis.tex"
expect force_over_user_dir 2 "'$tmp/mine' was not written by mhcsim" -- report -s "$SMALL" -o "$tmp/mine" --force
ok user_dir_intact '[[ $(cat "$tmp/mine/thesis.tex") == "years of work" && $(ls -A "$tmp/mine" | wc -l) == 1 ]]'
run_bounded report -s "$SMALL" -o "$tmp/rep"
ok report_marked '((rc == 0)) && [[ -f $tmp/rep/.mhcsim-output && -f $tmp/rep/report.html ]]'
expect report_exists 2 "'$tmp/rep' exists \(use --force to replace it\)" -- report -s "$SMALL" -o "$tmp/rep"
# A file the user put in a report since keeps the whole report from --force.
echo "my notes" > "$tmp/rep/notes.txt"
expect report_force_keeps_user_file 2 "holds 'notes.txt', which mhcsim did not write" -- report -s "$SMALL" -o "$tmp/rep" --force
ok report_user_file_kept 'grep -q "my notes" "$tmp/rep/notes.txt" && [[ -f $tmp/rep/report.html ]]'
rm "$tmp/rep/notes.txt"

# --- scenario --from-hf -o: --force replaces what an earlier --from-hf wrote, and nothing else.
HF=(scenario --from-hf "$SRC/tests/scenarios/data/hf/llama3_70b.json" --gpu H100 --gpus 64 --tp 8)
run_bounded "${HF[@]}" -o "$tmp/hf.toml"
ok from_hf_written '((rc == 0)) && [[ -f $tmp/hf.toml ]]'
expect from_hf_exists 2 "'$tmp/hf.toml' exists \(use --force to replace it\)" -- "${HF[@]}" -o "$tmp/hf.toml"
run_bounded "${HF[@]}" -o "$tmp/hf.toml" --force
ok from_hf_force_replaces_ours '((rc == 0))'
expect from_hf_force_not_ours 2 "'$tmp/thesis.json' was not written by mhcsim" -- "${HF[@]}" -o "$tmp/thesis.json" --force
ok thesis_kept_from_hf 'grep -q "years of work" "$tmp/thesis.json"'

# --- A kill at the synchronisation point of a replace leaves the old output whole; the next run cleans up.
cp -r "$tmp/rep" "$tmp/rep_before"
killed report_killed rep -- report -s "$SMALL" --set parallel.micro_batches=16 -o "$tmp/rep" --force
ok report_old_whole 'diff -r "$tmp/rep_before" "$tmp/rep" >/dev/null'
ok report_left_temp '(( $(leftovers "$tmp" rep) == 1 ))'
killed report_killed_mid_fill report.html -- report -s "$SMALL" -o "$tmp/rep" --force
ok report_old_whole_mid_fill 'diff -r "$tmp/rep_before" "$tmp/rep" >/dev/null'
run_bounded report -s "$SMALL" --set parallel.micro_batches=16 -o "$tmp/rep" --force
ok report_replaced '((rc == 0)) && ! diff -q "$tmp/rep_before/report.md" "$tmp/rep/report.md" >/dev/null'
ok report_leftovers_cleaned '(( $(leftovers "$tmp" rep) == 0 ))'

run_bounded sweep --sweep parallel.pp=8,16 -o "$tmp/s"
ok sweep_pair_consistent '((rc == 0)) && manifest_matches "$tmp/s"'
cp "$tmp/s.csv" "$tmp/s_before.csv"; cp "$tmp/s.json" "$tmp/s_before.json"
killed sweep_killed_before_renames s.csv -- sweep --sweep parallel.pp=16,32 -o "$tmp/s" --force
ok sweep_old_pair_whole 'cmp -s "$tmp/s.csv" "$tmp/s_before.csv" && cmp -s "$tmp/s.json" "$tmp/s_before.json"'
killed sweep_killed_between_renames s.json -- sweep --sweep parallel.pp=16,32 -o "$tmp/s" --force
ok sweep_half_pair_detectable '! cmp -s "$tmp/s.csv" "$tmp/s_before.csv" && ! manifest_matches "$tmp/s"'
run_bounded sweep --sweep parallel.pp=16,32 -o "$tmp/s" --force
ok sweep_pair_replaced '((rc == 0)) && manifest_matches "$tmp/s" && (( $(leftovers "$tmp" s.csv) + $(leftovers "$tmp" s.json) == 0 ))'

summary outputs_flags
