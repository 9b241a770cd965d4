#include "mhcsim/intervals.h"

#include <algorithm>

namespace mhcsim {

double merge_spans(std::vector<Span>& spans) {
  std::sort(spans.begin(), spans.end());
  return merge_sorted_spans(spans);
}

double merge_sorted_spans(std::vector<Span>& spans) {
  size_t out = 0;
  for (const auto& s : spans) {
    if (s.second <= s.first) continue;  // empty spans add nothing
    if (out > 0 && s.first <= spans[out - 1].second)
      spans[out - 1].second = std::max(spans[out - 1].second, s.second);
    else
      spans[out++] = s;
  }
  spans.resize(out);
  double total = 0;
  for (const auto& s : spans) total += s.second - s.first;
  return total;
}

double intersection_seconds(const std::vector<Span>& a, const std::vector<Span>& b) {
  double total = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const double lo = std::max(a[i].first, b[j].first);
    const double hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return total;
}

}  // namespace mhcsim
