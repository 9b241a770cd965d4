#pragma once
// SYNTHETIC benchmark JSON for the calibration tests: rows generated from known parameters
// plus seeded noise, in Google Benchmark's output format. Not measurements.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mhcsim::calib::test {

struct SyntheticRow {
  std::string name;  // full benchmark name, e.g. "BM_hbm_copy/bytes:1048576/manual_time"
  double seconds = 0;
  double bytes = 0;  // per iteration; 0 = no bytes_per_second
};

inline nlohmann::json synthetic_context(const std::string& gpu = "NVIDIA H200") {
  return {{"date", "2026-12-02T00:00:00+00:00"},
          {"host_name", "synthetic"},
          {"gpu_name", gpu},
          {"driver_version", "000.00"},
          {"cuda_version", "0.0"},
          {"note", "SYNTHETIC test data, not a measurement"}};
}

inline nlohmann::json synthetic_doc(const std::vector<SyntheticRow>& rows, const std::string& gpu = "NVIDIA H200") {
  nlohmann::json benchmarks = nlohmann::json::array();
  for (const auto& r : rows) {
    nlohmann::json row = {{"name", r.name},    {"run_name", r.name},           {"run_type", "iteration"},
                          {"iterations", 100}, {"real_time", r.seconds * 1e6}, {"cpu_time", r.seconds * 1e6 * 0.1},
                          {"time_unit", "us"}};
    if (r.bytes > 0) row["bytes_per_second"] = r.bytes / r.seconds;
    benchmarks.push_back(row);
  }
  return {{"context", synthetic_context(gpu)}, {"benchmarks", benchmarks}};
}

// Geometric sizes from `lo` to `hi` (inclusive), `count` of them.
inline std::vector<double> geometric_sizes(double lo, double hi, int count) {
  std::vector<double> sizes;
  for (int i = 0; i < count; ++i) sizes.push_back(std::round(lo * std::pow(hi / lo, double(i) / double(count - 1))));
  return sizes;
}

// Multiplicative Gaussian noise, seeded so every run sees the same data.
class Noise {
 public:
  Noise(double rel_sigma, unsigned seed) : gen_(seed), dist_(0.0, rel_sigma) {}
  double operator()(double v) { return v * (1.0 + dist_(gen_)); }

 private:
  std::mt19937 gen_;
  std::normal_distribution<double> dist_;
};

}  // namespace mhcsim::calib::test
