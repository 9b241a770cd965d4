#!/usr/bin/env bash
# Formats the tracked C++ and CUDA sources with the repository's .clang-format (clang-format,
# Debian's clang-format package). `--check`: change nothing, list the files that differ, exit 1
# if any do.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "format.sh: clang-format not found (apt-get install clang-format)" >&2; exit 2; }
mapfile -t files < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
if [[ "${1:-}" == "--check" ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! clang-format --style=file "$f" | cmp -s - "$f"; then echo "$f"; bad=1; fi
  done
  exit "$bad"
fi
clang-format --style=file -i "${files[@]}"
