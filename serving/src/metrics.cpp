#include "metrics.h"

#include <algorithm>
#include <limits>

namespace mhcsim::serving::detail {

namespace {
Percentiles percentiles(const QuantileSketch& s) {
  return {s.quantile(0.5), s.quantile(0.9), s.quantile(0.99), s.mean(), s.max()};
}
double usd(double gpu_seconds, double price_per_gpu_hour) { return gpu_seconds / 3600.0 * price_per_gpu_hour; }
}  // namespace

Metrics::Metrics(double slo_ttft_s, double slo_tpot_s, int64_t total_blocks)
    : slo_ttft_s_(slo_ttft_s), slo_tpot_s_(slo_tpot_s), total_blocks_(static_cast<double>(total_blocks)) {
  series_.reserve(2 * kKvSeriesPoints);
}

void Metrics::advance(double now, int64_t in_system, int64_t used_blocks) {
  const double dt = now - now_;
  in_system_area_ += dt * static_cast<double>(in_system);
  used_blocks_area_ += dt * static_cast<double>(used_blocks);
  max_used_blocks_ = std::max(max_used_blocks_, static_cast<double>(used_blocks));
  now_ = now;
}

void Metrics::complete(const Live& r, double now) {
  const double ttft = r.first_token_s - r.arrival_s;
  const double e2e = now - r.arrival_s;
  ttft_.add(ttft);
  e2e_.add(e2e);
  bool ok = slo_ttft_s_ <= 0 || ttft <= slo_ttft_s_;
  if (r.output > 1) {
    const double tpot = (now - r.first_token_s) / static_cast<double>(r.output - 1);
    tpot_.add(tpot);
    ok = ok && (slo_tpot_s_ <= 0 || tpot <= slo_tpot_s_);
  }
  meeting_slo_ += ok ? 1 : 0;
  ++completed_;
  input_tokens_ += r.input;
  hit_tokens_ += r.hit;
  output_tokens_ += r.output;
  last_completion_s_ = std::max(last_completion_s_, now);
}

void Metrics::busy(double gpu_seconds, double price_per_gpu_hour, double prefill_tokens, double decode_tokens) {
  const double total = prefill_tokens + decode_tokens;
  if (total <= 0) return;
  const double cost = usd(gpu_seconds, price_per_gpu_hour);
  prefill_busy_usd_ += cost * prefill_tokens / total;
  decode_busy_usd_ += cost * decode_tokens / total;
}

// Keeps every stride-th sample; when twice the target count is held, every other one goes and
// the stride doubles, so the series covers the whole run in bounded memory.
void Metrics::sample_kv(double now, int64_t used_blocks) {
  if (series_seen_++ % series_stride_ != 0) return;
  series_.push_back({now, total_blocks_ > 0 ? static_cast<double>(used_blocks) / total_blocks_ : 0.0});
  if (series_.size() < 2 * kKvSeriesPoints) return;
  for (size_t i = 0; i < kKvSeriesPoints; ++i) series_[i] = series_[2 * i];
  series_.resize(kKvSeriesPoints);
  series_stride_ *= 2;
}

ServingResult Metrics::result(const std::vector<PoolBill>& pools) const {
  ServingResult r;
  r.requests = completed_;
  // n arrivals span n - 1 gaps; all at one instant (a burst) have no rate: NaN, shown as none.
  r.arrival_rate_per_s = last_arrival_s_ > first_arrival_s_
                             ? static_cast<double>(arrivals_ - 1) / (last_arrival_s_ - first_arrival_s_)
                             : std::numeric_limits<double>::quiet_NaN();
  r.rate_per_s = r.arrival_rate_per_s;
  r.duration_s = last_completion_s_;
  r.last_arrival_s = last_arrival_s_;
  r.ttft = percentiles(ttft_);
  r.tpot = percentiles(tpot_);
  r.e2e = percentiles(e2e_);
  r.input_tokens = input_tokens_;
  r.prefix_hit_tokens = hit_tokens_;
  r.output_tokens = output_tokens_;
  // Per node: over the nodes' worth of GPUs each pool holds, in its own servers.
  double nodes = 0, usd_per_s = 0;
  for (const auto& p : pools) {
    r.gpus += p.gpus;
    nodes += static_cast<double>(p.gpus) / static_cast<double>(std::max(1, p.gpus_per_node));
    usd_per_s += usd(static_cast<double>(p.gpus), p.price_per_gpu_hour);
  }
  const double gpu_s = static_cast<double>(r.gpus) * r.duration_s;
  if (gpu_s > 0) {
    r.input_tokens_per_s_per_gpu = input_tokens_ / gpu_s;
    r.output_tokens_per_s_per_gpu = output_tokens_ / gpu_s;
    r.input_tokens_per_s_per_node = input_tokens_ / (nodes * r.duration_s);
    r.output_tokens_per_s_per_node = output_tokens_ / (nodes * r.duration_s);
  }
  if (slo_ttft_s_ > 0 || slo_tpot_s_ > 0) {
    r.slo_attainment = completed_ > 0 ? static_cast<double>(meeting_slo_) / static_cast<double>(completed_) : 0.0;
    r.goodput_per_s = r.duration_s > 0 ? static_cast<double>(meeting_slo_) / r.duration_s : 0.0;
  } else {  // no SLO, nothing to meet: none, not 100%
    r.slo_attainment = r.goodput_per_s = std::numeric_limits<double>::quiet_NaN();
  }
  if (r.duration_s > 0 && total_blocks_ > 0) r.kv_utilisation_mean = used_blocks_area_ / (r.duration_s * total_blocks_);
  r.kv_utilisation_max = total_blocks_ > 0 ? max_used_blocks_ / total_blocks_ : 0.0;
  r.kv_utilisation_series = series_;
  r.mean_requests_in_system = r.duration_s > 0 ? in_system_area_ / r.duration_s : 0.0;
  r.max_requests_in_flight = max_in_flight_;
  // The whole run's GPU time is paid for, idle included, each pool at its GPU's price; prefill
  // and decode each carry their share of the busy time's cost.
  r.cost_usd = usd_per_s * r.duration_s;
  const double busy = prefill_busy_usd_ + decode_busy_usd_;
  if (busy > 0 && r.cost_usd > 0) {
    if (input_tokens_ > 0) r.cost_per_million_input_usd = r.cost_usd * prefill_busy_usd_ / busy / input_tokens_ * 1e6;
    if (output_tokens_ > 0) r.cost_per_million_output_usd = r.cost_usd * decode_busy_usd_ / busy / output_tokens_ * 1e6;
  }
  return r;
}

}  // namespace mhcsim::serving::detail
