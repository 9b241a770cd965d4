// Groups the measurements by profile key, checks that the files describe one GPU, and runs
// the fit for each group.
#include "mhcsim/calib/calibrate.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "fit_groups.h"
#include "mhcsim/calib/gpu_match.h"
#include "mhcsim/calib/plausibility.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/catalog.h"

namespace mhcsim::calib {
namespace {

// Fills the profile's empty context fields; warns when two files disagree on one (the NCCL
// probe records no driver or date, so empty is not a disagreement).
void merge_field(std::string& into, const std::string& value, const char* what, const BenchFile& f, Calibration& out) {
  if (into.empty())
    into = value;
  else if (!value.empty() && value != into)
    out.warnings.push_back(fmt::format("{}: {} {} differs from {} in an earlier file", f.path, what, value, into));
}

void merge_context(const BenchFile& f, Calibration& out) {
  CalibrationProfile& p = out.profile;
  if (!p.gpu_name.empty() && f.context.gpu_name != p.gpu_name)
    throw InputError("context.gpu_name",
                     fmt::format("'{}' differs from '{}' in {} (one profile describes one GPU)", f.context.gpu_name,
                                 p.gpu_name, out.inputs.front()),
                     {f.path, 0});
  p.gpu_name = f.context.gpu_name;
  merge_field(p.driver_version, f.context.driver_version, "driver", f, out);
  merge_field(p.cuda_version, f.context.cuda_version, "CUDA", f, out);
  p.date = std::max(p.date, f.context.date);  // ISO 8601: the latest measurement
}

// Profile key of a measurement: the class, and for collectives the op plus intra/inter node
// (a run over more than one node is inter-node; without a 'nodes' arg it is one node).
std::string fit_key(const Measurement& m) {
  if (m.kernel->kind == FitKind::Gemm) return "gemm";
  if (m.kernel->kind == FitKind::Bandwidth) return std::string(m.kernel->name);
  std::string op(m.kernel->name);
  if (op.starts_with("nccl_")) op.erase(0, 5);
  return op + (arg_or(m, "nodes", 1) > 1 ? "_inter" : "_intra");
}

}  // namespace

Calibration calibrate(const std::vector<BenchFile>& files, const CalibrateOptions& options) {
  require(!files.empty(), "--from", "no benchmark files (expected Google Benchmark JSON)");
  Calibration out;
  std::map<std::string, detail::Group> groups;
  for (const auto& f : files) {
    merge_context(f, out);
    out.inputs.push_back(f.path);
    for (const auto& s : f.skipped) out.warnings.push_back(fmt::format("{}: skipped {}", f.path, s));
    for (const auto& m : f.measurements) groups[fit_key(m)].push_back(&m);
  }
  require(!groups.empty(), "--from",
          fmt::format("no usable measurements in {} (every row was an error or an aggregate)", out.inputs.front()));

  CalibrationProfile& p = out.profile;
  const std::string detected = catalog_key_for(p.gpu_name);
  // --gpu in any case, as hardware.gpu takes it; it names the GPU the catalog did not recognise.
  const std::string given = options.catalog_gpu.empty() ? "" : scenarios::find_gpu(options.catalog_gpu, "--gpu").key;
  if (!given.empty() && !detected.empty() && detected != given)
    throw InputError("--gpu", fmt::format("'{}', but the benchmarks ran on '{}', which is the catalog's {} (--gpu is "
                                          "for a GPU whose driver name the catalog does not recognise)",
                                          options.catalog_gpu, p.gpu_name, detected));
  p.catalog_gpu = given.empty() ? detected : given;
  const GpuSpec* gpu = nullptr;
  if (!p.catalog_gpu.empty()) {
    gpu = &scenarios::find_gpu(p.catalog_gpu, "--gpu").gpu;
  } else {
    out.warnings.push_back(
        fmt::format("GPU '{}' matches no catalog entry: the profile cannot be "
                    "checked against a scenario's GPU (pass --gpu KEY)",
                    p.gpu_name));
  }

  // GEMMs last: their shape model streams operands at the fitted hbm_copy bandwidth.
  for (const auto& [key, group] : groups) {
    switch (group.front()->kernel->kind) {
      case FitKind::Bandwidth:
        detail::fit_bandwidth(key, group, out);
        break;
      case FitKind::Collective:
        detail::fit_collective(key, group, out);
        break;
      case FitKind::Gemm:
        break;
    }
  }
  if (const auto it = groups.find("gemm"); it != groups.end()) detail::fit_gemm(it->second, gpu, out);
  if (gpu)
    for (auto& w : implausible_fits(p, *gpu)) out.warnings.push_back(std::move(w));
  return out;
}

const CollectiveFit* find_collective_fit(const CalibrationProfile& profile, const std::string& key,
                                         double message_bytes) {
  // Lower ranges are "<key>@lt<upper>"; the smallest upper bound above the size wins.
  const std::string prefix = key + "@lt";
  const CollectiveFit* best = nullptr;
  double best_upper = 0;
  for (const auto& [name, fit] : profile.collectives) {
    if (!name.starts_with(prefix)) continue;
    const double upper = std::strtod(name.c_str() + prefix.size(), nullptr);
    if (message_bytes < upper && (!best || upper < best_upper)) best = &fit, best_upper = upper;
  }
  if (best) return best;
  const auto it = profile.collectives.find(key);
  return it == profile.collectives.end() ? nullptr : &it->second;
}

}  // namespace mhcsim::calib
