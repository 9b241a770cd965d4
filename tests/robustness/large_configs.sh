#!/usr/bin/env bash
# Byte counts at scale (issue 8): 16K-GPU, 1M-token configurations must not overflow. Runs the
# real binary with --json and checks every number is finite, the sizes are the ones asked for,
# and (for the verbs that report bytes) the result equals exact integer arithmetic in Python.
# Usage: large_configs.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fails=0; passes=0; skips=0
verbs=$("$M" --help 2>/dev/null)
verb_exists() { grep -qE "^ +$1( |\$)" <<<"$verbs"; }
# check NAME PYTHON_ASSERTS -- ARGS...: runs mhcsim ARGS --json, then the asserts with `d` = the
# document and `finite(d)` = every number in it is finite.
check() {
  local name=$1 asserts=$2; shift 3
  if ! verb_exists "$1"; then echo "SKIP $name: verb '$1' is not built"; skips=$((skips+1)); return; fi
  if ! "$M" "$@" --json >"$tmp/out.json" 2>"$tmp/err"; then
    echo "FAIL $name: exit code $?"; head -3 "$tmp/err"; fails=$((fails+1)); return
  fi
  if python3 - "$tmp/out.json" "$asserts" <<'EOF'
import json, math, sys
d = json.load(open(sys.argv[1]))
def numbers(x):
    if isinstance(x, dict): return [n for v in x.values() for n in numbers(v)]
    if isinstance(x, list): return [n for v in x for n in numbers(v)]
    return [x] if isinstance(x, (int, float)) and not isinstance(x, bool) else []
def finite(x): return all(math.isfinite(n) for n in numbers(x))
def find(x, key):  # first value of `key` anywhere in the document
    if isinstance(x, dict):
        if key in x: return x[key]
        x = list(x.values())
    if isinstance(x, list):
        for v in x:
            r = find(v, key)
            if r is not None: return r
    return None
exec(sys.argv[2])
EOF
  then passes=$((passes+1)); else echo "FAIL $name"; fails=$((fails+1)); fi
}

TRAIN="$SRC/scenarios/deepseek_v3_train.toml"
SERVE="$SRC/scenarios/deepseek_v3_serve.toml"
# 16384 GPUs = PP 16 x DP 1024; 1M-token sequences.
BIG_TRAIN=(-s "$TRAIN" --set hardware.gpus=16384 --set workload.seq_len=1048576)
# 16384 GPUs serving 1M-token contexts, EP 128 (16384 is not a multiple of the shipped EP 144).
BIG_SERVE=(-s "$SERVE" --set hardware.gpus=16384 --set parallel.ep=128 --set parallel.redundant_experts=0
           --set workload.context_len=1048576 --set workload.batch_seqs=128)

check scenario_16k_1m "assert finite(d); p=d['parallel']; assert d['hardware']['gpus']==16384 and p['dp']==1024 and p['pp']==16; assert d['workload']['seq_len']==1048576" -- \
  scenario "${BIG_TRAIN[@]}"
check scenario_serve_16k_1m "assert finite(d); assert d['hardware']['gpus']==16384 and d['parallel']['dp']==16384; assert d['workload']['context_len']==1048576" -- \
  scenario "${BIG_SERVE[@]}"

# KV cache of DeepSeek-V3 MLA at BF16: 70,272 B per token (DESIGN.md), so a 1M-token sequence
# is 70,272 x 2^20 B (past int32); the schema's largest context x batch is 70,272 x 2^32 x 2^24
# = 549 x 2^63 B (past int64), which must still come out exact in doubles.
check kv_16k_1m "assert finite(d); assert find(d, 'bytes_per_sequence') == 70272 * 2**20 and find(d, 'bytes_per_batch') == 70272 * 2**20 * 128, d[0]" -- \
  kv "${BIG_SERVE[@]}"
check kv_schema_max "assert finite(d); assert find(d, 'bytes_per_batch') == 549 * 2**63, find(d, 'bytes_per_batch')" -- \
  kv "${BIG_SERVE[@]}" --context 4294967296 --batch 16777216
check memory_16k_1m "assert finite(d); assert find(d, 'total_bytes') > 0 and find(d, 'activation_bytes') > 0" -- \
  memory "${BIG_TRAIN[@]}"

echo "large_configs: $passes passed, $fails failed, $skips skipped"
[[ $fails -eq 0 ]]
