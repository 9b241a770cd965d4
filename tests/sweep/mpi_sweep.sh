#!/usr/bin/env bash
# `mpirun -n R mhcsim sweep` (issue 18c): rank 0 prints and writes what one process does, byte
# for byte: PREFIX.csv and PREFIX.json, the streamed text table, --json rows and --top, with
# 2 and 3 ranks over 3 blocks of points (2960) (ranks own blocks b % R, rank 0 puts them in order).
set -u
M="$1"; SRC="$2"; MPIRUN="$3"
source "$SRC/tests/cli/check.sh"
SW=(sweep -s "$SRC/scenarios/deepseek_v3_train.toml" -j 1 --sweep parallel.pp=4,8,16,32
    --sweep parallel.ep=8,16,32,64 --sweep "parallel.micro_batches=$(seq -s, 32 2 400)")
mkdir -p "$tmp/one" "$tmp/two"
run_all() {  # run_all DIR LAUNCHER...: the four outputs of one way to run
  local dir=$1; shift
  (cd "$dir" && "$@" "$M" "${SW[@]}" -o s >out.txt && "$@" "$M" "${SW[@]}" >text.txt &&
   "$@" "$M" "${SW[@]}" --json >rows.json && "$@" "$M" "${SW[@]}" --top 5 --by tokens_per_s >top.txt)
}
run_all "$tmp/one" env || fail "one process"
for n in 2 3; do
  rm -f "$tmp"/two/*
  run_all "$tmp/two" "$MPIRUN" -n "$n" --oversubscribe --allow-run-as-root || { fail "mpirun -n $n"; continue; }
  for f in out.txt s.csv s.json text.txt rows.json top.txt; do
    if cmp -s "$tmp/one/$f" "$tmp/two/$f"; then pass; else fail "mpirun -n $n: $f differs"; fi
  done
done
[[ $(grep -vc '^#' "$tmp/one/text.txt") -eq 2960 ]] && pass || fail "expected 4 x 4 x 185 = 2960 rows"
summary sweep_mpi
