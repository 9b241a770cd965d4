#!/usr/bin/env bash
# The calibrate verb through the real binary: no GPU and no --from is one line and exit 2; a
# SYNTHETIC benchmark file (tests/calib/data, generated, not measured) fits, reports and writes
# a profile that other verbs take with --calibration; bad inputs are one-line errors.
set -u
M="$1"; SRC="$2"
DATA="$SRC/tests/calib/data/synthetic_h200.json"
source "$SRC/tests/cli/check.sh"

# Without --from: no GPU -> "no GPU found"; with a GPU the empty --bench-dir is the error.
check no_input 2 "^mhcsim: (calibrate: no GPU found|--bench-dir: no .*mhcsim_kernel_bench)" -- \
  "$M" calibrate --bench-dir "$tmp/none" -o "$tmp/p.json"
one_line no_input_one_line "$M" calibrate --bench-dir "$tmp/none" -o "$tmp/p.json"
if ! command -v nvidia-smi >/dev/null; then
  check no_gpu_message 2 "no GPU found .* no --from given" -- "$M" calibrate -o "$tmp/p.json"
fi

check report 0 "median \|error\|" -- "$M" calibrate --from "$DATA" -o "$tmp/p.json" --report --check
check report_rows 0 "BM_mhc_sinkhorn_fwd/bytes:1048576/manual_time" -- "$M" calibrate --from "$DATA" -o "$tmp/p.json" --report --force
check target 0 "target .*met" -- "$M" calibrate --from "$DATA" -o "$tmp/p.json" --force
# The profile exists: replaced only with --force, and --force replaces only a profile mhcsim wrote.
check exists 2 "p.json' exists \(use --force to replace it\)" -- "$M" calibrate --from "$DATA" -o "$tmp/p.json"
echo '{"mine": true}' >"$tmp/mine.json"
check not_ours 2 "mine.json' was not written by mhcsim" -- "$M" calibrate --from "$DATA" -o "$tmp/mine.json" --force
grep -q mine "$tmp/mine.json" && pass || fail "not_ours: the file was replaced"
python3 - "$tmp/p.json" <<'PY' && pass || fail "profile content"
import json, sys
p = json.load(open(sys.argv[1]))
assert p["schema"] == "mhcsim.calibration" and p["schema_version"] == 1, p["schema"]
assert p["gpu_name"] == "NVIDIA H200" and p["catalog_gpu"] == "H200"
assert set(p["kernels"]) == {"hbm_copy", "mhc_post_res_fused", "mhc_sinkhorn_fwd"}, p["kernels"].keys()
assert "alltoall_intra" in p["collectives"] and 0.6 < p["gemm_efficiency"] < 0.8
assert len(p["residuals"]) == 44 and all("error_pct" in r for r in p["residuals"])
PY
"$M" calibrate --from "$DATA" -o "$tmp/q.json" --json > "$tmp/out.json" 2>/dev/null && \
  python3 -c "import json,sys; json.load(open(sys.argv[1]))['results']['kernels']['hbm_copy']" "$tmp/out.json" \
  && pass || fail "--json does not parse"

# Bad benchmark input: unknown kernel (file and benchmark named), malformed JSON.
sed 's/BM_mhc_sinkhorn_fwd/BM_flash_attn/g' "$DATA" > "$tmp/unknown.json"
check unknown_kernel 2 "unknown.json: BM_flash_attn/bytes:[0-9]+/manual_time: unknown kernel class" -- \
  "$M" calibrate --from "$tmp/unknown.json" -o "$tmp/u.json"
head -c 500 "$DATA" > "$tmp/truncated.json"
check malformed 2 "truncated.json: malformed JSON" -- "$M" calibrate --from "$tmp/truncated.json" -o "$tmp/t.json"
one_line malformed_one_line "$M" calibrate --from "$tmp/truncated.json" -o "$tmp/t.json"

# The profile on another verb: the H800 scenario warns that the profile is from an H200.
check attach_warns 0 "warning: calibration profile .* NVIDIA H200 .* another GPU" -- \
  "$M" scenario -s "$SRC/scenarios/deepseek_v3_train.toml" --calibration "$tmp/p.json"
check attach_says 0 "calibrated: .*p.json" -- \
  "$M" scenario -s "$SRC/scenarios/deepseek_v3_train.toml" --calibration "$tmp/p.json"
python3 -c "import json,sys; p=json.load(open(sys.argv[1])); p['schema_version']=99; json.dump(p, open(sys.argv[2],'w'))" \
  "$tmp/p.json" "$tmp/newer.json"
check newer_schema 2 "newer.json: schema_version: 99 is not supported" -- \
  "$M" scenario -s "$SRC/scenarios/deepseek_v3_train.toml" --calibration "$tmp/newer.json"

summary calib_cli
