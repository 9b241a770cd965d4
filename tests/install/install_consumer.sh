#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then a project outside the tree finds it with
# find_package(mhcsim), links mhcsim::cost and prices the installed default scenario; its step
# time must be the installed CLI's, which finds its scenarios in the prefix.
# Usage: install_consumer.sh CMAKE BUILD_DIR SOURCE_DIR GENERATOR CXX_COMPILER PYTHON [LINK_FLAGS|-]
set -euo pipefail
cmake=$1 build=$2 src=$3 generator=$4 cxx=$5 python=$6 link_flags=${7:--}
[[ "$link_flags" == - ]] && link_flags=""
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

"$cmake" --install "$build" --prefix "$prefix" > "$tmp/install.log"
for f in bin/mhcsim lib/cmake/mhcsim/mhcsimConfig.cmake lib/cmake/mhcsim/mhcsimConfigVersion.cmake \
         lib/cmake/mhcsim/mhcsimTargets.cmake include/mhcsim/cost/step.h include/mhcsim/version.h \
         share/mhcsim/scenarios/deepseek_v3_train.toml; do
  [[ -e $prefix/$f ]] || { echo "FAIL: $f not installed"; exit 1; }
done
# No header of the source tree may leak into the package: it must stand on its own.
if grep -q "$src" "$prefix"/lib/cmake/mhcsim/*.cmake; then
  echo "FAIL: the package refers to the source tree $src"; exit 1
fi

"$cmake" -S "$src/tests/install/consumer" -B "$tmp/consumer" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_EXE_LINKER_FLAGS="$link_flags" > "$tmp/configure.log" ||
  { cat "$tmp/configure.log"; exit 1; }
"$cmake" --build "$tmp/consumer" > "$tmp/build.log" || { cat "$tmp/build.log"; exit 1; }

# The installed CLI finds the installed scenarios by itself (no -s, no MHCSIM_DATA_DIR).
scenario=$prefix/share/mhcsim/scenarios/deepseek_v3_train.toml
cli() { env -u MHCSIM_DATA_DIR "$prefix/bin/mhcsim" "$@"; }
default=$(cli scenario --json | "$python" -c 'import json, sys; print(json.load(sys.stdin)["results"]["path"])')
[[ $default == "$scenario" ]] || { echo "FAIL: the installed CLI's default scenario is $default, not $scenario"; exit 1; }

got=$("$tmp/consumer/consumer" "$scenario")
want=$(cli step --json | "$python" -c 'import json, sys; print(repr(json.load(sys.stdin)["results"]["step_s"]))')
"$python" -c 'import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); sys.exit(0 if a == b and a > 0 else 1)' "$got" "$want" ||
  { echo "FAIL: consumer step $got s, installed CLI $want s"; exit 1; }
echo "ok: consumer built against $prefix, step $got s (the installed CLI's)"
