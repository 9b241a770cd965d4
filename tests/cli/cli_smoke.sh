#!/usr/bin/env bash
# CLI smoke tests: run the real binary the way a user does and check exit codes and messages.
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
check help 0 "hw" -- "$M" --help
check version 0 "^mhcsim [0-9]+\.[0-9]+" -- "$M" --version
check hw_table 0 "H800" -- "$M" hw
"$M" hw --json > "$tmp/hw.json" && python3 -c "import json,sys; d=json.load(open(sys.argv[1]))['results']['rows']; assert len(d)>=5 and all('hbm_gb_per_s' in e for e in d)" "$tmp/hw.json" \
  && pass || fail "hw --json does not parse"
sed 's/^layers = 61/layrs = 61/' "$SRC/scenarios/deepseek_v3_train.toml" > "$tmp/typo.toml"
check typo_key 2 "typo.toml:[0-9]+: model.layrs: unknown key" -- "$M" scenario -s "$tmp/typo.toml"
check bad_set 2 "^mhcsim: --set: parallel.pp: " -- "$M" scenario --set parallel.pp=abc
# The same key twice: the last one used to win without a word.
check twice_set 2 "^mhcsim: --set: parallel.pp is given twice \\(8, then 16\\): give it once" -- "$M" step --set parallel.pp=8 --set parallel.pp=16
# --hardware stands for hardware.catalog: both given ran the flag's.
check twice_catalog 2 "^mhcsim: --set: hardware.catalog is given twice" -- "$M" step --set "hardware.catalog=\"$SRC/scenarios/hardware/catalog.toml\"" --hardware "$SRC/scenarios/hardware/catalog.toml"
check missing_file 2 "cannot open scenario file" -- "$M" scenario -s "$tmp/none.toml"
check bad_flag 2 "" -- "$M" hw --no-such-flag
check no_verb 2 "" -- "$M"
summary cli_smoke
