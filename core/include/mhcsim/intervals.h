#pragma once
// Interval arithmetic on [start, end) spans in seconds: the busy time of a stream (union of
// its ops) and how much of it overlaps another (compute hidden behind communication). Used by
// the simulator's per-rank statistics and by the measured-trace timeline metrics.
#include <utility>
#include <vector>

namespace mhcsim {

using Span = std::pair<double, double>;  // [start, end) in seconds

// Sorts and merges overlapping spans in place (empty ones dropped); returns the union's length.
double merge_spans(std::vector<Span>& spans);
// The same for spans already sorted (e.g. a stream's ops in issue order): no sort.
double merge_sorted_spans(std::vector<Span>& spans);
// Length of the intersection of two merged span lists.
double intersection_seconds(const std::vector<Span>& a, const std::vector<Span>& b);

}  // namespace mhcsim
