#include "bench_util.h"

#include <cstdlib>
#include <string>

#include "mhcsim/kernels/cuda_check.h"
#include "mhcsim/kernels/device_buffer.h"

#ifdef MHCSIM_HAVE_NCCL
#include <nccl.h>
#endif

namespace mhcsim::kernels::bench {
namespace {

int device_attribute(cudaDeviceAttr attr) {
  int device = 0, value = 0;
  MHCSIM_CUDA_CHECK(cudaGetDevice(&device));
  MHCSIM_CUDA_CHECK(cudaDeviceGetAttribute(&value, attr, device));
  return value;
}

// Writing twice the L2 size evicts whatever the previous iteration left there.
class L2Flusher {
 public:
  L2Flusher() : buffer_(size_t(2) * size_t(device_attribute(cudaDevAttrL2CacheSize))) {}
  void flush() { buffer_.fill_bytes(0); }

 private:
  DeviceBuffer<char> buffer_;
};

class Event {
 public:
  Event() { MHCSIM_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  cudaEvent_t event_{};
};

std::string version_string(int code) {  // CUDA's 1000 major + 10 minor encoding
  return std::to_string(code / 1000) + "." + std::to_string(code % 1000 / 10);
}

}  // namespace

double hbm_peak_bytes_per_second() {
  if (const char* env = std::getenv("MHCSIM_HBM_PEAK_GBPS")) return std::atof(env) * 1e9;
  const double clock_hz = double(device_attribute(cudaDevAttrMemoryClockRate)) * 1e3;
  const double bus_bytes = double(device_attribute(cudaDevAttrGlobalMemoryBusWidth)) / 8.0;
  return clock_hz * 2.0 * bus_bytes;
}

void run_timed(benchmark::State& state, const std::function<void()>& launch, double bytes_per_launch,
               double flops_per_launch) {
  static L2Flusher flusher;
  Event start, stop;
  launch();  // warm-up: module load, first-touch, clocks
  MHCSIM_CUDA_CHECK(cudaDeviceSynchronize());
  double total_seconds = 0;
  for (auto _ : state) {
    flusher.flush();
    MHCSIM_CUDA_CHECK(cudaEventRecord(start.get()));
    launch();
    MHCSIM_CUDA_CHECK(cudaEventRecord(stop.get()));
    MHCSIM_CUDA_CHECK(cudaEventSynchronize(stop.get()));
    float ms = 0;
    MHCSIM_CUDA_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    state.SetIterationTime(double(ms) * 1e-3);
    total_seconds += double(ms) * 1e-3;
  }
  const double launches = double(state.iterations());
  state.SetBytesProcessed(static_cast<int64_t>(bytes_per_launch * launches));
  if (total_seconds <= 0) return;
  const double bytes_per_second = bytes_per_launch * launches / total_seconds;
  state.counters["GB/s"] = bytes_per_second / 1e9;
  state.counters["hbm_peak_fraction"] = bytes_per_second / hbm_peak_bytes_per_second();
  state.counters["model_bytes"] = bytes_per_launch;
  if (flops_per_launch > 0) state.counters["TFLOP/s"] = flops_per_launch * launches / total_seconds / 1e12;
}

bool add_gpu_context() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return false;
  cudaDeviceProp prop{};
  MHCSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0, runtime = 0;
  MHCSIM_CUDA_CHECK(cudaDriverGetVersion(&driver));
  MHCSIM_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  benchmark::AddCustomContext("gpu", prop.name);
  benchmark::AddCustomContext("gpu_sm", std::to_string(prop.major) + std::to_string(prop.minor));
  benchmark::AddCustomContext("gpu_sms", std::to_string(prop.multiProcessorCount));
  benchmark::AddCustomContext("gpu_memory_bytes", std::to_string(prop.totalGlobalMem));
  benchmark::AddCustomContext("cuda_driver", version_string(driver));
  benchmark::AddCustomContext("cuda_runtime", version_string(runtime));
#ifdef MHCSIM_HAVE_NCCL
  int nccl = 0;
  ncclGetVersion(&nccl);
  benchmark::AddCustomContext("nccl", std::to_string(nccl));
#endif
  const bool from_env = std::getenv("MHCSIM_HBM_PEAK_GBPS") != nullptr;
  benchmark::AddCustomContext("hbm_peak_GBps", std::to_string(hbm_peak_bytes_per_second() / 1e9) +
                                                   (from_env ? " (MHCSIM_HBM_PEAK_GBPS)" : " (clock x bus width)"));
  benchmark::AddCustomContext("timing", "CUDA events, L2 flushed (2x L2 memset) before each iteration, 1 warm-up");
  return true;
}

}  // namespace mhcsim::kernels::bench
