#!/usr/bin/env bash
# `mhcsim search` through the binary: the table, the JSON file with its Pareto fronts and
# counts, and bad input (one line, exit 2), including a constraint no configuration meets.
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
S=(-s "$SRC/scenarios/deepseek_v3_train.toml" --gpus 256 -j 2)
check table 0 "best 3 of [0-9]+ priced configurations by step_time" -- "$M" search "${S[@]}" --top 3 --objective step_time
check pruned_line 0 "^# space: [0-9]+ points; pruned: .*memory [0-9]+" -- "$M" search "${S[@]}" --top 1
"$M" search "${S[@]}" --top 4 -o "$tmp/s" >/dev/null && python3 - "$tmp/s.json" <<'PY' && pass || fail "search -o: JSON"
import json, sys
d = json.load(open(sys.argv[1]))["results"]
assert len(d["top"]) == 4, d["top"]
assert d["top"][0]["differs_from_previous"] == "-" and d["top"][1]["differs_from_previous"] != "same"
assert sum(d["pruned"].values()) + d["priced_points"] == d["space_points"]
front = d["pareto"]["throughput_vs_memory"]
assert front and all(a["memory_per_gpu_bytes"] < b["memory_per_gpu_bytes"] and a["tokens_per_s"] < b["tokens_per_s"]
                     for a, b in zip(front, front[1:]))
assert d["pareto"]["throughput_vs_gpus"][0]["gpus"] == 256
assert d["global_batch_seqs"] == 15360
PY
check exists 2 "s.json.*exists" -- "$M" search "${S[@]}" -o "$tmp/s"
check report_names_flag 2 "^mhcsim: --report: .*exists" -- "$M" search "${S[@]}" --report "$tmp"
# Job-size lists and ranges (over Llama-3-70B: a DeepSeek-V3 space at 512 GPUs costs 10x more).
L="$SRC/scenarios/llama3_70b_gqa.toml"
check list 0 "on 256,512 GPUs" -- "$M" search -s "$L" --gpus 256,512 -j 2 --top 1
check range 0 "on 256,384,512 GPUs" -- "$M" search -s "$L" --gpus 256-520 -j 2 --top 1 --set hardware.gpus_per_node=128
check max_gpus 0 "pruned: max_gpus [0-9]+" -- "$M" search "${S[@]/256/256,512}" --max-gpus 256 --top 1
one_line bad_objective "$M" search "${S[@]}" --objective fastest
check bad_objective_msg 2 "^mhcsim: --objective: unknown objective 'fastest'" -- "$M" search "${S[@]}" --objective fastest
one_line bad_gpus "$M" search --gpus 12x
check bad_gpus_msg 2 "^mhcsim: --gpus: '12x' is not N" -- "$M" search --gpus 12x
one_line no_config "$M" search "${S[@]}" --min-headroom-gib 79
check no_config_msg 2 "^mhcsim: --min-headroom-gib: no configuration meets .*pruned .*memory [0-9]+.*headroom [0-9]+" -- \
  "$M" search "${S[@]}" --min-headroom-gib 79
check serve_refused 2 "workload.mode" -- "$M" search -s "$SRC/scenarios/deepseek_v3_serve.toml"
# The scenario's own layout, priced beside the best (Llama-3-70B at its 512 GPUs: DeepSeek-V3 at
# 2,048 costs 16 s, minutes under the sanitizers, for the same line).
check shipped 0 "^# shipped \(llama3_70b_gqa.toml\): [0-9]+ tokens/s" -- \
  "$M" search -s "$L" -j 2 --top 1
check simulate 0 "sim tokens/s" -- "$M" search "${S[@]}" --top 2 --simulate
# A budget (issue 18): --max-cost-usd cuts the layouts whose token budget costs more, counted as
# `budget`; without a budget or a price it is an input error.
"$M" search "${S[@]}" --top 5 --json >"$tmp/all.json" 2>/dev/null
limit=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["results"]["top"][2]["budget_cost_usd"])' "$tmp/all.json")
"$M" search "${S[@]}" --top 5 --json --max-cost-usd "$limit" >"$tmp/budget.json" 2>/dev/null
python3 - "$tmp/budget.json" "$limit" <<'PY' && pass || fail "search --max-cost-usd: every row within the budget, cuts counted"
import json, sys
d, limit = json.load(open(sys.argv[1]))["results"], float(sys.argv[2])
assert d["top"] and all(r["budget_cost_usd"] <= limit for r in d["top"]), d["top"]
assert d["pruned"]["budget"] > 0 and sum(d["pruned"].values()) + d["priced_points"] == d["space_points"]
PY
check no_budget 2 "^mhcsim: --max-cost-usd: needs a token budget and a price" -- \
  "$M" search "${S[@]}" --max-cost-usd 1e6 --set workload.token_budget=0
check budget_zero 2 "^mhcsim: --max-cost-usd: 0 is out of range" -- "$M" search "${S[@]}" --max-cost-usd 0
check budget_too_small 2 "^mhcsim: --max-cost-usd: no configuration meets .*budget [0-9]+" -- \
  "$M" search "${S[@]}" --max-cost-usd 1
# The report (issue 18): headline, top K, the Pareto fronts as figures with their data.
"$M" search "${S[@]}" --top 3 -o "$tmp/r" --report "$tmp/rep" >/dev/null 2>&1
python3 - "$tmp/rep" "$tmp/r.json" <<'PY' && pass || fail "search --report: sections and front data"
import csv, json, os, sys
d, doc = sys.argv[1], json.load(open(sys.argv[2]))["results"]
md = open(os.path.join(d, "report.md")).read()
assert md.index("## Headline") < md.index("## Best configurations") < md.index("## Pareto fronts"), md[:500]
rows = list(csv.DictReader(open(os.path.join(d, "figures", "front_memory.csv"))))
front = doc["pareto"]["throughput_vs_memory"]
assert len(rows) == len(front)
for r, p in zip(rows, front):
    assert abs(float(r["training throughput (M tokens/s)"]) - p["tokens_per_s"] / 1e6) < 1e-9
PY
check report_exists 2 "rep.*--force" -- "$M" search "${S[@]}" --top 1 --report "$tmp/rep"
summary cli_search
