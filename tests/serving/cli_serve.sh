#!/usr/bin/env bash
# `mhcsim serve` through the real binary: the table has units in its headers, --json has every
# field finite, --max-rate answers with the capacity in deployment units, the trace is JSON, and
# bad input (rates, SLOs without units, request files, a KV cache too small) is one line, exit 2.
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
export MHCSIM_DATA_DIR="$SRC/scenarios"
S="$SRC/scenarios/deepseek_v3_serve.toml"

check serve_table 0 "TTFT p99 \(ms\).*TPOT p99 \(ms\).*out \(tok/s/node\)" -- "$M" serve -s "$S" --rate 2 --requests 300
check serve_kv_line 0 "# KV cache: [0-9]+ blocks of 64 tokens" -- "$M" serve -s "$S" --rate 2 --requests 300
check_json serve_json "
r = d['runs'][0]
assert finite(d) and r['requests'] == 300, r
for k in ['ttft_p50_s','ttft_p90_s','ttft_p99_s','tpot_p99_s','e2e_p99_s','input_tokens_per_s_per_gpu',
          'output_tokens_per_s_per_node','goodput_per_s','kv_utilisation_mean','cost_per_million_output_usd']:
    assert k in r, k
assert r['ttft_p50_s'] <= r['ttft_p99_s'] and r['output_tokens'] == 300 * 256
assert len(r['kv_utilisation_series']) > 0
" -- serve -s "$S" --rate 2 --requests 300 --slo-ttft 2s --slo-tpot 100ms
# 32 output tokens a request: the search's low-rate runs are mostly decode iterations of one or
# two sequences (256 tokens: 9 s here, minutes under the sanitizers, for the same lines).
"$M" serve -s "$S" --rate 1 --requests 300 --output-tokens 32 --slo-ttft 2s --slo-tpot 100ms --max-rate >"$tmp/max_rate.txt" 2>&1
check serve_max_rate 0 "max rate meeting the SLOs at p99: [0-9.]+ requests/s" -- cat "$tmp/max_rate.txt"
check serve_capacity 0 "capacity for 1.944e\+06 output tokens/s.*units of 144 GPUs.*GPUs, [0-9]+ nodes" -- cat "$tmp/max_rate.txt"
# "How many nodes for 2,000 requests/s at p99 TTFT under 2 s?" (the search starts at 1 request/s
# without --rate). It needs thousands of replicas, so the search is run again over 128 replicas
# (the most it pools) under one router, which take more per replica than one alone; the
# capacity is copies of those 128, in whole EP144 units.
check_json serve_target_rate "
import math
c = d['capacity']
n = c['simulated_replicas']
assert c['target'] == 'requests' and c['target_per_s'] == 2000 and n == 128, c
assert c['served_per_s_at_max_rate'] == c['pooled_max_rate_per_s'] > n * d['max_rate_per_s'] > 0, (c, d['max_rate_per_s'])
p = c['pools'][0]
need = math.ceil(2000 / c['served_per_s_at_max_rate'] * n - 1e-9)
assert p['unit_gpus'] == 144 and p['replicas'] == math.ceil(need / 144) * 144, c
assert c['nodes'] == c['gpus'] // 8 and c['gpus'] == p['gpus']
" -- serve -s "$S" --requests 300 --slo-ttft 2s --target-rate 2000
# A target that needs a few replicas is answered from about that many under one router (at
# p99 TTFT 5 s: at 2 s a colocated replica's 1.07 s prompts put the SLO at two prompts' overlap,
# where the rate a pool meets grows steeply with its size).
check_json serve_target_pooled "
c = d['capacity']
n = c['simulated_replicas']
assert 1 < n < 128 and abs(c['pooled_max_rate_per_s'] - 20) / 20 < 0.25, c
" -- serve -s "$S" --requests 300 --slo-ttft 5s --target-rate 20
# A target one replica covers is not pooled.
check_json serve_target_small "
c = d['capacity']
assert c['simulated_replicas'] == 1 and c['pooled_max_rate_per_s'] is None and c['pools'][0]['replicas'] == 144, c
" -- serve -s "$S" --requests 300 --slo-ttft 2s --target-rate 0.03
# The table's lines for a pooled answer (the 20 requests/s one above: the 2,000 one's 128-replica
# search costs 7 s here, minutes under the sanitizers, for the same lines).
"$M" serve -s "$S" --requests 300 --slo-ttft 5s --target-rate 20 >"$tmp/pooled.txt" 2>&1
check serve_pooled_text 0 "^# pooled: [0-9]+ replicas under one router meet the SLOs up to [0-9.]+ requests/s" -- cat "$tmp/pooled.txt"
check serve_target_rate_text 0 "^# capacity for 20 requests/s \(--target-rate\): serving [0-9]+ replicas" -- cat "$tmp/pooled.txt"
check_json serve_disaggregated "
assert d['runs'][0]['requests'] == 200 and d['prefill_replicas'] == 1 and d['runs'][0]['gpus'] == 3
" -- serve -s "$S" --rate 2 --requests 200 --replicas 2 --prefill-replicas 1
# The prefill:decode split needing the fewest nodes (--prefill-replicas auto): every split is
# sized, the chosen one has the fewest nodes, and it is the answer a plain run of that split gives.
P="$SRC/scenarios/validation/deepseek_v3_profile_prefill.toml"
# 1,000-token prompts and 16 output tokens keep it cheap (most of the cost is decode iterations;
# the suite runs it under ASan too) and the best split inside the range (6:2, 46 nodes).
AUTO=(serve -s "$S" --requests 200 --input-tokens 1000 --output-tokens 16 --slo-ttft 2s --slo-tpot 100ms
      --target-rate 2000 --prefill-scenario "$P")
