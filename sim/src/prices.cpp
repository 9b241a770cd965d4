#include "mhcsim/sim/prices.h"

#include <algorithm>

namespace mhcsim::sim {

PhasePrices uniform_prices(double forward_seconds, double backward_input_seconds, double backward_weight_seconds) {
  PhasePrices p;
  p.attn_forward_seconds = forward_seconds;
  p.attn_backward_input_seconds = backward_input_seconds;
  p.attn_backward_weight_seconds = backward_weight_seconds;
  return p;
}

StagePrices uniform_stages(const PhasePrices& chunk) { return {chunk, chunk, 0.0}; }

PhasePrices prices_from_chunk_cost(const cost::ChunkCost& c, double a2a_overlap) {
  PhasePrices p;
  p.a2a_overlap = a2a_overlap;
  p.attn_forward_seconds = c.attn_forward_seconds;
  p.mhc_post_forward_seconds = std::min(c.mhc_forward_seconds / 2, c.mlp_forward_seconds);
  p.mlp_forward_seconds = c.mlp_forward_seconds - p.mhc_post_forward_seconds;
  p.dispatch_seconds = c.dispatch_seconds;
  p.combine_seconds = c.combine_seconds;
  p.attn_backward_input_seconds = c.attn_backward_input_seconds;
  p.attn_backward_weight_seconds = c.attn_backward_weight_seconds;
  p.mlp_backward_input_seconds = c.mlp_backward_input_seconds;
  p.mlp_backward_weight_seconds = c.mlp_backward_weight_seconds;
  p.pp_send_seconds = c.pp_send_seconds;
  p.pp_send_bytes = c.pp_send_bytes;
  p.activation_bytes = c.activation_bytes;
  return p;
}

}  // namespace mhcsim::sim
