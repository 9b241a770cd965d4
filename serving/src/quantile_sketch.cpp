#include "mhcsim/serving/quantile_sketch.h"

#include <algorithm>
#include <cmath>

namespace mhcsim::serving {

namespace {
// Bucket i > 0 holds (min gamma^(i-1), min gamma^i]; its centre 2 min gamma^i / (gamma + 1) is
// within alpha of every value in it.
const double kGamma = (1 + QuantileSketch::kRelativeAccuracy) / (1 - QuantileSketch::kRelativeAccuracy);
const double kLogGamma = std::log(kGamma);
}  // namespace

void QuantileSketch::add(double v) {
  if (!(v >= 0)) v = 0;  // NaN and negatives are not latencies; counted as 0
  int i = 0;
  if (v > kMinValue) i = static_cast<int>(std::ceil(std::log(v / kMinValue) / kLogGamma));
  ++buckets_[static_cast<size_t>(std::clamp(i, 0, kBuckets - 1))];
  if (count_ == 0) min_ = max_ = v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
  sum_ += v;
  ++count_;
}

double QuantileSketch::quantile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 1.0);
  const int64_t rank = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(q * static_cast<double>(count_))));
  int64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[static_cast<size_t>(i)];
    if (seen >= rank) {
      const double centre = i == 0 ? kMinValue : 2.0 * kMinValue * std::exp(i * kLogGamma) / (kGamma + 1.0);
      return std::clamp(centre, min_, max_);
    }
  }
  return max_;
}

}  // namespace mhcsim::serving
