#!/usr/bin/env bash
# Drives invalid_inputs.table through the real binary: every row must exit with code 2 and print
# exactly one line on stderr matching its regex, nothing on stdout, and no sign of a crash.
# Usage: invalid_inputs.sh MHCSIM SOURCE_DIR
set -u
M="$1"; SRC="$2"
HERE="$SRC/tests/robustness"
source "$SRC/tests/cli/check.sh"
gen=$tmp

# Inputs derived from the shipped default scenario by one edit each, so every case is a real
# configuration with exactly one thing wrong.
base="$SRC/scenarios/deepseek_v3_train.toml"
edit() {  # edit OUT SED_EXPR: fail loudly if the edit did not change the file
  sed -E "$2" "$base" > "$gen/$1"
  if cmp -s "$base" "$gen/$1"; then echo "FAIL prepare $1: edit '$2' changed nothing"; fails=$((fails+1)); fi
}
head -c "$(grep -bo 'source = "DeepSeek' "$base" | head -1 | cut -d: -f1)" "$base" > "$gen/truncated.toml"
echo 'source = "DeepSeek-V3 Technical Rep' >> "$gen/truncated.toml"   # cut inside a string
sed -n '1,/^\[hardware\]/p' "$base" > "$gen/truncated_table.toml"  # cut after a table header
: > "$gen/empty.toml"
edit layers_string.toml 's/^layers = 61/layers = "61"/'
edit negative_hidden.toml 's/^hidden = 7168/hidden = -7168/'
edit nan_overlap.toml 's/^\[parallel\]/[parallel]\noverlap = nan/'
edit int64_overflow.toml 's/^seq_len = 4096/seq_len = 9223372036854775808/'
edit float_overflow.toml 's/^token_budget = [^ ]+/token_budget = 1e400/'
long_name="$gen/$(printf 'x%.0s' $(seq 1 300)).json"  # longer than NAME_MAX (255)

while IFS='|' read -r name class args pattern; do
  name=$(echo "$name" | xargs); class=$(echo "$class" | xargs)
  [[ -z "$name" || "$name" == \#* ]] && continue
  pattern=$(echo "$pattern" | sed -E 's/^ +| +$//g')
  args=${args//@GEN@/$gen}; args=${args//@IN@/$HERE/inputs}; args=${args//@SRC@/$SRC}
  args=${args//@LONGNAME@/$long_name}
  read -ra argv <<<"$args"
  if ! verb_exists "${argv[0]}"; then
    echo "SKIP $name ($class): verb '${argv[0]}' is not built"; skips=$((skips+1)); continue
  fi
  "$M" "${argv[@]}" >"$gen/out" 2>"$gen/err" </dev/null; rc=$?
  lines=$(grep -c '' "$gen/err")
  why=""
  if (( rc > 128 )); then why="killed by signal $((rc-128))"
  elif (( rc != 2 )); then why="exit code $rc (want 2)"
  elif grep -qE 'terminate called|Sanitizer|runtime error:' "$gen/err"; then why="crash report on stderr"
  elif (( lines != 1 )); then why="$lines lines on stderr (want 1)"
  elif [[ -s "$gen/out" ]]; then why="output on stdout"
  elif ! grep -qE -- "$pattern" "$gen/err"; then why="message does not match /$pattern/"
  fi
  if [[ -n "$why" ]]; then
    fail "$name ($class): $why"; head -c 600 "$gen/err" | head -5
  else
    pass
  fi
done < "$HERE/invalid_inputs.table"

summary invalid_inputs
