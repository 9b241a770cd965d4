// Differences, their summary, and the --check thresholds.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "mhcsim/error.h"
#include "mhcsim/validate/validate.h"

namespace mhcsim::validate {

double delta_pct(double predicted, double published) {
  require(published > 0 && std::isfinite(published), "published",
          fmt::format("{} cannot be compared with (expected a value > 0)", published));
  return (predicted - published) / published * 100.0;
}

Summary summarize(const std::vector<Row>& rows) {
  Summary out;
  out.count = static_cast<int64_t>(rows.size());
  if (rows.empty()) return out;
  std::vector<double> abs_deltas;
  abs_deltas.reserve(rows.size());
  for (const auto& r : rows) abs_deltas.push_back(std::fabs(r.delta_pct));
  std::sort(abs_deltas.begin(), abs_deltas.end());
  const size_t n = abs_deltas.size();
  out.median_abs_delta_pct = n % 2 == 1 ? abs_deltas[n / 2] : 0.5 * (abs_deltas[n / 2 - 1] + abs_deltas[n / 2]);
  out.max_abs_delta_pct = abs_deltas.back();
  return out;
}

namespace {
// A threshold as typed: a finite number >= 0, the whole text.
bool parse_percent(const std::string& text, double& value) {
  if (text.empty()) return false;
  char* end = nullptr;
  value = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(value) && value >= 0;
}
}  // namespace

Thresholds parse_thresholds(std::string_view text, std::string_view option) {
  const std::string t(text);
  const auto comma = t.find(',');
  Thresholds out;
  const bool ok = comma != std::string::npos && t.find(',', comma + 1) == std::string::npos &&
                  parse_percent(t.substr(0, comma), out.median_pct) && parse_percent(t.substr(comma + 1), out.max_pct);
  if (!ok)
    throw InputError(std::string(option),
                     fmt::format("'{}' is not a threshold pair (expected MEDIAN,MAX: two percentages >= 0, "
                                 "e.g. 10,25)",
                                 t));
  return out;
}

CheckResult check(const Summary& summary, const Thresholds& thresholds) {
  return {summary.median_abs_delta_pct <= thresholds.median_pct, summary.max_abs_delta_pct <= thresholds.max_pct};
}

}  // namespace mhcsim::validate
