#!/usr/bin/env bash
# The main job: install what is missing, build, and run mhcsim on the shipped default scenario
# (DeepSeek-V3 pre-training on 2048 H800): a what-if summary on the terminal and a
# capacity-planning report in out/report/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
cmake --preset default >/dev/null
cmake --build --preset default
M=build/default/cli/mhcsim
scenario=scenarios/deepseek_v3_train.toml
"$M" scenario -s "$scenario"
if "$M" --help | grep -qE '^ +step '; then "$M" step -s "$scenario"; fi
if "$M" --help | grep -qE '^ +report '; then
  "$M" report -s "$scenario" -o out/report --force
fi
