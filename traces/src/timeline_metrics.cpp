#include "mhcsim/traces/timeline_metrics.h"

#include <algorithm>
#include <limits>

#include "mhcsim/intervals.h"

namespace mhcsim::traces {
namespace {

constexpr size_t kRoles = 5;

StreamRole role_of(OpClass c) {
  switch (c) {
    case OpClass::Mhc:
      return StreamRole::HighPriority;  // mHC paper 4.3.3: F_post,res there
    case OpClass::Dispatch:
    case OpClass::Combine:
      return StreamRole::AllToAll;
    case OpClass::PpComm:
      return StreamRole::PpP2p;
    case OpClass::OtherComm:
      return StreamRole::OtherComm;
    default:
      return StreamRole::Compute;
  }
}

// The role of each stream: that of the class with the most summed kernel time on it.
std::vector<StreamRole> stream_roles(const KernelTimeline& t) {
  std::vector<std::array<double, kOpClasses>> time(t.streams.size());
  for (const auto& s : t.spans)
    time[static_cast<size_t>(s.stream)][static_cast<size_t>(s.op_class)] += s.end_seconds - s.start_seconds;
  std::vector<StreamRole> roles;
  for (const auto& per_class : time)
    roles.push_back(
        role_of(static_cast<OpClass>(std::max_element(per_class.begin(), per_class.end()) - per_class.begin())));
  return roles;
}

}  // namespace

std::string_view to_string(StreamRole r) {
  switch (r) {
    case StreamRole::Compute:
      return "compute";
    case StreamRole::HighPriority:
      return "high-priority compute";
    case StreamRole::AllToAll:
      return "all-to-all";
    case StreamRole::PpP2p:
      return "PP send/recv";
    case StreamRole::OtherComm:
      return "other communication";
  }
  return "?";
}

TimelineMetrics measure(const KernelTimeline& t, int32_t first_rank, int32_t rank_count, double steps) {
  TimelineMetrics m;
  m.ranks = std::max(0, std::min(rank_count, t.ranks - first_rank));
  if (m.ranks <= 0 || t.spans.empty() || !(steps > 0)) return m;
  // The step spans the chosen ranks' kernels: one rank's trace against the same rank of a
  // simulation compares that rank's first-to-last kernel on both sides (it was measured
  // against the whole simulated step, +3% on the step and +36% on the bubble of a probe's
  // rank-5 cut of the simulator's own trace).
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  const auto roles = stream_roles(t);
  std::vector<std::vector<size_t>> by_rank(static_cast<size_t>(m.ranks));
  for (size_t i = 0; i < t.spans.size(); ++i) {
    const auto& span = t.spans[i];
    const int32_t r = t.streams[static_cast<size_t>(span.stream)].rank - first_rank;
    if (r < 0 || r >= m.ranks) continue;
    by_rank[static_cast<size_t>(r)].push_back(i);
    lo = std::min(lo, span.start_seconds);
    hi = std::max(hi, span.end_seconds);
  }
  if (!(hi > lo)) return m;
  m.step_seconds = (hi - lo) / steps;
  const double per_rank = 1.0 / (steps * m.ranks);
  m.max_bubble_seconds = 0;
  for (int32_t r = 0; r < m.ranks; ++r) {
    std::array<std::vector<Span>, kOpClasses> by_class;
    std::array<std::vector<Span>, kRoles> by_role;
    std::vector<Span> compute, comm;
    for (const size_t i : by_rank[static_cast<size_t>(r)]) {
      const auto& s = t.spans[i];
      const Span span{s.start_seconds, s.end_seconds};
      by_class[static_cast<size_t>(s.op_class)].push_back(span);
      by_role[static_cast<size_t>(roles[static_cast<size_t>(s.stream)])].push_back(span);
      (is_communication(s.op_class) ? comm : compute).push_back(span);
    }
    for (size_t c = 0; c < kOpClasses; ++c) m.class_busy_seconds[c] += merge_spans(by_class[c]) * per_rank;
    for (size_t k = 0; k < kRoles; ++k)
      if (!by_role[k].empty()) m.streams.push_back({r, static_cast<StreamRole>(k), merge_spans(by_role[k]) / steps});
    const double compute_busy = merge_spans(compute);
    const double comm_busy = merge_spans(comm);
    const double overlap = intersection_seconds(compute, comm);
    m.compute_busy_seconds += compute_busy * per_rank;
    m.comm_busy_seconds += comm_busy * per_rank;
    m.overlap_seconds += overlap * per_rank;
    m.exposed_comm_seconds += (comm_busy - overlap) * per_rank;
    // Nothing runs: neither compute nor communication (sim/step_terms.h).
    const double bubble = std::max(0.0, m.step_seconds - (compute_busy + comm_busy - overlap) / steps);
    m.mean_bubble_seconds += bubble / m.ranks;
    m.max_bubble_seconds = std::max(m.max_bubble_seconds, bubble);
  }
  return m;
}

}  // namespace mhcsim::traces
