#include "mhcsim/sim/metrics.h"

#include <algorithm>
#include <tuple>
#include <utility>

namespace mhcsim::sim {
namespace {

using Interval = std::pair<double, double>;

// Sorts and merges into disjoint intervals.
std::vector<Interval> merged(std::vector<Interval> v) {
  std::sort(v.begin(), v.end());
  std::vector<Interval> out;
  for (const auto& iv : v) {
    if (iv.second <= iv.first) continue;
    if (!out.empty() && iv.first <= out.back().second)
      out.back().second = std::max(out.back().second, iv.second);
    else
      out.push_back(iv);
  }
  return out;
}

double length(const std::vector<Interval>& v) {
  double sum = 0;
  for (const auto& [a, b] : v) sum += b - a;
  return sum;
}

double overlap(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  double sum = 0;
  size_t i = 0, j = 0;
  while (i < x.size() && j < y.size()) {
    const double lo = std::max(x[i].first, y[j].first);
    const double hi = std::min(x[i].second, y[j].second);
    if (hi > lo) sum += hi - lo;
    if (x[i].second < y[j].second) ++i; else ++j;
  }
  return sum;
}

// Peak of (+1 at a forward's first start, -1 at its backward's last end) per rank; a release
// at the same instant as an allocation counts first.
std::vector<int64_t> peak_activations(const OpGraph& g, const Timeline& t) {
  const Layout& l = g.layout;
  std::vector<std::tuple<int32_t, double, int32_t>> marks;
  marks.reserve(g.forward_first_op.size() * 2);
  for (int32_t mb = 0; mb < l.micro_batches; ++mb) {
    for (int32_t hop = 0; hop < l.hops; ++hop) {
      const size_t u = static_cast<size_t>(mb) * static_cast<size_t>(l.hops) + static_cast<size_t>(hop);
      const int32_t r = l.rank_of(mb, hop);
      marks.emplace_back(r, t.start_seconds[static_cast<size_t>(g.forward_first_op[u])], +1);
      marks.emplace_back(r, t.end_seconds[static_cast<size_t>(g.backward_last_op[u])], -1);
    }
  }
  std::sort(marks.begin(), marks.end());
  std::vector<int64_t> peak(static_cast<size_t>(l.ranks), 0);
  int64_t live = 0;
  for (const auto& [r, time, delta] : marks) {
    live += delta;
    auto& p = peak[static_cast<size_t>(r)];
    p = std::max(p, live);
  }
  return peak;
}

}  // namespace

StepStats summarize(const OpGraph& g, const Timeline& t) {
  StepStats s;
  s.step_seconds = t.makespan_seconds;
  s.events = t.events;
  s.ops = g.op_count();
  const auto peaks = peak_activations(g, t);
  std::vector<Interval> compute, comm;
  for (int32_t r = 0; r < g.layout.ranks; ++r) {
    compute.clear();
    comm.clear();
    for (int32_t k = 0; k < kStreamsPerRank; ++k) {
      const int32_t st = r * kStreamsPerRank + k;
      auto& into = is_compute(g.kind_of_stream(st)) ? compute : comm;
      for (int32_t i = g.stream_begin[static_cast<size_t>(st)]; i < g.stream_begin[static_cast<size_t>(st) + 1]; ++i) {
        const auto op = static_cast<size_t>(g.stream_ops[static_cast<size_t>(i)]);
        into.emplace_back(t.start_seconds[op], t.end_seconds[op]);
      }
    }
    const auto cu = merged(compute);
    const auto cm = merged(comm);
    RankStats rs;
    rs.rank = r;
    rs.compute_busy_seconds = length(cu);
    rs.comm_busy_seconds = length(cm);
    rs.exposed_comm_seconds = rs.comm_busy_seconds - overlap(cu, cm);
    rs.bubble_seconds = s.step_seconds - rs.compute_busy_seconds;
    if (s.step_seconds > 0) {
      rs.bubble_fraction = rs.bubble_seconds / s.step_seconds;
      rs.compute_utilization = rs.compute_busy_seconds / s.step_seconds;
      rs.comm_utilization = rs.comm_busy_seconds / s.step_seconds;
    }
    rs.peak_activation_chunks = peaks[static_cast<size_t>(r)];
    rs.peak_activation_bytes = static_cast<double>(rs.peak_activation_chunks) * g.activation_bytes_per_chunk;
    s.max_bubble_seconds = std::max(s.max_bubble_seconds, rs.bubble_seconds);
    s.mean_bubble_fraction += rs.bubble_fraction / g.layout.ranks;
    s.max_peak_activation_chunks = std::max(s.max_peak_activation_chunks, rs.peak_activation_chunks);
    s.ranks.push_back(rs);
  }
  return s;
}

}  // namespace mhcsim::sim
