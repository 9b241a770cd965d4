#pragma once
// Fit the model's free parameters to benchmark measurements (issue 6):
//   kernels      t = t0 + bytes / bw                          per kernel class
//   collectives  t = alpha x steps + bus_bytes / bus_bw       per op, intra/inter node, and
//                                                             message-size range
//   GEMM         t = max(mainloop1 / e, operands) + epilogue  the plateau efficiency e of the
//                    + launch                                  cost model's shape model
//                                                              (cost/gemm_model.h), one over the
//                                                              shapes
// Every fit is robust (robust_fit.h); a class that cannot be fitted is an error, never a guess.
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/calib/bench_json.h"
#include "mhcsim/calibration.h"

namespace mhcsim::calib {

// One measured point and what the fitted profile predicts for it.
struct PointResult {
  std::string file;
  std::string benchmark;
  std::string fit_key;  // profile key: "hbm_copy", "alltoall_intra", "gemm"
  double size = 0;      // bytes (kernels, message bytes for collectives) or FLOPs (GEMM)
  double measured_seconds = 0;
  double predicted_seconds = 0;
  bool outlier = false;  // dropped by the robust fit
  std::string detail;    // e.g. "achieved 71.3% of peak, wave eff 97.0%" for GEMM shapes
  double error_pct() const { return 100.0 * (predicted_seconds - measured_seconds) / measured_seconds; }
};

// The profile keeps one GEMM plateau efficiency; how well the shape model with it fits the
// fitted precision's shapes is recorded beside it.
struct GemmSummary {
  int points = 0;
  double median_error_pct = 0;
  double max_error_pct = 0;
  std::string source;
};

struct Calibration {
  CalibrationProfile profile;
  std::optional<GemmSummary> gemm;
  std::vector<PointResult> points;
  std::vector<std::string> inputs;    // benchmark files
  std::vector<std::string> warnings;  // skipped rows, driver differences, unknown catalog GPU
};

struct CalibrateOptions {
  std::string catalog_gpu;  // catalog key when the driver's GPU name matches none (--gpu)
};

// Throws InputError naming the file / benchmark / fit when the input cannot be fitted.
Calibration calibrate(const std::vector<BenchFile>& files, const CalibrateOptions& options = {});

// Message-size ranges of one collective are stored as "<key>" (the range holding the largest
// messages) and "<key>@lt<bytes>" (messages below <bytes>). The fit for a message size.
const CollectiveFit* find_collective_fit(const CalibrationProfile& profile, const std::string& key,
                                         double message_bytes);

}  // namespace mhcsim::calib
