#pragma once
// Interval arithmetic on [start, end) spans in seconds: union and intersection lengths.
#include <utility>
#include <vector>

namespace mhcsim::traces {

using Span = std::pair<double, double>;

// Sorts and merges overlapping spans in place; returns the union's length.
double merge_spans(std::vector<Span>& spans);
// Length of the intersection of two merged span lists.
double intersection_seconds(const std::vector<Span>& a, const std::vector<Span>& b);

}  // namespace mhcsim::traces
