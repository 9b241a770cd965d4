#!/usr/bin/env bash
# `mhcsim validate` through the real binary: the shipped suite (scenarios/validation) runs and
# reports every case with finite numbers; bad input is one line with exit 2. No accuracy
# threshold here (--check on the shipped suite is the model owner's test).
set -u
M="$1"; SRC="$2"
source "$SRC/tests/cli/check.sh"
DIR="$SRC/scenarios/validation"
export MHCSIM_DATA_DIR="$SRC/scenarios"

# Every case file has rows, every number is finite, each row says held-out or not and its source.
cases=$(cd "$DIR" && ls *.toml | sort | tr '\n' ' ')
check_json validate_all "
import os
files = sorted({os.path.basename(r['file']) for r in d['rows']})
assert files == '$cases'.split(), (files, '$cases')
assert d['cases'] == len(files) and d['summary']['count'] == len(d['rows']) > 0, d['summary']
assert finite(d) and all(isinstance(r['held_out'], bool) and r['source'] for r in d['rows'])
assert all(r['published'] > 0 and r['predicted'] > 0 for r in d['rows'])
" -- validate
# The default folder is the shipped one; the table has units in its headers and the summary.
check validate_table 0 "delta \(%\).*held-out" -- "$M" validate --dir "$DIR"
check validate_summary 0 "median \|delta\| [0-9.]+ %, max \|delta\| [0-9.]+ %" -- "$M" validate
# Bad input: one line, exit 2.
one_line validate_check_malformed "$M" validate --check 10
one_line validate_check_words "$M" validate --check ten,25
one_line validate_no_dir "$M" validate --dir "$tmp/missing"
cp "$SRC/scenarios/llama3_70b_gqa.toml" "$tmp/no_published.toml"
one_line validate_no_published "$M" validate --dir "$tmp"
check validate_no_published_names_file 2 "no_published.toml" -- "$M" validate --dir "$tmp"
summary cli_validate
