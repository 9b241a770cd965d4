#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (issue 8): preset
# `asan` (Debug, MHCSIM_SANITIZE=ON, no CUDA, no benchmarks). Any sanitizer report fails a test:
# UBSan does not recover (-fno-sanitize-recover) and ASan aborts on the first error.
set -euo pipefail
cd "$(dirname "$0")/.."
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:strict_string_checks=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
cmake --preset asan >/dev/null
cmake --build --preset asan -j"${SAN_BUILD_JOBS:-2}"
ctest --preset asan -j2
