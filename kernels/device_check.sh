#!/usr/bin/env bash
# Issue 5 device check, for a machine with an NVIDIA GPU: configure, build the kernel targets,
# run the CPU-reference and GPU-vs-reference tests, every kernel benchmark and the NCCL probe
# over the local GPUs, writing Google Benchmark JSON and logs, then fit a calibration profile
# to that JSON (issue 6: `mhcsim calibrate --from ... --report`). Budget: well under 10 minutes
# (each stage has its own timeout).
#   kernels/device_check.sh [OUT_DIR]     default: $OUT, else reports/measured/<UTC date>/
# Env: MHCSIM_HBM_PEAK_GBPS (else taken from scenarios/hardware/catalog.toml by GPU name),
#      MHCSIM_BUILD_DIR (default build/device-check), BENCH_MIN_TIME (default 0.1 s).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-${OUT:-$root/reports/measured/$(date -u +%Y-%m-%d)}}
mkdir -p "$out"
build=${MHCSIM_BUILD_DIR:-$root/build/device-check}
log() { echo "[device_check $(date -u +%H:%M:%S)] $*" | tee -a "$out/device_check.log"; }
status=0
stage() {  # stage NAME RC: record, and fail the script on anything but 0 (77 = skipped)
  log "$1: exit $2"
  echo "$1 $2" >> "$out/stages.txt"
  if [ "$2" != 0 ]; then status=1; fi
}
: > "$out/stages.txt"

nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || log "nvidia-smi failed (no driver?)"
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
log "GPU: ${gpu_name:-none}, count ${ngpu:-0}"

# HBM peak for the fraction-of-peak counter: the catalog's datasheet value for this GPU.
if [ -z "${MHCSIM_HBM_PEAK_GBPS:-}" ]; then
  for key in H100 H800 H200 B200 A100; do
    case "$gpu_name" in *"$key"*)
      MHCSIM_HBM_PEAK_GBPS=$(awk -v s="[gpu.$key]" '$0==s{f=1;next} /^\[/{f=0} f&&$1=="hbm_gb_per_s"{print $3}' \
        "$root/scenarios/hardware/catalog.toml")
      break;;
    esac
  done
fi
if [ -n "${MHCSIM_HBM_PEAK_GBPS:-}" ]; then export MHCSIM_HBM_PEAK_GBPS; log "HBM peak ${MHCSIM_HBM_PEAK_GBPS} GB/s (catalog or env)"; fi

gen="Unix Makefiles"; command -v ninja > /dev/null && gen=Ninja
timeout 120 cmake -S "$root" -B "$build" -G "$gen" -DCMAKE_BUILD_TYPE=Release -DMHCSIM_BUILD_TESTS=ON \
  -DMHCSIM_BUILD_BENCH=ON > "$out/configure.log" 2>&1
stage configure $?
timeout 330 cmake --build "$build" -j"$(nproc)" --target test_kernels_ref test_kernels_gpu mhcsim_kernel_bench \
  mhcsim_nccl_bench mhcsim > "$out/build.log" 2>&1
stage build $?

timeout 60 "$build/tests/kernels/test_kernels_ref" > "$out/test_kernels_ref.txt" 2>&1
stage test_kernels_ref $?
timeout 120 "$build/tests/kernels/test_kernels_gpu" > "$out/test_kernels_gpu.txt" 2>&1
stage test_kernels_gpu $?   # 77: no device seen by the CUDA runtime

timeout 240 "$build/kernels/bench/mhcsim_kernel_bench" --benchmark_min_time="${BENCH_MIN_TIME:-0.1}" \
  --benchmark_out="$out/kernels_bench.json" --benchmark_out_format=json > "$out/kernels_bench.txt" 2>&1
stage kernels_bench $?

if [ "${ngpu:-0}" -ge 1 ]; then
  as_root=(); [ "$(id -u)" = 0 ] && as_root=(--allow-run-as-root)
  timeout 120 mpirun "${as_root[@]}" --oversubscribe -np "$ngpu" "$build/kernels/bench/mhcsim_nccl_bench" \
    -b 1M -e 1G -f 4 -n 20 -w 5 -c 1 --json "$out/nccl_bench.json" > "$out/nccl_bench.txt" 2>&1
  stage nccl_bench $?
fi

if command -v python3 > /dev/null && [ -s "$out/kernels_bench.json" ]; then
  python3 "$root/kernels/bench/summarise_bench.py" "$out/kernels_bench.json" > "$out/measured.md"
  stage summarise $?
fi
# Calibration from what was just measured: the profile, and predicted vs measured per point.
if [ -s "$out/kernels_bench.json" ]; then
  from=(--from "$out/kernels_bench.json")
  # A collective needs 2 ranks: on one GPU the NCCL rows are a local copy, not fitted.
  [ "${ngpu:-0}" -ge 2 ] && [ -s "$out/nccl_bench.json" ] && from+=(--from "$out/nccl_bench.json")
  timeout 60 "$build/cli/mhcsim" calibrate "${from[@]}" -o "$out/calibration.json" --report \
    > "$out/calibration_report.txt" 2>&1
  stage calibrate $?
fi
log "done: results in $out (status $status)"
exit $status
