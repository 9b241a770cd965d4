// GEMM: the plateau efficiency of the cost model's shape model (cost/gemm_model.h),
//   t = max(mainloop1 / e, operands) + epilogue + launch,
// where mainloop1 is the mainloop at plateau efficiency 1 (2 M N K over the catalog's dense
// tensor peak times the wave efficiency of the shape on the GPU's SMs). The rates are the ones
// the model itself prices a GEMM with for this GPU and this profile (cost::gemm_rates: the
// profile's hbm_copy fit for the operand and epilogue bytes and for the launch overhead, else
// the catalog HBM x kDefaultHbmEfficiency and kDefaultLaunchSeconds; every SM), so the fitted
// e is the number the model multiplies its peak by.
//
// Only the mainloop scales with 1 / e, so the fit is linear in 1 / e over the shapes whose
// measured time is the mainloop: a shape is compute-bound when t_meas - epilogue - launch
// exceeds its operand time by more than kComputeBoundMargin (within it, the time is the
// operand stream or the ridge, and says little about e). Over those, r_i = t_meas - epilogue
// - launch = mainloop1_i x (1 / e) is fitted by the robust relative least squares the other
// fits use (robust_fit.h: outliers rejected), which is exact on data the model generated.
// Memory-bound shapes are not fitted; their predictions are reported like every other point.
//
// The profile holds one gemm_efficiency (the model applies it to every GEMM dtype), so when
// BF16 and FP8 are both measured it is fitted on the precision with more rows (BF16 on a tie:
// the model prices its BF16 GEMMs -- LM head, router, unfused attention -- with it whatever
// precision.gemm is), and the other precision's rows are predicted with it and reported, with
// their error, as a warning; they count in the calibration's overall error like every point.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "fit_groups.h"
#include "mhcsim/cost/gemm_model.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/error.h"
#include "mhcsim/units.h"