"$M" "${AUTO[@]}" --prefill-replicas auto --json >"$tmp/auto.json" 2>"$tmp/auto.err"
check_json serve_split_search "
import json
auto = json.load(open('$tmp/auto.json'))['results']
splits = auto['capacity']['splits']
assert len(splits) >= 10, splits
ratios = [x['prefill_per_decode'] for x in splits]
assert ratios == sorted(ratios) and ratios[0] <= 0.125 and ratios[-1] >= 32, ratios
chosen = [x for x in splits if x['chosen']]
assert len(chosen) == 1 and chosen[0]['nodes'] == min(x['nodes'] for x in splits if x['nodes']), splits
assert (auto['prefill_replicas'], auto['replicas']) == (chosen[0]['prefill_replicas'], chosen[0]['replicas'])
assert d['capacity']['nodes'] == auto['capacity']['nodes'] == chosen[0]['nodes'], (d['capacity'], chosen)
assert d['capacity']['pools'] == auto['capacity']['pools'], (d['capacity'], auto['capacity'])
" -- "${AUTO[@]}" --prefill-replicas "$(python3 -c "import json; print(json.load(open('$tmp/auto.json'))['results']['prefill_replicas'])")" --replicas "$(python3 -c "import json; print(json.load(open('$tmp/auto.json'))['results']['replicas'])")"
check serve_split_table 0 "prefill:decode splits sized for the target" -- "$M" serve -s "$S" --requests 100 \
  --input-tokens 1000 --output-tokens 8 --slo-ttft 2s --target-rate 20 --prefill-replicas auto
