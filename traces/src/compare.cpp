#include "mhcsim/traces/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace mhcsim::traces {
namespace {

// "high-priority compute" -> "high_priority_compute"
std::string snake(std::string_view label) {
  std::string out;
  for (const char c : label) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
      out += c;
    else if (c >= 'A' && c <= 'Z')
      out += static_cast<char>(c - 'A' + 'a');
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

}  // namespace

TimelineMetrics window_of(const TimelineMetrics& s, double fraction) {
  TimelineMetrics w = s;
  w.step_seconds = (s.compute_busy_seconds + s.exposed_comm_seconds) * fraction;
  for (auto& b : w.class_busy_seconds) b *= fraction;
  w.compute_busy_seconds *= fraction;
  w.comm_busy_seconds *= fraction;
  w.overlap_seconds *= fraction;
  w.exposed_comm_seconds *= fraction;
  w.mean_bubble_seconds = w.max_bubble_seconds = 0;  // the window is busy throughout
  for (auto& r : w.streams) r.busy_seconds *= fraction;
  return w;
}

Comparison compare(const TimelineMetrics& measured, const TimelineMetrics& simulated, bool window) {
  Comparison c;
  c.ranks_compared = std::min(measured.ranks, simulated.ranks);
  bool minor_allowed = false;  // the step rows themselves are never minor
  auto row = [&](std::string id, std::string metric, double meas, double simu) {
    if (meas == 0 && simu == 0) return;
    ComparisonRow r{std::move(id), std::move(metric), meas, simu, std::nullopt, false};
    if (meas > 0) r.error_pct = (simu - meas) / meas * 100.0;
    r.minor = minor_allowed && meas < kMinorShareOfStep * measured.step_seconds &&
              simu < kMinorShareOfStep * simulated.step_seconds;
    c.rows.push_back(std::move(r));
  };
  row(window ? "window_time" : "step_time", window ? "window time" : "step time", measured.step_seconds,
      simulated.step_seconds);
  minor_allowed = true;
  row(window ? "window_idle_mean" : "bubble_mean", window ? "idle in window per rank (mean)" : "bubble per rank (mean)",
      measured.mean_bubble_seconds, simulated.mean_bubble_seconds);
  row(window ? "window_idle_max" : "bubble_max", window ? "idle in window per rank (max)" : "bubble per rank (max)",
      measured.max_bubble_seconds, simulated.max_bubble_seconds);
  row("compute_busy", "compute busy", measured.compute_busy_seconds, simulated.compute_busy_seconds);
  row("comm_busy", "communication busy", measured.comm_busy_seconds, simulated.comm_busy_seconds);
  row("overlap", "compute/communication overlap", measured.overlap_seconds, simulated.overlap_seconds);
  row("exposed_comm", "exposed communication", measured.exposed_comm_seconds, simulated.exposed_comm_seconds);
  for (size_t k = 0; k < kOpClasses; ++k) {
    const auto name = to_string(static_cast<OpClass>(k));
    row(fmt::format("busy_{}", name), fmt::format("busy: {}", name), measured.class_busy_seconds[k],
        simulated.class_busy_seconds[k]);
  }
  // Per (rank, stream role): a role missing on one side counts as zero busy time there. A
  // stream's busy time holds all it runs (a serialised dispatch on the compute stream too), so
  // the rows say "stream", apart from the op-class sums above.
  auto find = [](const TimelineMetrics& m, int32_t rank, StreamRole role) {
    for (const auto& s : m.streams)
      if (s.rank == rank && s.role == role) return s.busy_seconds;
    return 0.0;
  };
  for (int32_t r = 0; r < c.ranks_compared; ++r)
    for (int k = 0; k <= static_cast<int>(StreamRole::OtherComm); ++k) {
      const auto role = static_cast<StreamRole>(k);
      row(fmt::format("rank{}_{}_stream_busy", r, snake(to_string(role))),
          fmt::format("rank {} {} stream busy", r, to_string(role)), find(measured, r, role), find(simulated, r, role));
    }
  for (const auto& r : c.rows) {
    if (r.minor) ++c.minor_rows;
    if (!r.error_pct || r.minor) continue;
    const double e = std::abs(*r.error_pct);
    c.mean_abs_error_pct += e;
    c.max_abs_error_pct = std::max(c.max_abs_error_pct, e);
    ++c.compared_rows;
  }
  if (c.compared_rows > 0) c.mean_abs_error_pct /= c.compared_rows;
  return c;
}

}  // namespace mhcsim::traces