namespace mhcsim::calib::detail {
namespace {

// A point counts as compute-bound when t_meas - epilogue - launch exceeds its operand time by
// more than 2%: a memory-bound point measured that little slow would otherwise enter the fit
// with e ~ mainloop1 / operands, an underestimate. (One measured slower than that is rejected
// by the robust fit as an outlier, tests/calib/test_calib_fit.cpp.)
constexpr double kComputeBoundMargin = 1.02;

const char* precision_name(GemmPrecision p) { return p == GemmPrecision::FP8 ? "fp8" : "bf16"; }

// The model's time of one measured shape at plateau efficiency 1.
struct ShapeTerms {
  cost::GemmTime t;
  double launch = 0;
  double peak = 0;
  double predict(double e) const {
    return std::max(t.mainloop_seconds / e, t.operand_seconds) + t.epilogue_seconds + launch;
  }
};

ShapeTerms shape_terms(const Measurement& m, const Scenario& model_view) {
  cost::GemmShape shape;
  shape.m = static_cast<int64_t>(require_arg(m, "M"));
  shape.n = static_cast<int64_t>(require_arg(m, "N"));
  shape.k = static_cast<int64_t>(require_arg(m, "K"));
  require(shape.m > 0 && shape.n > 0 && shape.k > 0, m.name.c_str(), "M, N and K must be > 0");
  // kernels/bench/bench_gemm.cpp: A and B in the benchmark's precision, D in BF16, beta = 0.
  shape.input = m.kernel->precision == GemmPrecision::FP8 ? DType::FP8 : DType::BF16;
  shape.output = DType::BF16;
  cost::GemmRates rates = cost::gemm_rates(model_view, shape.input);
  rates.plateau_efficiency = 1.0;
  return {cost::gemm_time(shape, rates), rates.launch_seconds, rates.peak_flops_per_second};
}

double relative_error(double predicted, double measured) { return (predicted - measured) / measured; }

}  // namespace

void fit_gemm(const Group& group, const GpuSpec* gpu, Calibration& out) {
  const std::string key = "gemm";
  // Which precision the one efficiency is fitted on.
  size_t fp8_rows = 0;
  for (const auto* m : group) fp8_rows += m->kernel->precision == GemmPrecision::FP8;
  const GemmPrecision fitted = fp8_rows > group.size() - fp8_rows ? GemmPrecision::FP8 : GemmPrecision::BF16;

  // The rates the cost model would use on this GPU with the profile fitted so far (the
  // bandwidth fits run first): a scenario holding only the GPU and the profile.
  Scenario model_view;
  if (gpu) model_view.hardware.gpu = *gpu;
  model_view.calibration = out.profile;
  model_view.calibration->gemm_efficiency.reset();

  std::vector<ShapeTerms> terms;
  std::vector<size_t> fit_index;  // the fitted precision's compute-bound rows, index in `group`
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (size_t i = 0; i < group.size(); ++i) {
    const Measurement& m = *group[i];
    const double gpu_peak = !gpu ? 0 : m.kernel->precision == GemmPrecision::FP8 ? gpu->fp8_tflops : gpu->bf16_tflops;
    require(gpu_peak > 0, m.name.c_str(),
            gpu ? fmt::format("GPU {} has no {} tensor-core peak in the catalog", gpu->name,
                              precision_name(m.kernel->precision))
                : std::string("no tensor-core peak for this GPU (its name matches no catalog entry; pass --gpu KEY)"));
    terms.push_back(shape_terms(m, model_view));
    const ShapeTerms& s = terms.back();
    const double r = m.seconds - s.t.epilogue_seconds - s.launch;
    if (m.kernel->precision == fitted && r > kComputeBoundMargin * s.t.operand_seconds) {
      fit_index.push_back(i);
      rows.push_back({s.t.mainloop_seconds});
      y.push_back(r);
    }
  }
  std::set<std::string> files;
  for (const auto* m : group) files.insert(m->file);
  std::string file_list;
  for (const auto& f : files) file_list += (file_list.empty() ? "" : ", ") + f;
  require(!fit_index.empty(), key.c_str(),
          fmt::format("no {} GEMM in {} is compute-bound in the model (each one's time is its operand "
                      "stream, epilogue and launch): the plateau efficiency cannot be fitted; measure "
                      "shapes with larger M, N and K",
                      precision_name(fitted), file_list));

  LinearFit fit;
  try {
    fit = robust_linear_fit(rows, y);
  } catch (const std::invalid_argument& e) {
    throw InputError(key, fmt::format("cannot fit {} measurements from {}: {}", group.size(), file_list, e.what()));
  }
  const double efficiency = 1.0 / fit.coef[0];
  require(efficiency > 0 && efficiency <= 1.0, key.c_str(),
          fmt::format("fitted plateau efficiency {:.3f} is outside (0, 1]: the GEMMs ran faster than the "
                      "tensor-core peak allows (the shape args or the catalog peak do not match the "
                      "measurement)",
                      efficiency));
  out.profile.gemm_efficiency = efficiency;

  // Per point: the model's prediction at the fitted efficiency.
  const GemmPrecision other = fitted == GemmPrecision::FP8 ? GemmPrecision::BF16 : GemmPrecision::FP8;
  const size_t fitted_rows = fitted == GemmPrecision::FP8 ? fp8_rows : group.size() - fp8_rows;
  std::vector<bool> outlier(group.size(), false), compute_bound(group.size(), false);
  for (size_t j = 0; j < fit_index.size(); ++j) {
    compute_bound[fit_index[j]] = true;
    outlier[fit_index[j]] = !fit.inlier[j];
  }
  std::vector<double> fitted_errors, other_errors;
  for (size_t i = 0; i < group.size(); ++i) {
    const Measurement& m = *group[i];
    const ShapeTerms& s = terms[i];
    const double flops = 2.0 * require_arg(m, "M") * require_arg(m, "N") * require_arg(m, "K");
    const double predicted = s.predict(efficiency);
    const bool is_fitted = m.kernel->precision == fitted;
    std::string detail =
        !is_fitted ? fmt::format("{}, predicted with the {} fit; ", precision_name(other), precision_name(fitted))
        : !compute_bound[i] ? std::string("memory-bound, not fitted; ")
                            : std::string();
    detail += fmt::format("achieved {:.1f}% of peak, wave eff {:.1f}%", 100.0 * flops / (s.peak * m.seconds),
                          100.0 * s.t.wave_efficiency);
    out.points.push_back({m.file, m.name, key, flops, m.seconds, predicted, outlier[i], detail});
    if (!outlier[i])
      (is_fitted ? fitted_errors : other_errors).push_back(100.0 * std::abs(relative_error(predicted, m.seconds)));
  }
  const auto max_of = [](const std::vector<double>& v) {
    return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end());
  };

  // "a.json: gemm_bf16 (6 points, 1 memory-bound not fitted, 0 outliers dropped)"
  const int dropped = int(fit.inlier.size()) - fit.inliers();
  const size_t memory_bound = fitted_rows - fit_index.size();
  std::string source =
      fmt::format("{}: gemm_{} ({} points, {} memory-bound not fitted, {} outlier{} dropped", file_list,
                  precision_name(fitted), fitted_rows, memory_bound, dropped, dropped == 1 ? "" : "s");
  if (!other_errors.empty())
    source +=
        fmt::format("; {} gemm_{} points predicted with it, not fitted", other_errors.size(), precision_name(other));
  source += ")";
  out.gemm = GemmSummary{int(fitted_errors.size()), median(fitted_errors), max_of(fitted_errors), source};
  if (!other_errors.empty())
    out.warnings.push_back(
        fmt::format("gemm: the profile holds one GEMM efficiency, fitted on the {} rows ({:.1f}%); the {} {} rows "
                    "predicted with it are off by median {:.1f}%, max {:.1f}%",
                    precision_name(fitted), 100.0 * efficiency, other_errors.size(), precision_name(other),
                    median(other_errors), max_of(other_errors)));
}

}  // namespace mhcsim::calib::detail
