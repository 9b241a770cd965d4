#!/usr/bin/env bash
# Builds everything and runs the whole test suite (CTest). With CI=true the build treats
# warnings as errors. GPU tests report "Skipped" on machines without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install_deps.sh
preset=default
[[ "${CI:-}" == "true" ]] && preset=ci
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset"
ctest --preset "$preset" -j2
