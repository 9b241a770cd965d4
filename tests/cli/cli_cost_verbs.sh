#!/usr/bin/env bash
# The cost verbs through the real binary: each answers the brief's what-if questions with units
# in the table and the same numbers in --json (figures: DESIGN.md's sources, as in tests/cost).
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
V3T="$SRC/scenarios/deepseek_v3_train.toml"; V3S="$SRC/scenarios/deepseek_v3_serve.toml"
MHC="$SRC/scenarios/mhc_27b_h100.toml"

# mHC paper Table 2 at n = 4: 21C+24 read per token per layer unfused, (n+1)C read fused.
check traffic_table 0 "read \(KB\)" -- "$M" traffic -s "$MHC" --n 4
check_json traffic_n1 'assert find(d, "recompute_block") == 0' -- traffic -s "$MHC" --n 1
# DeepSeek-V3 MLA: 70,272 B per token at BF16; MHA-shaped heads 71.1x more.
check_json kv_mla 'r = d["rows"][0]; assert r["attention"].startswith("mla") and r["bytes_per_token"] == 70272, r' -- kv -s "$V3S" --context 131072 --batch 1
check_json kv_mha 'r = [x for x in d["rows"] if x["attention"] == "mha"][0]; assert abs(r["vs_model"] - 71.1) < 0.1, r' -- kv -s "$V3S"
check kv_units 0 "per token \(KiB\) per sequence \(MiB\) batch \(GiB\).*seqs/replica" -- "$M" kv -s "$V3S"
# A 128K GQA sequence of Llama-3 70B is 40 GiB: what fits is counted per TP 8 x PP 4 replica (a
# probe read 98 "seqs/GPU", 3.9 TiB on one H200), and the table says over how many GPUs.
check kv_replica 0 "seqs/replica: sequences whose KV fits one replica of TP x PP = 32 GPUs" -- "$M" kv -s "$SRC/scenarios/llama3_70b_gqa.toml" --context 131072 --set 'hardware.gpu="H200"'
# DeepEP's accounting: 7,408 B FP8 dispatch and 14,336 B BF16 combine per selected expert.
check_json a2a_payload 'assert find(d, "dispatch_logical_bytes") == 8 * 7408 and find(d, "combine_logical_bytes") == 8 * 14336' -- a2a -s "$V3T"
check_json a2a_tokens 'assert find(d, "tokens") == 128' -- a2a -s "$V3T" --tokens 128
# The default is what step's chunk dispatches: one micro-batch (1 x 4,096 tokens) on a CP rank
# over TP; under CP 2 it counted the whole sequence, twice what each rank sends.
check_json a2a_default 'assert find(d, "tokens") == 4096, d' -- a2a -s "$V3T"
check_json a2a_cp 'assert find(d, "tokens") == 2048, d' -- a2a -s "$V3T" --set parallel.cp=2
# A decode batch takes DeepEP's low-latency kernels, as step prices it: at EP 144 and 128 tokens
# between DeepEP's EP128 (192 + 369 us) and EP256 (194 + 360 us) rows. (a2a priced the normal
# kernels there, 145 + 221 us, 35% under step's all-to-all.)
# A prefill batch's default is one micro-batch of its prompt tokens (16K over two: 8192; it showed
# the 4 prompts as 4 tokens).
check_json a2a_prefill 'assert find(d, "kernel") == "DeepEP normal" and find(d, "tokens") == 8192, d' -- a2a -s "$SRC/scenarios/validation/deepseek_v3_profile_prefill.toml"
check_json a2a_decode 'assert find(d, "kernel") == "DeepEP low-latency (decode)" and 190e-6 < find(d, "dispatch_s") < 195e-6 and 359e-6 < find(d, "combine_s") < 370e-6, d' -- a2a -s "$V3S" --tokens 128
# The cost model's errors name where the key was given: --set, or the file's line (they named
# the file without a line either way).
check a2a_set_blame 2 "^mhcsim: --set: parallel.max_nodes_per_token: 2 nodes cannot hold" -- \
  "$M" a2a -s "$V3T" --set parallel.max_nodes_per_token=2
sed 's/^\[parallel\]/[parallel]\nmax_nodes_per_token = 2/' "$V3T" > "$tmp/nodes2.toml"
check a2a_line_blame 2 "nodes2.toml:[0-9]+: parallel.max_nodes_per_token: 2 nodes cannot hold" -- "$M" step -s "$tmp/nodes2.toml"
# The cost model's errors name the scenario file and the key as the file spells it.
check a2a_dense 2 "llama3_70b_gqa.toml: model.moe.routed_experts: all-to-all needs a MoE model" -- \
  "$M" a2a -s "$SRC/scenarios/llama3_70b_gqa.toml"
