# Shared by the shell tests that drive the real binary (tests/**/*.sh): source it after setting
# M (the mhcsim binary). Gives pass/fail/skip counters, a scratch dir $tmp removed on exit, the
# checks below and `summary NAME`, whose status is the script's result.
fails=0; passes=0; skips=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
pass() { passes=$((passes+1)); }
fail() { echo "FAIL $*"; fails=$((fails+1)); }

check() {  # check NAME EXPECTED_RC PATTERN -- CMD...: exit code and a grep -E match on stdout+stderr
  local name=$1 want=$2 pat=$3; shift 4
  local out rc
  out=$("$@" 2>&1); rc=$?
  if [[ $rc -ne $want ]] || ! grep -qE -- "$pat" <<<"$out"; then
    fail "$name: rc=$rc (want $want), output:"; echo "$out" | head -8
  else pass; fi
}

one_line() {  # one_line NAME CMD...: the error is exactly one line on stderr, exit 2
  local name=$1; shift
  local err rc
  err=$("$@" 2>&1 >/dev/null); rc=$?
  # A long run's progress lines ("search: 28% (201216/716736 points) after 10 s", every 10 s when
  # stderr is not a terminal) are not the error: a sanitized search takes that long.
  err=$(grep -v -E '^[a-z][a-z -]*: [0-9]+% \(' <<<"$err")
  if [[ $rc -ne 2 || $(wc -l <<<"$err") -ne 1 ]]; then
    fail "$name: rc=$rc, stderr:"; echo "$err" | head -5
  else pass; fi
}

# Limits for a run of the real binary that must not crash, hang or grow without bound: 5 s and
# 1 GiB of address space. AddressSanitizer reserves ~15 TiB of shadow address space at start, so
# a sanitized build (MHCSIM_SANITIZED=1, set by CMake on these tests) is bounded by ASan's own
# resident-set check instead (hard_rss_limit_mb, which aborts with a report the callers catch),
# with 12x the time for the Debug build (its nlohmann parses run ~10x slower than Release).
if [[ ${MHCSIM_SANITIZED:-0} == 1 ]]; then
  kBoundSeconds=60
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=1024"
  bound_memory() { :; }
else
  kBoundSeconds=5
  bound_memory() { ulimit -v 1048576; }
fi
# run_bounded ARGS...: mhcsim within those limits, stdin closed; stdout in $tmp/out, stderr in
# $tmp/err, exit code in $rc (124: out of time).
run_bounded() {
  ( bound_memory; exec timeout "$kBoundSeconds" "$M" "$@" ) >"$tmp/out" 2>"$tmp/err" </dev/null
  rc=$?
}

verb_exists() {  # verb_exists VERB: mhcsim --help lists it (read once)
  [[ -n ${verbs_help-} ]] || verbs_help=$("$M" --help 2>/dev/null)
  grep -qE "^ +$1( |\$)" <<<"$verbs_help"
}

# check_json NAME PYTHON_ASSERTS -- VERB ARGS...: runs `mhcsim VERB ARGS --json`, then the asserts
# with `doc` = the document, `d` = its results (api/document.h), `finite(d)` = every number in it is finite and `find(d, key)` = the
# first value of key anywhere in it. Skipped when VERB is not built. The exit code must be 0, or
# $want_rc when set (`want_rc=3 check_json ...` for a configuration that does not fit).
check_json() {
  local name=$1 asserts=$2 rc; shift 3
  if ! verb_exists "$1"; then echo "SKIP $name: verb '$1' is not built"; skips=$((skips+1)); return; fi
  "$M" "$@" --json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
  if ((rc != ${want_rc:-0})); then
    fail "$name: exit code $rc (want ${want_rc:-0})"; head -3 "$tmp/err"; return
  fi
  if python3 - "$tmp/out.json" "$asserts" <<'PY'
import json, math, sys
doc = json.load(open(sys.argv[1]))
d = doc["results"]
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
PY
  then pass; else fail "$name"; head -c 1500 "$tmp/out.json"; echo; fi
}

summary() {  # summary NAME: the counts; returns non-zero when a check failed
  echo "$1: $passes passed, $fails failed$( ((skips)) && echo ", $skips skipped")"
  [[ $fails -eq 0 ]]
}
