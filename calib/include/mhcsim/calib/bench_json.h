#pragma once
// Google Benchmark JSON (--benchmark_out_format=json) as calibration input. Each iteration row
// becomes one Measurement: its kernel class, the name's `arg:value` pairs, the time per
// iteration and the bytes it moved (bytes_per_second x the time the rate was computed from).
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "mhcsim/calib/kernel_classes.h"

namespace mhcsim::calib {

// The custom context kernels/bench records (AddCustomContext) plus Google Benchmark's date.
struct BenchContext {
  std::string gpu_name;  // "NVIDIA H200" as the driver reports it
  std::string driver_version;
  std::string cuda_version;
  std::string nccl_version;
  std::string date;  // Google Benchmark's context.date
  std::string host_name;
};

struct Measurement {
  std::string file;  // benchmark JSON it came from
  std::string name;  // full benchmark name, e.g. BM_sinkhorn/n:4/tokens:4096/manual_time
  const KernelClass* kernel = nullptr;
  std::map<std::string, double> args;  // "n:4" in the name -> args["n"] = 4; counters too
  double seconds = 0;                  // real_time per iteration
  double bytes = 0;                    // bytes moved per iteration (0 when the row has no rate)
};

struct BenchFile {
  std::string path;
  BenchContext context;
  std::vector<Measurement> measurements;
  std::vector<std::string> skipped;  // rows with error_occurred, "name: message"
};

// Throws InputError naming the file (and the benchmark) for malformed JSON, missing fields, a
// benchmark from an unknown kernel class or a non-positive time.
BenchFile parse_benchmark_json(const std::string& text, const std::string& file_name);
BenchFile read_benchmark_file(const std::filesystem::path& path);

// Value of `key` among the args (name args first, then numeric counters); throws InputError
// naming the benchmark when absent.
double require_arg(const Measurement& m, const std::string& key);
double arg_or(const Measurement& m, const std::string& key, double fallback);

}  // namespace mhcsim::calib