# DualPipe vs 1F1B at PP 16, 32 micro-batches: every schedule a row, DualPipe's bubble smaller.
check_json bubble_rows 'b = {r["schedule"]: r["bubble_s"] for r in d["rows"]}; assert len(b) == 5 and b["dualpipe"] < b["1f1b"], b' -- bubble -s "$V3T" --set parallel.micro_batches=32
# Each row's activations are `memory`'s for that schedule (they were the slowest chunk's: the
# last stage's one layer, a quarter of 1F1B's). DualPipeV's 32 chunks of 2 price 62 layers of
# 61, and the row says so.
"$M" memory -s "$V3T" --set parallel.micro_batches=32 --set parallel.schedule=1f1b --json >"$tmp/mem_1f1b.json" 2>/dev/null
check_json bubble_activations "
import json
m = json.load(open('$tmp/mem_1f1b.json'))['results']
r = {x['schedule']: x for x in d['rows']}
assert r['1f1b']['activation_bytes'] == find(m, 'activation_bytes') and r['1f1b']['activation_chunks'] == 16, (r['1f1b'], m)
assert '62 layers priced of 61' in r['dualpipev']['note'] and r['dualpipe']['note'] == '', r
" -- bubble -s "$V3T" --set parallel.micro_batches=32
# 40 micro-batches at PP 16: interleaved 1F1B is refused by the scenario check, so its row says
# why instead of a price (issue 17 item 4).
check_json bubble_refused 'r = [x for x in d["rows"] if x["schedule"] == "interleaved"][0]; assert r["bubble_s"] is None and "divisible by PP 16" in r["note"], r' -- bubble -s "$V3T" --set parallel.micro_batches=40
check bubble_odd_pp 0 "dualpipe .*even" -- "$M" bubble -s "$V3T" --set parallel.schedule=1f1b --set parallel.pp=15 --set parallel.extra_stage_layers=14 --set hardware.gpus=1920
# Memory: V3 training fits 80 GiB with its selective recompute, not without.
check_json memory_fits 'assert find(d, "fits") is True and finite(d)' -- memory -s "$V3T"
# The result is printed, then exit code 3 says it does not fit (README, Using it).
want_rc=3 check_json memory_oom 'assert find(d, "fits") is False' -- memory -s "$V3T" --set parallel.activation_recompute=none
# Step: training composes (how near the measured 19.926 s it lands is `mhcsim validate`'s
# question); serving answers tokens/s per node and GPUs for the load.
check_json step_train 'assert abs(find(d, "tokens_per_s") * find(d, "step_s") / find(d, "tokens_per_step") - 1) < 1e-9 and find(d, "chunk_gemm_s") > 0' -- step -s "$V3T"
# One schema: ratios are fractions in every verb's JSON (percent only in tables), booleans are
# booleans; step and sweep give the same MFU and bubble for the same point (issue 17).
check_json step_fractions 'assert 0 < find(d, "mfu") < 1 and 0 <= find(d, "bubble_fraction") < 1 and find(d, "chunk_has_lm_head") in (True, False)' -- step -s "$V3T"
"$M" step -s "$V3T" --json >"$tmp/step.json" 2>/dev/null
"$M" sweep -s "$V3T" --sweep parallel.pp=16 --json >"$tmp/sweep.json" 2>/dev/null
if python3 - "$tmp/step.json" "$tmp/sweep.json" <<'PY'
import json, sys
step = json.load(open(sys.argv[1]))["results"]; row = json.load(open(sys.argv[2]))["results"]["rows"][0]
for s_key, w_key in (("mfu", "mfu"), ("bubble_fraction", "bubble_fraction"), ("step_s", "step_time_s")):
    assert abs(step[s_key] - row[w_key]) <= 1e-12 * abs(row[w_key]), (s_key, step[s_key], row[w_key])
PY
then pass step_sweep_same_fractions; else fail "step_sweep_same_fractions: step --json and sweep --json disagree"; fi
check_json step_decode 'assert 14.8e3 <= find(d, "tokens_per_s_per_node") <= 29.6e3 and find(d, "gpus_for_target") > 0' -- step -s "$V3S"
check step_prefill 0 "time to first token +[0-9.]+ ms" -- "$M" step -s "$V3S" --set workload.phase=prefill
check step_units 0 "step time +[0-9.]+ s" -- "$M" step -s "$V3T"
# Bad input: one line naming the key, exit 2.
one_line a2a_dense "$M" a2a -s "$SRC/scenarios/llama3_70b_gqa.toml"
one_line step_bad_overlap "$M" step -s "$V3T" --set parallel.overlap=2
summary cli_cost_verbs
