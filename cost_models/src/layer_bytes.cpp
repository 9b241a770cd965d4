#include "layer_bytes.h"

#include "mhcsim/cost/kernel_bytes.h"

namespace mhcsim::cost {

namespace {
double d(int64_t v) { return static_cast<double>(v); }
}  // namespace

double norm_bytes_per_token(const Scenario& s) {
  return 2.0 * 2.0 * d(s.model.hidden) * bytes_per_element(s.precision.activations) * d(s.model.layers);
}

double elementwise_bytes_per_token(const Scenario& s) {
  const auto& m = s.model;
  const DType act = s.precision.activations;
  double bytes = norm_bytes_per_token(s);
  if (m.is_moe())
    bytes += d(m.moe_layers()) * (moe_permute_bytes(1, m.top_k, m.hidden, act).total() +
                                  moe_combine_bytes(1, m.top_k, m.hidden, act).total());
  return bytes;
}

double swiglu_bytes_per_token(const Scenario& s) {
  const auto& m = s.model;
  const double dense = d(m.is_moe() ? m.dense_layers : m.layers) * d(m.ffn_hidden);
  const double experts = d(m.moe_layers()) * d(m.top_k + m.shared_experts) * d(m.expert_ffn_hidden);
  return 3.0 * (dense + experts) * bytes_per_element(s.precision.activations);
}

}  // namespace mhcsim::cost
