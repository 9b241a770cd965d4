#pragma once
// Latency percentiles in fixed memory, whatever the number of requests: a log-bucketed
// histogram (DDSketch, Masson et al., VLDB 2019; vidur keeps its series in a CDF sketch for
// the same reason). Every quantile is within kRelativeAccuracy of a value of the stream; the
// mean, minimum and maximum are exact.
#include <array>
#include <cstdint>

namespace mhcsim::serving {

class QuantileSketch {
 public:
  static constexpr double kRelativeAccuracy = 0.005;
  static constexpr double kMinValue = 1e-7;  // s; smaller values (and 0) share the first bucket
  // s; larger ones share the last. Past capacity a run's latencies reach the simulated clock's
  // range (arrivals up to 1e9 s, kMaxArrivalSeconds) and beyond: at 1e7 s a run whose mean TTFT
  // was 5.5e7 s printed p50 = p99 = 1.07e7 s.
  static constexpr double kMaxValue = 1e12;

  void add(double value);
  // q in [0, 1]; 0 for an empty sketch. Nearest rank: the smallest value with at least
  // q x count values at or below it, as its bucket's centre.
  double quantile(double q) const;
  int64_t count() const { return count_; }
  double mean() const { return count_ > 0 ? sum_ / static_cast<double>(count_) : 0.0; }
  double min() const { return count_ > 0 ? min_ : 0.0; }
  double max() const { return count_ > 0 ? max_ : 0.0; }

 private:
  static constexpr int kBuckets = 4384;  // ceil(log(kMaxValue / kMinValue) / log(gamma)) + 2 = 4377
  std::array<uint32_t, kBuckets> buckets_{};
  int64_t count_ = 0;
  double sum_ = 0, min_ = 0, max_ = 0;
};

}  // namespace mhcsim::serving
