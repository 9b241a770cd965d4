#pragma once
// What the engine measures as it runs, in memory that does not grow with the requests served:
// latency sketches, token counts, time integrals (requests in the system, KV blocks in use) and
// a thinned KV-utilisation series.
#include <cstdint>
#include <vector>

#include "live_request.h"
#include "mhcsim/serving/config.h"
#include "mhcsim/serving/quantile_sketch.h"
#include "mhcsim/serving/result.h"

namespace mhcsim::serving::detail {

class Metrics {
 public:
  Metrics(double slo_ttft_s, double slo_tpot_s, int64_t total_blocks);
  // Integrates the state held since the previous call up to `now`.
  void advance(double now, int64_t in_system, int64_t used_blocks);
  void complete(const Live& r, double now);
  // Busy GPU-seconds of one iteration at its pool's price, shared between prefill and decode by
  // their tokens (a prefill pool's all to prefill, a decode pool's all to decode).
  void busy(double gpu_seconds, double price_per_gpu_hour, double prefill_tokens, double decode_tokens);
  void sample_kv(double now, int64_t used_blocks);
  void arrival(double time_s) {
    if (arrivals_++ == 0) first_arrival_s_ = time_s;
    last_arrival_s_ = time_s;
  }
  void in_flight(int64_t n) { max_in_flight_ = n > max_in_flight_ ? n : max_in_flight_; }

  // What each pool holds for the whole run: its GPUs, their nodes and price (a prefill pool may
  // run on another GPU than the decode pool: --prefill-scenario).
  struct PoolBill {
    int64_t gpus = 0;
    int gpus_per_node = 1;
    double price_per_gpu_hour = 0;
  };
  ServingResult result(const std::vector<PoolBill>& pools) const;
  double now() const { return now_; }

 private:
  double slo_ttft_s_, slo_tpot_s_;
  double total_blocks_;
  QuantileSketch ttft_, tpot_, e2e_;
  int64_t arrivals_ = 0, completed_ = 0, meeting_slo_ = 0;
  double input_tokens_ = 0, hit_tokens_ = 0, output_tokens_ = 0;
  double now_ = 0, first_arrival_s_ = 0, last_arrival_s_ = 0, last_completion_s_ = 0;
  double in_system_area_ = 0, used_blocks_area_ = 0, max_used_blocks_ = 0;
  double prefill_busy_usd_ = 0, decode_busy_usd_ = 0;
  int64_t max_in_flight_ = 0;
  std::vector<KvSample> series_;
  int64_t series_stride_ = 1, series_seen_ = 0;
};

}  // namespace mhcsim::serving::detail
