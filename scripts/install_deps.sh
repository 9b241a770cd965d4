#!/usr/bin/env bash
# Installs mhcsim's build and test dependencies from Debian packages (nothing is downloaded
# at build time). Idempotent: skips apt entirely when every package is already present.
# Set MHCSIM_WITH_BROWSER=1 to add headless Chromium (report rendering test) and
# MHCSIM_WITH_FUZZ=1 to add clang + its sanitizer/fuzzer runtime.
set -euo pipefail
pkgs=(cmake ninja-build g++ pkg-config
      libeigen3-dev libcli11-dev libfmt-dev catch2 libbenchmark-dev
      nlohmann-json3-dev rapidjson-dev libtomlplusplus-dev zlib1g-dev libre2-dev
      libopenmpi-dev openmpi-bin
      python3-dev pybind11-dev python3-pytest python3-jsonschema)
[[ "${MHCSIM_WITH_BROWSER:-0}" == 1 ]] && pkgs+=(chromium)
[[ "${MHCSIM_WITH_FUZZ:-0}" == 1 ]] && pkgs+=(clang libclang-rt-14-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install_deps: installing ${missing[*]}"
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
