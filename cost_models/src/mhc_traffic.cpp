#include "mhcsim/cost/mhc_traffic.h"

#include <cmath>

#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
void require_n(int64_t n) { check(n >= 1, "model.mhc.n", "expansion rate must be >= 1"); }
TrafficRow sum_rows(std::string name, const std::vector<TrafficRow>& rows) {
  TrafficRow s{std::move(name), {}, {}};
  for (const auto& r : rows) {
    s.read.per_channel += r.read.per_channel;
    s.read.coefficients += r.read.coefficients;
    s.write.per_channel += r.write.per_channel;
    s.write.coefficients += r.write.coefficients;
  }
  return s;
}

ResidualTraffic traffic(const ModelSpec& m, const PrecisionSpec& p, bool fused, bool recompute, double layer_tokens) {
  check(m.hidden >= 1, "model.hidden", "must be >= 1");
  check(layer_tokens >= 0, "tokens", "must be >= 0");
  const auto fwd = residual_forward_row(m.residual, m.mhc_n, fused);
  // Recompute replays the mHC forward kernels only where there is something to drop.
  const bool replay = recompute && m.residual != ResidualKind::Residual && m.mhc_n > 1;
  ResidualTraffic t;
  t.forward = traffic_bytes(fwd, m.hidden, layer_tokens, p.activations);
  t.backward = traffic_bytes(backward_row(fwd), m.hidden, layer_tokens, p.activations);
  if (replay) t.recompute = t.forward;
  return t;
}
}  // namespace

KernelBytes traffic_bytes(const TrafficRow& r, int64_t channels, double tokens, DType act) {
  const double e = bytes_per_element(act), c = d(channels);
  constexpr double kF32 = 4.0;  // coefficients stay fp32 (paper 4.3.1)
  return {tokens * (r.read.per_channel * c * e + r.read.coefficients * kF32),
          tokens * (r.write.per_channel * c * e + r.write.coefficients * kF32)};
}

TrafficRow residual_merge_row() { return {"residual merge", {2, 0}, {1, 0}}; }
TrafficRow mhc_coefficients_row(int64_t n) {
  require_n(n);
  return {"compute H_pre, H_post, H_res", {d(n), 0}, {0, d(n * n + 2 * n)}};
}
TrafficRow mhc_apply_pre_row(int64_t n) {
  require_n(n);
  return {"apply H_pre", {d(n), d(n)}, {1, 0}};
}
TrafficRow mhc_apply_post_row(int64_t n) {
  require_n(n);
  return {"apply H_post", {1, d(n)}, {d(n), 0}};
}
TrafficRow mhc_apply_res_row(int64_t n) {
  require_n(n);
  return {"apply H_res", {d(n), d(n * n)}, {d(n), 0}};
}
TrafficRow mhc_stream_merge_row(int64_t n) {
  require_n(n);
  return {"residual merge", {2 * d(n), 0}, {d(n), 0}};
}
TrafficRow mhc_post_res_unfused_row(int64_t n) {
  return sum_rows("F_post,res unfused", {mhc_apply_post_row(n), mhc_apply_res_row(n), mhc_stream_merge_row(n)});
}
TrafficRow mhc_post_res_fused_row(int64_t n) {
  require_n(n);
  return {"F_post,res fused", {d(n + 1), d(n + n * n)}, {d(n), 0}};
}

std::vector<TrafficRow> mhc_table2(int64_t n) {
  std::vector<TrafficRow> rows{mhc_coefficients_row(n), mhc_apply_pre_row(n), mhc_apply_post_row(n),
                               mhc_apply_res_row(n), mhc_stream_merge_row(n)};
  rows.push_back(sum_rows("total", rows));
  return rows;
}

TrafficRow residual_forward_row(ResidualKind kind, int64_t n, bool fused) {
  require_n(n);
  if (kind == ResidualKind::Residual || n == 1) return residual_merge_row();
  if (!fused) return mhc_table2(n).back();
  return sum_rows("total fused", {mhc_coefficients_row(n), mhc_apply_pre_row(n), mhc_post_res_fused_row(n)});
}

TrafficRow backward_row(const TrafficRow& f) {
  return {f.operation + " backward",
          {f.read.per_channel + f.write.per_channel, f.read.coefficients + f.write.coefficients},
          f.read};
}

ResidualTraffic residual_traffic_per_token(const ModelSpec& m, const PrecisionSpec& p, bool fused, bool recompute) {
  return traffic(m, p, fused, recompute, 1.0);
}

ResidualTraffic residual_traffic_per_step(const ModelSpec& m, const PrecisionSpec& p, bool fused, bool recompute,
                                          double tokens) {
  check(m.layers >= 1, "model.layers", "must be >= 1");
  return traffic(m, p, fused, recompute, 2.0 * d(m.layers) * tokens);
}

double mhc_stored_elems_no_recompute(int64_t n, int64_t channels, int64_t layers) {
  require_n(n);
  check(layers >= 1, "model.layers", "must be >= 1");
  return d(n + 2) * d(channels) * d(layers);
}

// mHC paper Eq. 20.
double mhc_stored_elems_recompute(int64_t n, int64_t channels, int64_t layers, int64_t block) {
  require_n(n);
  check(layers >= 1, "model.layers", "must be >= 1");
  check(block >= 1 && block <= layers, "parallel.mhc_recompute_block",
        "block size must be in [1, layers of the stage]");
  const int64_t blocks = (layers + block - 1) / block;
  return d(n) * d(channels) * d(blocks) + d(n + 2) * d(channels) * d(block);
}

int64_t mhc_optimal_recompute_block(int64_t n, int64_t layers) {
  check(layers >= 1, "model.layers", "must be >= 1");
  int64_t best = 1;
  for (int64_t b = 2; b <= layers; ++b)
    if (mhc_stored_elems_recompute(n, 1, layers, b) < mhc_stored_elems_recompute(n, 1, layers, best)) best = b;
  return best;
}

}  // namespace mhcsim::cost
