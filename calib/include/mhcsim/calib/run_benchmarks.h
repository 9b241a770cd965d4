#pragma once
// calibrate without --from: run the kernels/bench binaries on the local GPU(s), as
// kernels/device_check.sh does, and collect their JSON. Only on a machine with a GPU.
#include <filesystem>
#include <string>
#include <vector>

namespace mhcsim::calib {

// GPU names nvidia-smi lists, one per device; empty when there is none (or no driver).
std::vector<std::string> detect_gpus();

struct BenchRun {
  std::vector<std::filesystem::path> files;  // benchmark JSON written
  std::vector<std::string> notes;            // what was not run and why
};

// Runs <bench_dir>/mhcsim_kernel_bench (Google Benchmark, --benchmark_out JSON) and, with two
// or more GPUs and mpirun, <bench_dir>/mhcsim_nccl_bench over them (--json). Writes into
// `out_dir`. Throws InputError when mhcsim_kernel_bench is missing, runtime_error when a
// benchmark fails (its status and command named).
BenchRun run_kernel_benchmarks(const std::filesystem::path& bench_dir, const std::filesystem::path& out_dir, int gpus);

}  // namespace mhcsim::calib
