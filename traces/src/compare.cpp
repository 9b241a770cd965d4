#include "mhcsim/traces/compare.h"

#include <fmt/format.h>

#include <cmath>

namespace mhcsim::traces {

Comparison compare(const TimelineMetrics& measured, const TimelineMetrics& simulated) {
  Comparison c;
  c.ranks_compared = std::min(measured.ranks, simulated.ranks);
  auto row = [&](std::string metric, double meas, double simu) {
    if (meas == 0 && simu == 0) return;
    ComparisonRow r{std::move(metric), meas, simu, std::nullopt};
    if (meas > 0) r.error_pct = (simu - meas) / meas * 100.0;
    c.rows.push_back(std::move(r));
  };
  row("step time", measured.step_seconds, simulated.step_seconds);
  row("bubble per rank (mean)", measured.mean_bubble_seconds, simulated.mean_bubble_seconds);
  row("bubble per rank (max)", measured.max_bubble_seconds, simulated.max_bubble_seconds);
  row("compute busy", measured.compute_busy_seconds, simulated.compute_busy_seconds);
  row("communication busy", measured.comm_busy_seconds, simulated.comm_busy_seconds);
  row("compute/communication overlap", measured.overlap_seconds, simulated.overlap_seconds);
  row("exposed communication", measured.exposed_comm_seconds, simulated.exposed_comm_seconds);
  for (size_t k = 0; k < kOpClasses; ++k)
    row(fmt::format("busy: {}", to_string(static_cast<OpClass>(k))), measured.class_busy_seconds[k],
        simulated.class_busy_seconds[k]);
  // Per (rank, role): a role missing on one side counts as zero busy time there.
  auto find = [](const TimelineMetrics& m, int32_t rank, StreamRole role) {
    for (const auto& s : m.streams)
      if (s.rank == rank && s.role == role) return s.busy_seconds;
    return 0.0;
  };
  for (int32_t r = 0; r < c.ranks_compared; ++r)
    for (int k = 0; k <= static_cast<int>(StreamRole::OtherComm); ++k) {
      const auto role = static_cast<StreamRole>(k);
      row(fmt::format("rank {} {} busy", r, to_string(role)), find(measured, r, role), find(simulated, r, role));
    }
  int counted = 0;
  for (const auto& r : c.rows) {
    if (!r.error_pct) continue;
    const double e = std::abs(*r.error_pct);
    c.mean_abs_error_pct += e;
    c.max_abs_error_pct = std::max(c.max_abs_error_pct, e);
    ++counted;
  }
  if (counted > 0) c.mean_abs_error_pct /= counted;
  return c;
}

}  // namespace mhcsim::traces
