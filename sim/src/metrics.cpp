#include "mhcsim/sim/metrics.h"

#include <algorithm>
#include <utility>

#include "mhcsim/intervals.h"

namespace mhcsim::sim {
namespace {

// Appends stream st's busy intervals to `out`, keeping it sorted: a stream runs its ops one
// at a time and in order, so its own intervals come sorted and only need merging in.
void merge_stream(const OpGraph& g, const Timeline& t, int32_t st, std::vector<Span>& out) {
  const auto mid = static_cast<std::ptrdiff_t>(out.size());
  for (int32_t i = g.stream_begin[static_cast<size_t>(st)]; i < g.stream_begin[static_cast<size_t>(st) + 1]; ++i) {
    const auto op = static_cast<size_t>(g.stream_ops[static_cast<size_t>(i)]);
    out.emplace_back(t.start_seconds[op], t.end_seconds[op]);
  }
  std::inplace_merge(out.begin(), out.begin() + mid, out.end());
}

// Peak of (+1 at a forward's first start, -1 at its backward's last end) per rank; a release
// at the same instant as an allocation counts first. The marks are grouped by rank with a
// counting sort, so only each rank's own marks are sorted.
std::vector<int64_t> peak_activations(const OpGraph& g, const Timeline& t) {
  const Layout& l = g.layout;
  const auto ranks = static_cast<size_t>(l.ranks);
  auto unit_rank = [&](size_t u) {
    const auto hops = static_cast<size_t>(l.hops);
    return static_cast<size_t>(l.rank_of(static_cast<int32_t>(u / hops), static_cast<int32_t>(u % hops)));
  };
  std::vector<size_t> begin(ranks + 1, 0);
  for (size_t u = 0; u < g.forward_first_op.size(); ++u) begin[unit_rank(u) + 1] += 2;
  for (size_t r = 0; r < ranks; ++r) begin[r + 1] += begin[r];
  std::vector<std::pair<double, int32_t>> marks(begin[ranks]);
  std::vector<size_t> fill(begin.begin(), begin.end() - 1);
  for (size_t u = 0; u < g.forward_first_op.size(); ++u) {
    size_t& at = fill[unit_rank(u)];
    marks[at++] = {t.start_seconds[static_cast<size_t>(g.forward_first_op[u])], +1};
    marks[at++] = {t.end_seconds[static_cast<size_t>(g.backward_last_op[u])], -1};
  }
  std::vector<int64_t> peak(ranks, 0);
  for (size_t r = 0; r < ranks; ++r) {
    const auto first = marks.begin() + static_cast<std::ptrdiff_t>(begin[r]);
    const auto last = marks.begin() + static_cast<std::ptrdiff_t>(begin[r + 1]);
    std::sort(first, last);
    int64_t live = 0;
    for (auto m = first; m != last; ++m) {
      live += m->second;
      peak[r] = std::max(peak[r], live);
    }
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
  std::vector<Span> compute, comm;
  for (int32_t r = 0; r < g.layout.ranks; ++r) {
    compute.clear();
    comm.clear();
    for (int32_t k = 0; k < kStreamsPerRank; ++k) {
      const int32_t st = r * kStreamsPerRank + k;
      merge_stream(g, t, st, is_compute(g.kind_of_stream(st)) ? compute : comm);
    }
    RankStats rs;
    rs.rank = r;
    rs.compute_busy_seconds = merge_sorted_spans(compute);
    rs.comm_busy_seconds = merge_sorted_spans(comm);
    rs.exposed_comm_seconds = rs.comm_busy_seconds - intersection_seconds(compute, comm);
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
