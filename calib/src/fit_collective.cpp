// Collectives: alpha-beta per message-size range (NCCL switches protocol and algorithm with
// the size, so one line rarely fits 1 KB to 1 GB). t = alpha x steps + bus_bytes / bus_bw with
// nccl-tests' bus bytes = message bytes x bus_factor (kernel_classes.h).
#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>

#include "fit_groups.h"
#include "mhcsim/error.h"
#include "mhcsim/units.h"

namespace mhcsim::calib::detail {
namespace {

constexpr int kMinSizesPerRange = 3;
constexpr int kMaxSplitDepth = 2;             // at most 4 ranges
constexpr double kSplitWhenMaxErrorPct = 15;  // the target for the max error

struct Range {
  Group group;
  std::vector<std::vector<double>> rows;  // {steps, bus_bytes}
  std::vector<double> sizes;              // message bytes
};

Range make_range(const Measurement& first, const Group& group) {
  Range r;
  for (const auto* m : group) {
    if (!(m->bytes > 0))
      throw InputError(m->name, "no bytes_per_second (expected the message size as bytes processed)", {m->file, 0});
    const int ranks = int(require_arg(*m, "ranks"));
    require(ranks >= 2, m->name.c_str(), "ranks must be >= 2 for a collective");
    r.group.push_back(m);
    r.rows.push_back({double(alpha_steps(first.kernel->op, ranks)), m->bytes * bus_factor(first.kernel->op, ranks)});
    r.sizes.push_back(m->bytes);
  }
  return r;
}

std::pair<Range, Range> split_at(const Range& r, size_t at) {
  const auto mid = r.group.begin() + std::ptrdiff_t(at);
  return {make_range(*r.group.front(), Group(r.group.begin(), mid)),
          make_range(*r.group.front(), Group(mid, r.group.end()))};
}

size_t distinct_sizes(const Range& r) { return std::set<double>(r.sizes.begin(), r.sizes.end()).size(); }

// How well one alpha-beta line fits a range: the points it had to reject, then its worst error.
// A protocol switch inside a range shows up as a block of "outliers", so both count.
struct Quality {
  int outliers = 0;
  double max_pct = 0;
  bool operator<(const Quality& o) const {
    return outliers != o.outliers ? outliers < o.outliers : max_pct < o.max_pct;
  }
};

Quality quality(const std::string& key, const Range& r) {
  std::vector<std::string> ignored;  // notes of trial fits; the kept ranges note their own
  const LinearFit fit = fit_overhead_and_rate(key, r.group, r.rows, ignored);
  return {int(r.group.size()) - fit.inliers(), summarize(fit).max_pct};
}

bool needs_split(const Quality& q, size_t points) {
  return q.max_pct > kSplitWhenMaxErrorPct || size_t(q.outliers) > std::max<size_t>(1, points / 20);
}

Quality combined(const Quality& a, const Quality& b) {
  return {a.outliers + b.outliers, std::max(a.max_pct, b.max_pct)};
}

// Splits `r` (sorted by size) at the boundary that fits best, while a range fits badly and
// both sides keep kMinSizesPerRange sizes.
void split_ranges(const std::string& key, Range r, int depth, std::vector<Range>& out) {
  const Quality whole = quality(key, r);
  if (!needs_split(whole, r.group.size()) || depth >= kMaxSplitDepth || distinct_sizes(r) < 2 * kMinSizesPerRange) {
    out.push_back(std::move(r));
    return;
  }
  Quality best = whole;
  size_t best_at = 0;
  for (size_t at = 1; at < r.group.size(); ++at) {
    if (r.sizes[at] == r.sizes[at - 1]) continue;
    const auto [lo, hi] = split_at(r, at);
    if (int(distinct_sizes(lo)) < kMinSizesPerRange || int(distinct_sizes(hi)) < kMinSizesPerRange) continue;
    const Quality q = combined(quality(key, lo), quality(key, hi));
    if (q < best) best = q, best_at = at;
  }
  if (best_at == 0) {
    out.push_back(std::move(r));
    return;
  }
  auto [lo, hi] = split_at(r, best_at);
  split_ranges(key, std::move(lo), depth + 1, out);
  split_ranges(key, std::move(hi), depth + 1, out);
}

}  // namespace

void fit_collective(const std::string& key, const Group& unsorted, Calibration& out) {
  Group group = unsorted;
  std::stable_sort(group.begin(), group.end(),
                   [](const Measurement* a, const Measurement* b) { return a->bytes < b->bytes; });
  std::vector<Range> ranges;
  split_ranges(key, make_range(*group.front(), group), 0, ranges);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const Range& r = ranges[i];
    // The top range keeps the plain key; lower ones name their exclusive upper bound.
    const std::string range_key =
        i + 1 == ranges.size() ? key : fmt::format("{}@lt{:.0f}", key, ranges[i + 1].sizes.front());
    const LinearFit fit = fit_overhead_and_rate(range_key, r.group, r.rows, out.warnings);
    CollectiveFit& f = out.profile.collectives[range_key];
    f.alpha_seconds = fit.coef[0];
    f.bus_gbps = 1.0 / fit.coef[1] / kGB;
    set_stats(
        f, summarize(fit),
        fmt::format("{}; messages {:.0f}..{:.0f} B", describe_source(r.group, fit), r.sizes.front(), r.sizes.back()));
    append_points(range_key, r.group, r.rows, r.sizes, fit, out.points);
  }
}

}  // namespace mhcsim::calib::detail
