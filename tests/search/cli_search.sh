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
check list 0 "on 256,512 GPUs" -- "$M" search -s "$SRC/scenarios/deepseek_v3_train.toml" --gpus 256,512 -j 2 --top 1
check range 0 "on 256,384,512 GPUs" -- "$M" search -s "$SRC/scenarios/deepseek_v3_train.toml" --gpus 256-520 \
  -j 2 --top 1 --set hardware.gpus_per_node=128
check max_gpus 0 "pruned: max_gpus [0-9]+" -- "$M" search "${S[@]/256/256,512}" --max-gpus 256 --top 1
one_line bad_objective "$M" search "${S[@]}" --objective fastest
check bad_objective_msg 2 "^mhcsim: --objective: unknown objective 'fastest'" -- "$M" search "${S[@]}" --objective fastest
one_line bad_gpus "$M" search --gpus 12x
check bad_gpus_msg 2 "^mhcsim: --gpus: '12x' is not N" -- "$M" search --gpus 12x
one_line no_config "$M" search "${S[@]}" --min-headroom-gib 79
check no_config_msg 2 "^mhcsim: --min-headroom-gib: no configuration meets .*pruned .*memory [0-9]+.*headroom [0-9]+" -- \
  "$M" search "${S[@]}" --min-headroom-gib 79
check serve_refused 2 "workload.mode" -- "$M" search -s "$SRC/scenarios/deepseek_v3_serve.toml"
check shipped 0 "^# shipped \(deepseek_v3_train.toml\): [0-9]+ tokens/s" -- \
  "$M" search -s "$SRC/scenarios/deepseek_v3_train.toml" --gpus 2048 -j 2 --top 1
check simulate 0 "sim tokens/s" -- "$M" search "${S[@]}" --top 2 --simulate
summary cli_search
