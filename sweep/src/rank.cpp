// Ranking sweep points and laying them out as a Table (the one field list behind the text,
// CSV and JSON outputs).
#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "mhcsim/error.h"
#include "mhcsim/sweep/sweep.h"

namespace mhcsim::sweep {
namespace {

// Swept values as typed cells, so JSON gets 16 rather than "16".
reports::Cell typed_cell(const std::string& v) {
  int64_t i = 0;
  const char* end = v.data() + v.size();
  if (auto [p, ec] = std::from_chars(v.data(), end, i); ec == std::errc() && p == end) return i;
  double d = 0;
  if (auto [p, ec] = std::from_chars(v.data(), end, d); ec == std::errc() && p == end) return d;
  return v;
}

}  // namespace

size_t metric_index(const std::vector<Metric>& metrics, const std::string& by) {
  std::string known;
  for (size_t m = 0; m < metrics.size(); ++m) {
    const std::string& key = metrics[m].column.key;
    if (key == by || (key.size() > by.size() && key.compare(0, by.size(), by) == 0 && key[by.size()] == '_')) return m;
    known += (m ? ", " : "") + key;
  }
  throw InputError("--by", fmt::format("unknown metric '{}' (expected one of {})", by, known));
}

std::vector<int64_t> top_points(const SweepResult& r, const std::string& by, int64_t k) {
  const size_t m = metric_index(r, by);
  const bool higher = r.metrics[m].higher_is_better;
  std::vector<int64_t> order;
  for (int64_t p = 0; p < r.points; ++p)
    if (r.feasible(p) && !std::isnan(r.value(p, m))) order.push_back(p);
  const auto better = [&](int64_t a, int64_t b) {
    return higher ? r.value(a, m) > r.value(b, m) : r.value(a, m) < r.value(b, m);
  };
  const auto keep = static_cast<size_t>(std::clamp<int64_t>(k, 0, static_cast<int64_t>(order.size())));
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep), order.end(),
                    [&](int64_t a, int64_t b) { return better(a, b) || (!better(b, a) && a < b); });
  order.resize(keep);
  return order;
}

namespace {

// Appends row `p` of `from` to `to`.
void append_row(const SweepResult& from, int64_t p, SweepResult& to) {
  const auto i = static_cast<size_t>(p);
  const size_t na = from.axes.size(), nm = from.metrics.size();
  to.value_index.insert(to.value_index.end(), from.value_index.begin() + static_cast<std::ptrdiff_t>(i * na),
                        from.value_index.begin() + static_cast<std::ptrdiff_t>((i + 1) * na));
  to.values.insert(to.values.end(), from.values.begin() + static_cast<std::ptrdiff_t>(i * nm),
                   from.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * nm));
  to.reasons.push_back(from.reasons[i]);
  ++to.points;
}

}  // namespace

void TopPoints::add(const SweepResult& block, int64_t) {
  if (kept_.points == 0 && kept_.axes.empty()) {
    kept_.axes = block.axes;
    kept_.metrics = block.metrics;
  }
  feasible_ += block.feasible_count();
  // The block's best join the kept rows (which all come from earlier points), and the best k of
  // both stay, in point order, so ties still fall to the earlier point.
  std::vector<int64_t> from_block = top_points(block, by_, k_);
  std::sort(from_block.begin(), from_block.end());
  for (const int64_t p : from_block) append_row(block, p, kept_);
  std::vector<int64_t> best = top_points(kept_, by_, k_);
  std::sort(best.begin(), best.end());
  SweepResult next;
  next.axes = kept_.axes;
  next.metrics = kept_.metrics;
  for (const int64_t p : best) append_row(kept_, p, next);
  kept_ = std::move(next);
}

reports::Table to_table(const SweepResult& r, const std::vector<int64_t>& points, int64_t begin, int64_t end,
                        const std::string& title) {
  std::vector<reports::Column> cols;
  std::vector<std::vector<reports::Cell>> axis_cells;
  for (const auto& a : r.axes) {
    cols.push_back({a.key, a.key, 3});
    auto& cells = axis_cells.emplace_back();
    for (const auto& v : a.values) cells.push_back(typed_cell(v));
  }
  cols.push_back({"feasible", "feasible"});
  for (const auto& m : r.metrics) cols.push_back(m.column);
  cols.push_back({"reason", "reason"});
  reports::Table t(title, std::move(cols));
  for (int64_t i = begin; i < end; ++i) {
    const int64_t p = points.empty() ? i : points[static_cast<size_t>(i)];
    std::vector<reports::Cell> row;
    for (size_t a = 0; a < r.axes.size(); ++a)
      row.push_back(axis_cells[a][static_cast<size_t>(r.value_index[static_cast<size_t>(p) * r.axes.size() + a])]);
    row.emplace_back(r.feasible(p));  // a boolean: "true"/"false" in CSV and JSON, yes/no in tables
    for (size_t m = 0; m < r.metrics.size(); ++m) {
      const double v = r.value(p, m);
      if (std::isnan(v))
        row.emplace_back();
      else
        row.emplace_back(v);
    }
    row.emplace_back(r.reasons[static_cast<size_t>(p)]);
    t.add_row(std::move(row));
  }
  return t;
}

}  // namespace mhcsim::sweep
