#pragma once
// Shared GPU benchmark plumbing (DeepEP testing.py habits): L2 flush and a warm-up before
// timing, CUDA-event manual time, and counters derived from the cost model's byte/FLOP counts.
#include <benchmark/benchmark.h>
#include <cuda_runtime_api.h>

#include <functional>

namespace mhcsim::kernels::bench {

// Runs `launch` once to warm up, then per iteration flushes L2 (outside the timed range)
// and times the launch between two CUDA events. Sets the iteration times (UseManualTime)
// and the counters below.
void run_timed(benchmark::State& state, const std::function<void()>& launch, double bytes_per_launch,
               double flops_per_launch);

// HBM peak in bytes/s: MHCSIM_HBM_PEAK_GBPS if set (e.g. the catalog's 4800 for H200), else
// memory clock x 2 (DDR) x bus width from the device attributes.
double hbm_peak_bytes_per_second();

// AddCustomContext: GPU name, SMs, driver, runtime, NCCL versions and the HBM peak used.
// Returns false when no CUDA device is present.
bool add_gpu_context();

}  // namespace mhcsim::kernels::bench
