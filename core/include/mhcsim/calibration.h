#pragma once
// Fitted model parameters from measured benchmarks (mhcsim calibrate). The cost model uses
// them in place of datasheet peaks and default efficiencies when a scenario carries a profile;
// every fitted number records where it came from (ASTRA-sim's "max observed busbw" habit).
#include <map>
#include <optional>
#include <string>

namespace mhcsim {

// t = overhead_seconds + bytes / (bandwidth_gbps * 1e9)
struct BandwidthFit {
  double overhead_seconds = 0;
  double bandwidth_gbps = 0;
  int points = 0;               // measurements the fit used
  double median_error_pct = 0;  // |pred - meas| / meas over those points
  double max_error_pct = 0;
  std::string source;  // benchmark file / names it came from
};

// Alpha-beta for a collective: t = alpha_seconds * steps + bytes / (bus_gbps * 1e9)
struct CollectiveFit {
  double alpha_seconds = 0;
  double bus_gbps = 0;
  int points = 0;
  double median_error_pct = 0;
  double max_error_pct = 0;
  std::string source;
};

struct CalibrationProfile {
  int schema_version = 1;
  std::string path;         // file it was read from
  std::string gpu_name;     // e.g. "NVIDIA H200" as the driver reports it
  std::string catalog_gpu;  // matching catalog key, e.g. "H200"
  std::string driver_version;
  std::string cuda_version;
  std::string date;
  // Kernel classes: "hbm_copy", "mhc_post_res_fused", "mhc_post_res_unfused", "sinkhorn",
  // "mhc_coeff", "mla_decode", "moe_permute", ... (names of the kernels/bench benchmarks).
  std::map<std::string, BandwidthFit> kernels;
  // Collectives: "alltoall_intra", "alltoall_inter", "allreduce_intra", "allreduce_inter".
  std::map<std::string, CollectiveFit> collectives;
  // Plateau efficiency of the GEMM shape model (cost/gemm_model.h): what a large, well-shaped
  // GEMM reaches of the dense tensor peak before wave quantization and HBM terms.
  std::optional<double> gemm_efficiency;
};

}  // namespace mhcsim
