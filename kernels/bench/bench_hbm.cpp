// HBM probes: the measured ceiling the memory-bound kernels are compared with. Their byte
// counts are the probe's definition (copy: read + write each byte; read: each byte once).
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/hbm_probe.h"

namespace mhcsim::kernels::bench {
namespace {

void BM_hbm_copy(benchmark::State& state) {
  const int64_t bytes = state.range(0) << 20;
  DeviceBuffer<char> src(static_cast<size_t>(bytes)), dst(static_cast<size_t>(bytes));
  src.fill_bytes(1);
  run_timed(
      state, [&] { hbm_copy(dst.data(), src.data(), bytes, nullptr); }, 2.0 * double(bytes), 0);
}

void BM_hbm_memcpy_d2d(benchmark::State& state) {
  const int64_t bytes = state.range(0) << 20;
  DeviceBuffer<char> src(static_cast<size_t>(bytes)), dst(static_cast<size_t>(bytes));
  src.fill_bytes(1);
  run_timed(
      state,
      [&] { MHCSIM_CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), size_t(bytes), cudaMemcpyDeviceToDevice)); },
      2.0 * double(bytes), 0);
}

void BM_hbm_read(benchmark::State& state) {
  const int64_t bytes = state.range(0) << 20;
  DeviceBuffer<char> src(static_cast<size_t>(bytes));
  DeviceBuffer<float> partial(size_t(hbm_read_partials(bytes)));
  src.fill_bytes(0);
  run_timed(
      state, [&] { hbm_read(partial.data(), src.data(), bytes, nullptr); }, double(bytes), 0);
}

BENCHMARK(BM_hbm_copy)->ArgNames({"MiB"})->Arg(256)->Arg(2048)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hbm_memcpy_d2d)->ArgNames({"MiB"})->Arg(2048)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_hbm_read)->ArgNames({"MiB"})->Arg(256)->Arg(2048)->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mhcsim::kernels::bench
