#include "fit_groups.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

#include "mhcsim/error.h"

namespace mhcsim::calib::detail {
namespace {

std::vector<double> measured_seconds(const Group& group) {
  std::vector<double> y;
  for (const auto* m : group) y.push_back(m->seconds);
  return y;
}

std::string files_of(const Group& group) {
  std::set<std::string> files;
  for (const auto* m : group) files.insert(m->file);
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

}  // namespace

ErrorSummary summarize(const LinearFit& fit) {
  std::vector<double> errors;
  for (size_t i = 0; i < fit.inlier.size(); ++i)
    if (fit.inlier[i]) errors.push_back(100.0 * std::abs(fit.rel_residual[i]));
  ErrorSummary s;
  s.points = int(errors.size());
  s.median_pct = median(errors);
  s.max_pct = errors.empty() ? 0 : *std::max_element(errors.begin(), errors.end());
  return s;
}

std::string describe_source(const Group& group, const LinearFit& fit) {
  std::set<std::string> families;
  for (const auto* m : group) families.insert(m->name.substr(0, m->name.find('/')));
  std::string names;
  for (const auto& f : families) names += (names.empty() ? "" : ", ") + f;
  const int dropped = int(group.size()) - fit.inliers();
  return fmt::format("{}: {} ({} points, {} outlier{} dropped)", files_of(group), names, group.size(), dropped,
                     dropped == 1 ? "" : "s");
}

LinearFit fit_or_throw(const std::string& key, const Group& group, const std::vector<std::vector<double>>& rows) {
  try {
    return robust_linear_fit(rows, measured_seconds(group));
  } catch (const std::invalid_argument& e) {
    throw InputError(key,
                     fmt::format("cannot fit {} measurements from {}: {}", group.size(), files_of(group), e.what()));
  }
}

LinearFit fit_overhead_and_rate(const std::string& key, const Group& group,
                                const std::vector<std::vector<double>>& rows, std::vector<std::string>& notes) {
  const auto rate_only = [&] {
    std::vector<std::vector<double>> size_column;
    for (const auto& r : rows) size_column.push_back({r[1]});
    LinearFit fit = fit_or_throw(key, group, size_column);
    fit.coef.insert(fit.coef.begin(), 0.0);
    return fit;
  };
  std::set<double> sizes;
  for (const auto& r : rows) sizes.insert(r[1]);
  LinearFit fit;
  if (sizes.size() == 1) {
    notes.push_back(
        fmt::format("{}: one size measured ({}): the fixed overhead cannot be separated "
                    "from the bandwidth and is fitted as 0",
                    key, files_of(group)));
    fit = rate_only();
  } else {
    if (rows.size() == 2)
      notes.push_back(fmt::format("{}: two points ({}): the fit is exact and checks nothing", key, files_of(group)));
    fit = fit_or_throw(key, group, rows);
    if (fit.coef[0] < 0) fit = rate_only();
  }
  require(fit.coef[1] > 0, key.c_str(),
          fmt::format("time does not grow with size in {} (fitted bandwidth <= 0)", files_of(group)));
  return fit;
}

void append_points(const std::string& key, const Group& group, const std::vector<std::vector<double>>& rows,
                   const std::vector<double>& sizes, const LinearFit& fit, std::vector<PointResult>& out) {
  for (size_t i = 0; i < group.size(); ++i) {
    double predicted = 0;
    for (size_t j = 0; j < fit.coef.size(); ++j) predicted += rows[i][j] * fit.coef[j];
    out.push_back({group[i]->file, group[i]->name, key, sizes[i], group[i]->seconds, predicted, !fit.inlier[i], {}});
  }
}

}  // namespace mhcsim::calib::detail
