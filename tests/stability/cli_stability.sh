#!/usr/bin/env bash
# `mhcsim stability` (issue 19) through the binary: the table and --json on the shipped mHC
# scenario, mappings files (JSON and .npy) read and projected, malformed files and bad flags
# refused with one line and exit 2, and the work bound.
M=$1; ROOT=$2
source "$(dirname "$0")/../cli/check.sh"
S=$ROOT/scenarios/mhc_27b_h100.toml

check table 0 "^ +HC +- +- " -- "$M" stability -s "$S" --samples 200
check table_mhc 0 "^ +mHC +20 +bf16 " -- "$M" stability -s "$S" --samples 200
check depth_table 0 "depth \(mappings\)" -- "$M" stability -s "$S" --samples 200

check_json json '
v = d["variants"]
assert d["n"] == 4 and d["depth_mappings"] == 60 and d["samples"] == 200, d
assert len(v) == 1 + 2 * 5, [x["mapping"] for x in v]          # HC; fp32 and bf16 at 1,3,5,10,20
assert all(len(x["curve"]["forward_gain_median"]) == 60 for x in v)
hc = v[0]; fp32 = [x for x in v if x["precision"] == "fp32" and x["sinkhorn_iters"] == 20][0]
assert hc["mapping"] == "HC" and hc["gain_median"] > 100, hc["gain_median"]
assert fp32["gain_max"] < 1.6, fp32["gain_max"]
c = hc["curve"]["backward_gain_median"]; assert c[-1] > c[0], c
assert finite(d)
' -- stability -s "$S" --samples 200

check_json json_iters '
v = d["variants"]
assert [x["sinkhorn_iters"] for x in v[1:]] == [2, 2, 7, 7], v
' -- stability -s "$S" --samples 50 --sinkhorn-iters 7,2

# Mappings files: what mHC's projection makes of an HC model's matrices.
python3 - "$tmp" <<'PY'
import json, struct, sys
d = sys.argv[1]
mats = [[[1.0 + 0.3 * ((i * 7 + j * 3 + l) % 5 - 2) / 2 if i == j else 0.3 * ((i + 2 * j + l) % 5 - 2) / 2
          for j in range(4)] for i in range(4)] for l in range(60)]
json.dump(mats, open(d + "/good.json", "w"))
bad = json.loads(json.dumps(mats)); bad[3][1][2] = "x"; json.dump(bad, open(d + "/bad.json", "w"))
ragged = json.loads(json.dumps(mats)); ragged[5][2] = [1, 2]; json.dump(ragged, open(d + "/ragged.json", "w"))
open(d + "/broken.json", "w").write("[[[1, 2], [3, 4]]")
def npy(path, descr, shape, values, fmt):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(values), fmt), *values))
flat = [x for m in mats for r in m for x in r]
npy(d + "/good.npy", "<f4", "(60, 4, 4)", flat, "f")
nan = list(flat); nan[17] = float("nan")
npy(d + "/nan.npy", "<f8", "(60, 4, 4)", nan, "d")
npy(d + "/short.npy", "<f8", "(60, 4, 4)", flat[:100], "d")
PY
check_json json_file '
v = d["variants"]
assert d["source"] == "file" and d["samples"] == 1 and d["depth_mappings"] == 60 and d["n"] == 4, d
assert v[0]["gain_median"] == v[0]["gain_max"]
assert all(x["gain_max"] < 1.6 for x in v if x["precision"] == "fp32" and x["sinkhorn_iters"] >= 5), v
' -- stability -s "$S" --mappings "$tmp/good.json"
check npy 0 "good.npy \(60 mappings, n = 4\)" -- "$M" stability -s "$S" --mappings "$tmp/good.npy"

check bad_element 2 "bad.json: element \[3\]\[1\]\[2\]: expected a number, got string" -- "$M" stability -s "$S" --mappings "$tmp/bad.json"
check ragged 2 "ragged.json: element \[5\]\[2\]: 2 values, expected 4" -- "$M" stability -s "$S" --mappings "$tmp/ragged.json"
check broken 2 "broken.json: malformed JSON: parse error at line 1, column 18" -- "$M" stability -s "$S" --mappings "$tmp/broken.json"
python3 -c 'import sys; sys.stdout.write("[" * (8 << 20))' > "$tmp/deep.json"  # 8 MiB of '['
run_bounded stability -s "$S" --mappings "$tmp/deep.json"  # refused as it opens, not after ~600 MB
[[ $rc -eq 2 ]] && grep -q "deep.json: nesting deeper than 64 levels" "$tmp/err" && pass || fail "deep: rc=$rc, $(head -c 200 "$tmp/err")"
check npy_nan 2 "nan.npy: element \[1\]\[0\]\[1\]: nan is not a finite number" -- "$M" stability -s "$S" --mappings "$tmp/nan.npy"
check npy_short 2 "short.npy: data: 800 bytes, expected 7680" -- "$M" stability -s "$S" --mappings "$tmp/short.npy"
check missing 2 "nothere.json" -- "$M" stability -s "$S" --mappings "$tmp/nothere.json"
check directory 2 "not a regular file|directory" -- "$M" stability -s "$S" --mappings "$tmp"
for f in bad ragged broken; do one_line "one_line_$f" "$M" stability -s "$S" --mappings "$tmp/$f.json"; done
one_line one_line_nan "$M" stability -s "$S" --mappings "$tmp/nan.npy"

# Flags: ranges, exclusions, the work bound; each one line, exit 2.
check samples_zero 2 "--samples" -- "$M" stability -s "$S" --samples 0
check iters_zero 2 "out of range" -- "$M" stability -s "$S" --sinkhorn-iters 1,0
check iters_empty 2 "empty value" -- "$M" stability -s "$S" --sinkhorn-iters 1,,2
check iters_twice 2 "3 given twice" -- "$M" stability -s "$S" --sinkhorn-iters 3,3
check iters_not_decimal 2 "not a decimal integer" -- "$M" stability -s "$S" --sinkhorn-iters 1_000
check noise_negative 2 "out of range" -- "$M" stability -s "$S" --noise -1
check noise_nan 2 "not a finite number" -- "$M" stability -s "$S" --noise nan
check n_range 2 "out of range" -- "$M" stability -s "$S" --n 65
check excludes 2 "excludes" -- "$M" stability -s "$S" --mappings "$tmp/good.json" --n 4
check bound 2 "over the limit" -- "$M" stability -s "$S" --samples 1000000 --layers 100
check bound_ops 2 "element operations, over the limit" -- "$M" stability -s "$S" --samples 1000 --n 64 --layers 300 --sinkhorn-iters 1000
one_line one_line_bound "$M" stability -s "$S" --samples 1000000 --layers 100
run_bounded stability -s "$S" --samples 1000000 --layers 100
[[ $rc -eq 2 ]] && pass || fail "bound within ${kBoundSeconds}s: rc=$rc"

summary cli_stability
