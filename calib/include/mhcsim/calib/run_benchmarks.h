#pragma once
// calibrate without --from: run the kernels/bench Google Benchmark binaries on the local GPU(s)
// and collect their JSON (--benchmark_out). Only on a machine with a GPU.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mhcsim::calib {

// The first GPU nvidia-smi lists, or nullopt when there is none (or no driver).
std::optional<std::string> detect_gpu();

// Runs every executable in `bench_dir`, each writing <out_dir>/<name>.json; returns those
// files. Throws InputError when the directory holds no benchmark binaries, runtime_error when
// one fails (its exit code and command named).
std::vector<std::filesystem::path> run_kernel_benchmarks(const std::filesystem::path& bench_dir,
                                                         const std::filesystem::path& out_dir);

}  // namespace mhcsim::calib
