#include "layer_bytes.h"

#include "mhcsim/cost/kernel_bytes.h"
#include "as_double.h"

namespace mhcsim::cost {

double elementwise_bytes_per_token(const Scenario& s) {
  const auto& m = s.model;
  const DType act = s.precision.activations;
  // The two RMSNorms of each layer read and write the hidden.
  double bytes = 2.0 * 2.0 * d(m.hidden) * bytes_per_element(act) * d(m.layers);
  if (m.is_moe())
    bytes += d(m.moe_layers()) * (moe_permute_bytes(1, m.top_k, m.hidden, act).total() +
                                  moe_combine_bytes(1, m.top_k, m.hidden, act).total());
  return bytes;
}

}  // namespace mhcsim::cost
