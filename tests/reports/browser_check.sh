#!/usr/bin/env bash
# Loads an HTML report in headless Chromium and checks that it renders: no console or page
# errors, no resource fetched (the report is self-contained), and every plot
# (svg.mhcsim-plot) laid out with a non-zero size. Keeps a full-page screenshot.
#   browser_check.sh CHROMIUM REPORT.html SCREENSHOT.png
set -euo pipefail
chromium=$1 html=$2 png=$3
[[ -f "$html" ]] || { echo "browser_check: no report at $html" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
       --disable-background-networking --disable-component-update --disable-sync
       --hide-scrollbars --enable-logging=stderr --v=0)

# A copy of the report with a probe appended (the HTML parser moves content after </html>
# into <body>): it measures every plot, which forces layout, and writes the verdict into the
# DOM that --dump-dom prints.
probe='<script>(function(){var p=document.querySelectorAll("svg.mhcsim-plot"),bad=[];
p.forEach(function(s,i){var r=s.getBoundingClientRect();if(!(r.width>0&&r.height>0))bad.push(i);});
var res=performance.getEntriesByType("resource").map(function(e){return e.name;});
var d=document.createElement("pre");d.id="mhcsim-check";
d.textContent="mhcsim-check plots="+p.length+" zero_size="+bad.length+" resources="+res.length+" "+res.join(" ");
document.body.appendChild(d);console.log("mhcsim-check-probe-ran");})();</script>'
{ cat "$html"; printf '%s\n' "$probe"; } > "$work/check.html"

timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$work/profile1" --dump-dom \
  "file://$work/check.html" > "$work/dom.html" 2> "$work/console.log" || {
  echo "browser_check: chromium failed"; cat "$work/console.log"; exit 1; }

fail=0
verdict=$(grep -oE 'mhcsim-check plots=[0-9]+ zero_size=[0-9]+ resources=[0-9]+[^<]*' "$work/dom.html" || true)
echo "browser_check: $verdict"
expected=$(grep -o '<svg [^>]*class="mhcsim-plot"' "$html" | wc -l)
[[ -n "$verdict" ]] || { echo "browser_check: the probe did not run"; fail=1; }
[[ "$verdict" == *"plots=$expected zero_size=0 resources=0 "* ]] || {
  echo "browser_check: expected $expected plots, all non-zero, no resources"; fail=1; }
(( expected > 0 )) || { echo "browser_check: the report has no plots"; fail=1; }
# Console lines from the page, other than the probe's own marker, are errors; so is any
# uncaught exception or failed load.
grep -q 'mhcsim-check-probe-ran' "$work/console.log" || {
  echo "browser_check: console capture saw no probe message"; fail=1; }
if grep -E 'CONSOLE|Uncaught|Failed to load' "$work/console.log" | grep -v 'mhcsim-check-probe-ran'; then
  echo "browser_check: console or page errors above"; fail=1
fi

mkdir -p "$(dirname "$png")"
timeout 120 "$chromium" "${flags[@]}" --user-data-dir="$work/profile2" --window-size=1280,4000 \
  --screenshot="$png" "file://$(realpath "$html")" 2>> "$work/console.log" >/dev/null || {
  echo "browser_check: screenshot failed"; fail=1; }
[[ -s "$png" ]] && echo "browser_check: screenshot $png ($(stat -c %s "$png") bytes)"
exit $fail