"$M" serve -s "$S" --rate 2 --requests 100 --trace "$tmp/trace.json" >/dev/null 2>&1
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert any(e['ph']=='X' for e in d['traceEvents'])" "$tmp/trace.json"; then pass; else fail serve_trace; fi
# A .gz trace is gzip, as simulate's is; an empty path is refused, not taken for no trace.
"$M" serve -s "$S" --rate 2 --requests 100 --trace "$tmp/trace.json.gz" >/dev/null 2>&1
if python3 -c "import gzip,json,sys; d=json.load(gzip.open(sys.argv[1])); assert any(e['ph']=='X' for e in d['traceEvents'])" "$tmp/trace.json.gz"; then pass; else fail serve_trace_gz; fi
# A prefill pool of another model hands over a KV cache the decode pool cannot read: refused.
sed 's/^kv_lora_rank = 512/kv_lora_rank = 256/' "$S" >"$tmp/prefill_other_model.toml"
check serve_prefill_other_model 2 "prefill_other_model.toml's model differs from" -- "$M" serve -s "$S" --rate 0.2 \
  --requests 20 --prefill-scenario "$tmp/prefill_other_model.toml" --prefill-replicas 1
# Each pool's GPUs in the header: a prefill pool on other GPUs (--prefill-scenario) says so.
sed 's/^gpu = .*/gpu = "GB200"/' "$S" >"$tmp/prefill_gb200.toml"
check serve_pool_gpus 0 "1 prefill replica x 1 GPU \\(GB200.* \\+ 2 decode replicas x 1 GPU \\(H800" -- "$M" serve -s "$S" --rate 0.2 --requests 20 --prefill-scenario "$tmp/prefill_gb200.toml" --prefill-replicas 1 --replicas 2
check serve_trace_empty 2 "^mhcsim: --trace: empty path" -- "$M" serve -s "$S" --rate 1 --trace ""
check serve_requests_file_empty 2 "^mhcsim: --requests-file: empty path" -- "$M" serve -s "$S" --requests-file ""

# A request file, CSV and JSONL.
printf 'arrival_s,input_tokens,output_tokens\n0,500,20\n0.1,700,30\n' >"$tmp/r.csv"
check serve_file 0 " 2 " -- "$M" serve -s "$S" --requests-file "$tmp/r.csv"
check serve_file_and_count 2 "^mhcsim: --requests: a request file has its own requests" -- \
  "$M" serve -s "$S" --requests-file "$tmp/r.csv" --requests 2
printf '{"arrival_s":0,"input_tokens":500,"output_tokens":20}\n' >"$tmp/r.jsonl"
check serve_jsonl 0 " 1 " -- "$M" serve -s "$S" --requests-file "$tmp/r.jsonl"
check_json serve_file_no_seed 'assert doc["inputs"]["seed"] is None, doc["inputs"]' -- serve -s "$S" --requests-file "$tmp/r.csv"
# A file's requests have their own lengths and arrivals: the flags that shape generated ones
# were taken and ignored.
for flag in "--input-tokens 100" "--output-tokens 5" "--lengths exponential" "--seed 7"; do
  check "serve_file_refuses_${flag%% *}" 2 "^mhcsim: ${flag%% *}: shapes generated requests; a request file has its own" -- \
    "$M" serve -s "$S" --requests-file "$tmp/r.csv" $flag
done

