#!/usr/bin/env bash
# Byte counts at scale (issue 8): 16K-GPU, 1M-token configurations must not overflow. Runs the
# real binary with --json and checks every number is finite, the sizes are the ones asked for,
# and (for the verbs that report bytes) the result equals exact integer arithmetic in Python.
# Usage: large_configs.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"

TRAIN="$SRC/scenarios/deepseek_v3_train.toml"
SERVE="$SRC/scenarios/deepseek_v3_serve.toml"
# 16384 GPUs = PP 16 x DP 1024; 1M-token sequences.
BIG_TRAIN=(-s "$TRAIN" --set hardware.gpus=16384 --set workload.seq_len=1048576)
# 16384 GPUs serving 1M-token contexts, EP 128 (16384 is not a multiple of the shipped EP 144).
BIG_SERVE=(-s "$SERVE" --set hardware.gpus=16384 --set parallel.ep=128 --set parallel.redundant_experts=0
           --set workload.context_len=1048576 --set workload.batch_seqs=128)

check_json scenario_16k_1m "assert finite(d); p=d['parallel']; assert d['hardware']['gpus']==16384 and p['dp']==1024 and p['pp']==16; assert d['workload']['seq_len']==1048576" -- \
  scenario "${BIG_TRAIN[@]}"
check_json scenario_serve_16k_1m "assert finite(d); assert d['hardware']['gpus']==16384 and d['parallel']['dp']==16384; assert d['workload']['context_len']==1048576" -- \
  scenario "${BIG_SERVE[@]}"

# KV cache of DeepSeek-V3 MLA at BF16: 70,272 B per token (DESIGN.md), so a 1M-token sequence
# is 70,272 x 2^20 B (past int32); the schema's largest context x batch is 70,272 x 2^32 x 2^24
# = 549 x 2^63 B (past int64), which must still come out exact in doubles.
check_json kv_16k_1m "assert finite(d); assert find(d, 'bytes_per_sequence') == 70272 * 2**20 and find(d, 'bytes_per_batch') == 70272 * 2**20 * 128, d[0]" -- \
  kv "${BIG_SERVE[@]}"
check_json kv_schema_max "assert finite(d); assert find(d, 'bytes_per_batch') == 549 * 2**63, find(d, 'bytes_per_batch')" -- \
  kv "${BIG_SERVE[@]}" --context 4294967296 --batch 16777216
# 1M-token activations do not fit 80 GiB: printed all the same, then exit code 3 (does not fit).
want_rc=3 check_json memory_16k_1m "assert finite(d); assert find(d, 'total_bytes') > 0 and find(d, 'activation_bytes') > 0" -- \
  memory "${BIG_TRAIN[@]}"

summary large_configs
