#!/usr/bin/env bash
# CLI smoke tests: run the real binary the way a user does and check exit codes and messages.
set -u
M="$1"; SRC="$2"
fails=0; passes=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
check() {  # check NAME EXPECTED_RC PATTERN -- CMD...
  local name=$1 want=$2 pat=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]] || ! grep -qE -- "$pat" <<<"$out"; then
    echo "FAIL $name: rc=$rc (want $want), output:"; echo "$out" | head -5; fails=$((fails+1))
  else passes=$((passes+1)); fi
}
check help 0 "hw" -- "$M" --help
check version 0 "^mhcsim [0-9]+\.[0-9]+" -- "$M" --version
check hw_table 0 "H800" -- "$M" hw
"$M" hw --json > "$tmp/hw.json" && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d)>=5 and all('hbm_gbps' in e for e in d)" "$tmp/hw.json" \
  && passes=$((passes+1)) || { echo "FAIL hw --json does not parse"; fails=$((fails+1)); }
sed 's/^layers = 61/layrs = 61/' "$SRC/scenarios/deepseek_v3_train.toml" > "$tmp/typo.toml"
check typo_key 2 "typo.toml:[0-9]+: model.layrs: unknown key" -- "$M" scenario -s "$tmp/typo.toml"
check bad_set 2 "^mhcsim: --set: parallel.pp: " -- "$M" scenario --set parallel.pp=abc
check missing_file 2 "cannot open scenario file" -- "$M" scenario -s "$tmp/none.toml"
check bad_flag 2 "" -- "$M" hw --no-such-flag
check no_verb 2 "" -- "$M"
echo "cli_smoke: $passes passed, $fails failed"
[[ $fails -eq 0 ]]