# Bad input: one line on stderr, exit 2, naming the flag or file:line.
one_line serve_rate_negative "$M" serve -s "$S" --rate -1
one_line serve_rate_zero "$M" serve -s "$S" --rate 0
one_line serve_rate_missing "$M" serve -s "$S"
one_line serve_slo_no_unit "$M" serve -s "$S" --rate 1 --slo-ttft 2
one_line serve_slo_negative "$M" serve -s "$S" --rate 1 --slo-tpot -50ms
one_line serve_max_rate_no_slo "$M" serve -s "$S" --rate 1 --max-rate
one_line serve_requests_zero "$M" serve -s "$S" --rate 1 --requests 0
one_line serve_target_rate_no_slo "$M" serve -s "$S" --target-rate 2000
one_line serve_target_rate_negative "$M" serve -s "$S" --target-rate -5 --slo-ttft 2s
check serve_target_rate_file 2 "^mhcsim: --target-rate: searches Poisson rates" -- "$M" serve -s "$S" --requests-file "$SRC/scenarios/deepseek_v3_serve.toml" --target-rate 5 --slo-ttft 2s
check serve_slo_names_flag 2 "^mhcsim: --slo-ttft: '2' has no unit" -- "$M" serve -s "$S" --rate 1 --slo-ttft 2
printf 'arrival_s,input_tokens,output_tokens\n0,500,20\n0.1,seven,30\n' >"$tmp/bad.csv"
one_line serve_bad_file "$M" serve -s "$S" --requests-file "$tmp/bad.csv"
check serve_bad_file_line 2 "bad.csv:3: input_tokens: 'seven' is not an integer" -- "$M" serve -s "$S" --requests-file "$tmp/bad.csv"
one_line serve_missing_file "$M" serve -s "$S" --requests-file "$tmp/none.csv"
check serve_split_no_target 2 "^mhcsim: --prefill-replicas: auto picks the split" -- "$M" serve -s "$S" --rate 1 --slo-ttft 2s --prefill-replicas auto --set workload.target_tokens_per_second=0
one_line serve_split_no_slo "$M" serve -s "$S" --target-rate 5 --prefill-replicas auto
check serve_jobs_range 2 "^mhcsim: --jobs: 5000 is too large .expected an integer <= 4096" -- "$M" serve -s "$S" --rate 1 --jobs 5000
check serve_split_word 2 "^mhcsim: --prefill-replicas: 'some' .expected a count >= 0, or auto" -- "$M" serve -s "$S" --rate 1 --prefill-replicas some
# Sizes past what the simulator resolves or holds: one line, exit 2, never an overflow or a
# run of weeks (1e-300 requests/s put arrivals where a 50 ms iteration rounds away).
check serve_rate_tiny 2 "^mhcsim: --rate: 1e-300 requests/s spreads 1000 requests over" -- "$M" serve -s "$S" --rate 1e-300
one_line serve_requests_huge "$M" serve -s "$S" --rate 1 --requests 1000000000000
one_line serve_replicas_huge "$M" serve -s "$S" --rate 1 --replicas 1000000000
check serve_target_huge 2 "^mhcsim: --target-rate: 1e\+300 per second needs" -- "$M" serve -s "$S" --requests 100 --slo-ttft 2s --target-rate 1e300
printf 'arrival_s,input_tokens,output_tokens\n0,500,20\n1e300,700,30\n' >"$tmp/late.csv"
check serve_file_late 2 "late.csv:3: arrival_s: 1e\+300 is not a time in" -- "$M" serve -s "$S" --requests-file "$tmp/late.csv"
one_line serve_kv_too_small "$M" serve -s "$S" --rate 1 --input-tokens 5000000
check serve_kv_names_scenario 2 "deepseek_v3_serve.toml: hardware.gpu: a request of 5000256 tokens needs" -- "$M" serve -s "$S" --rate 1 --input-tokens 5000000
# Disaggregated, the pool that cannot hold it is named: a 700k-token prompt fits a prefill replica,
# with its 100k-token answer it does not fit a decode one (the prefill pool was blamed).
check serve_kv_names_pool 2 "a request of 800000 tokens needs [0-9]+ KV blocks of 64 tokens; one decode replica holds" -- "$M" serve -s "$S" --prefill-replicas 1 --replicas 1 --rate 1 --input-tokens 700000 --output-tokens 100000
printf 'arrival_s,input_tokens,output_tokens\n0,500,20\n1,5000000,30\n' >"$tmp/huge.csv"
check serve_kv_names_line 2 "huge.csv:3: input_tokens: a request of" -- "$M" serve -s "$S" --requests-file "$tmp/huge.csv"
printf 'arrival_s,input_tokens,output_tokens\n0,500,20\n1,10,5000000\n' >"$tmp/long_output.csv"
check serve_kv_names_output 2 "long_output.csv:3: output_tokens: a request of" -- "$M" serve -s "$S" --requests-file "$tmp/long_output.csv"
summary cli_serve
