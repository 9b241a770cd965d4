#include "mhcsim/sim/metrics.h"

#include <algorithm>
#include <tuple>

#include "mhcsim/intervals.h"

namespace mhcsim::sim {
namespace {

// Splits stream st's ops into compute and communication spans (step_terms.h), keeping both
// lists sorted: a stream runs its ops one at a time and in order, so its own spans come sorted
// and only need merging in. The gradient sync is summed apart.
void add_stream(const OpGraph& g, const Timeline& t, int32_t st, std::vector<Span>& compute, std::vector<Span>& comm,
                double& grad_sync_seconds) {
  const auto compute_mid = static_cast<std::ptrdiff_t>(compute.size());
  const auto comm_mid = static_cast<std::ptrdiff_t>(comm.size());
  for (int32_t i = g.stream_begin[static_cast<size_t>(st)]; i < g.stream_begin[static_cast<size_t>(st) + 1]; ++i) {
    const auto op = static_cast<size_t>(g.stream_ops[static_cast<size_t>(i)]);
    const OpLabel& l = g.label[op];
    if (l.unit == UnitKind::GradSync)
      grad_sync_seconds += t.end_seconds[op] - t.start_seconds[op];
    else
      (is_communication(l) ? comm : compute).emplace_back(t.start_seconds[op], t.end_seconds[op]);
  }
  std::inplace_merge(compute.begin(), compute.begin() + compute_mid, compute.end());
  std::inplace_merge(comm.begin(), comm.begin() + comm_mid, comm.end());
}

struct Peak {
  int64_t chunks = 0;
  double bytes = 0;
};

// Peak of (+1 at a forward's first start, -1 at its backward's last end) per rank, in chunks
// and in bytes (each stage keeps its own amount); a release at the same instant as an
// allocation counts first. The marks are grouped by rank with a counting sort, so only each
// rank's own marks are sorted.
std::vector<Peak> peak_activations(const OpGraph& g, const Timeline& t) {
  const Layout& l = g.layout;
  const auto ranks = static_cast<size_t>(l.ranks);
  const auto hops = static_cast<size_t>(l.hops);
  auto unit_rank = [&](size_t u) {
    return static_cast<size_t>(l.rank_of(static_cast<int32_t>(u / hops), static_cast<int32_t>(u % hops)));
  };
  std::vector<size_t> begin(ranks + 1, 0);
  for (size_t u = 0; u < g.forward_first_op.size(); ++u) begin[unit_rank(u) + 1] += 2;
  for (size_t r = 0; r < ranks; ++r) begin[r + 1] += begin[r];
  std::vector<std::tuple<double, int32_t, double>> marks(begin[ranks]);  // time, +-1, bytes
  std::vector<size_t> fill(begin.begin(), begin.end() - 1);
  for (size_t u = 0; u < g.forward_first_op.size(); ++u) {
    size_t& at = fill[unit_rank(u)];
    const double bytes = g.activation_bytes_per_stage.empty() ? 0 : g.activation_bytes_per_stage[u % hops];
    marks[at++] = {t.start_seconds[static_cast<size_t>(g.forward_first_op[u])], +1, bytes};
    marks[at++] = {t.end_seconds[static_cast<size_t>(g.backward_last_op[u])], -1, -bytes};
  }
  std::vector<Peak> peak(ranks);
  for (size_t r = 0; r < ranks; ++r) {
    const auto first = marks.begin() + static_cast<std::ptrdiff_t>(begin[r]);
    const auto last = marks.begin() + static_cast<std::ptrdiff_t>(begin[r + 1]);
    std::sort(first, last);
    Peak live;
    for (auto m = first; m != last; ++m) {
      live.chunks += std::get<1>(*m);
      live.bytes += std::get<2>(*m);
      peak[r].chunks = std::max(peak[r].chunks, live.chunks);
      peak[r].bytes = std::max(peak[r].bytes, live.bytes);
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
    RankStats rs;
    rs.rank = r;
    for (int32_t k = 0; k < kStreamsPerRank; ++k)
      add_stream(g, t, r * kStreamsPerRank + k, compute, comm, rs.grad_sync_seconds);
    rs.compute_busy_seconds = merge_sorted_spans(compute);
    rs.comm_busy_seconds = merge_sorted_spans(comm);
    rs.exposed_comm_seconds = rs.comm_busy_seconds - intersection_seconds(compute, comm);
    rs.bubble_seconds = s.step_seconds - rs.compute_busy_seconds - rs.exposed_comm_seconds - rs.grad_sync_seconds;
    // A difference of sums over thousands of ops: a billionth of the step is their rounding (a
    // one-rank pipeline read 8.9e-13 ms), not idle time.
    if (rs.bubble_seconds < 1e-9 * s.step_seconds) rs.bubble_seconds = 0;
    if (s.step_seconds > 0) {
      rs.bubble_fraction = rs.bubble_seconds / s.step_seconds;
      rs.compute_utilization = rs.compute_busy_seconds / s.step_seconds;
      rs.comm_utilization = rs.comm_busy_seconds / s.step_seconds;
    }
    rs.peak_activation_chunks = peaks[static_cast<size_t>(r)].chunks;
    rs.peak_activation_bytes = peaks[static_cast<size_t>(r)].bytes;
    if (r == 0 || rs.bubble_seconds < s.bubble_seconds) {
      s.pacing_rank = r;
      s.bubble_seconds = rs.bubble_seconds;
    }
    s.max_bubble_seconds = std::max(s.max_bubble_seconds, s.step_seconds - rs.compute_busy_seconds);
    s.mean_bubble_fraction += rs.bubble_fraction / g.layout.ranks;
    s.max_peak_activation_chunks = std::max(s.max_peak_activation_chunks, rs.peak_activation_chunks);
    s.max_peak_activation_bytes = std::max(s.max_peak_activation_bytes, rs.peak_activation_bytes);
    s.ranks.push_back(rs);
  }
  return s;
}

}  // namespace mhcsim::sim
