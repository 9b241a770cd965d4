#!/usr/bin/env bash
# `mpirun -n 2 mhcsim search` (issue 18c): rank 0 prints and writes what one process does, byte
# for byte (stdout and PREFIX.json), for two objectives and two job sizes; the other rank
# prints nothing.
set -u
M="$1"; SRC="$2"; MPIRUN="$3"
source "$SRC/tests/cli/check.sh"
args=(-s "$SRC/scenarios/deepseek_v3_train.toml" -j 1 --top 6 -o s)
for case in "--gpus 256 --objective tokens_per_s" "--gpus 256,512 --objective cost_per_token"; do
  mkdir -p "$tmp/one" "$tmp/two"; rm -f "$tmp"/one/* "$tmp"/two/*
  # shellcheck disable=SC2086
  (cd "$tmp/one" && "$M" search "${args[@]}" $case >out.txt 2>err.txt) || { fail "one process ($case)"; continue; }
  # shellcheck disable=SC2086
  (cd "$tmp/two" && "$MPIRUN" -n 2 --oversubscribe --allow-run-as-root "$M" search "${args[@]}" $case \
     >out.txt 2>err.txt) || { fail "mpirun -n 2 ($case):"; head -5 "$tmp/two/err.txt"; continue; }
  if cmp -s "$tmp/one/out.txt" "$tmp/two/out.txt" && cmp -s "$tmp/one/s.json" "$tmp/two/s.json" &&
     grep -q "^# best 6 of" "$tmp/two/out.txt"; then pass
  else fail "outputs differ ($case)"; diff "$tmp/one/out.txt" "$tmp/two/out.txt" | head -6; fi
done
# Both ranks cut the same points and price their own: the counts add up as in one process.
python3 - "$tmp/two/s.json" <<'PY' && pass || fail "merged counts"
import json, sys
d = json.load(open(sys.argv[1]))["results"]
assert sum(d["pruned"].values()) + d["priced_points"] == d["space_points"]
PY
summary search_mpi
