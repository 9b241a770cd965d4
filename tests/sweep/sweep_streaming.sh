#!/usr/bin/env bash
# Streaming sweeps (issue 18): a 100k-point sweep without --top goes to stdout (text and --json)
# and to PREFIX.csv/PREFIX.json in bounded memory: peak RSS (GNU time) under 64 MB, where
# holding the points and their table (the sweep before streaming) took several hundred MB.
# The outputs hold every point once, in point order, and agree with each other.
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
kMaxRssKb=65536
MB=$(seq -s, 32 2 2030)  # 1000 micro-batch counts, odd DualPipe counts never occur, many do not fit
LAST_MB=2030
if [[ "${MHCSIM_SANITIZED:-0}" == 1 ]]; then
  # ASan's shadow memory and quarantine are most of the RSS and it runs ~10x slower: check the
  # streamed outputs on 10k points and leave the memory bound to the normal build.
  MB=$(seq -s, 32 2 230); LAST_MB=230; kMaxRssKb=0
fi
POINTS=$(( $(tr ',' '\n' <<<"$MB" | wc -l) * 100 ))
SW=(sweep -j 2 --sweep "parallel.micro_batches=$MB" --sweep parallel.overlap=0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9
    --sweep parallel.expert_imbalance=1.0,1.1,1.2,1.3,1.4,1.5,1.6,1.7,1.8,1.9)
rss() {  # rss NAME OUT ARGS...: runs mhcsim ARGS > OUT under GNU time; checks the exit code and peak RSS
  local name=$1 out=$2; shift 2
  /usr/bin/time -f '%M' -o "$tmp/$name.rss" "$M" "$@" >"$out" 2>"$tmp/$name.err"
  local rc=$? kb; kb=$(tail -1 "$tmp/$name.rss")
  if ((rc != 0)); then fail "$name: rc=$rc"; head -3 "$tmp/$name.err"; return; fi
  if ((kMaxRssKb > 0 && kb > kMaxRssKb)); then fail "$name: peak RSS $kb kB > $kMaxRssKb kB"; else pass; fi
  echo "$name: peak RSS $kb kB"
}
if [[ ! -x /usr/bin/time ]]; then echo "SKIP: no /usr/bin/time"; exit 0; fi
rss files /dev/null "${SW[@]}" -o "$tmp/s"
rss text "$tmp/text.txt" "${SW[@]}"
rss json "$tmp/out.json" "${SW[@]}" --json
python3 - "$tmp/s.csv" "$tmp/s.json" "$tmp/out.json" "$tmp/text.txt" "$POINTS" "$LAST_MB" <<'PY' && pass || fail "streamed outputs disagree"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
out = json.load(open(sys.argv[3]))["results"]
text = [l for l in open(sys.argv[4]) if not l.startswith("#")]
points, last_mb = int(sys.argv[5]), sys.argv[6]
assert len(rows) == len(doc["points"]) == len(out["rows"]) == len(text) == points == out["points"]
feasible = sum(r["feasible"] == "true" for r in rows)
assert 0 < feasible < points and feasible == doc["feasible_points"] == out["feasible_points"]
# Point order: the last axis varies fastest.
assert [r["parallel.expert_imbalance"] for r in rows[:3]] == ["1.0", "1.1", "1.2"], rows[:3]
assert rows[-1]["parallel.micro_batches"] == last_mb
for a, b in ((rows[0], doc["points"][0]), (rows[-1], out["rows"][-1])):
    assert a["reason"] == b["reason"] and float(a["global_batch_seqs"]) == b["global_batch_seqs"]
PY
summary sweep_streaming
