#include "mhcsim/kernels/ref/moe_ref.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace mhcsim::kernels::ref {
namespace {

// Indices of `values` ordered by descending value, ties to the lower index.
std::vector<int64_t> order_desc(const std::vector<double>& values) {
  std::vector<int64_t> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
    return values[static_cast<size_t>(a)] > values[static_cast<size_t>(b)];
  });
  return order;
}

}  // namespace

void moe_gate(const MoeGateParams& p) {
  validate(p);
  const int64_t group_size = p.experts / p.groups;
  std::vector<double> affinity(static_cast<size_t>(p.experts)), choice(affinity.size());
  std::vector<double> group_score(static_cast<size_t>(p.groups));
  for (int64_t t = 0; t < p.tokens; ++t) {
    for (int64_t e = 0; e < p.experts; ++e) {
      affinity[static_cast<size_t>(e)] = 1.0 / (1.0 + std::exp(-double(p.logits[t * p.experts + e])));
      choice[static_cast<size_t>(e)] = affinity[static_cast<size_t>(e)] + p.bias[e];
    }
    for (int64_t g = 0; g < p.groups; ++g) {  // sum of the group's top-2 biased affinities
      std::vector<double> in_group(choice.begin() + g * group_size, choice.begin() + (g + 1) * group_size);
      std::partial_sort(in_group.begin(), in_group.begin() + 2, in_group.end(), std::greater<>());
      group_score[static_cast<size_t>(g)] = in_group[0] + in_group[1];
    }
    const std::vector<int64_t> group_order = order_desc(group_score);
    std::vector<double> masked(choice.size(), -INFINITY);
    for (int64_t r = 0; r < p.topk_group; ++r) {
      const int64_t g = group_order[static_cast<size_t>(r)];
      std::copy(choice.begin() + g * group_size, choice.begin() + (g + 1) * group_size,
                masked.begin() + g * group_size);
    }
    const std::vector<int64_t> expert_order = order_desc(masked);
    double sum = 0;
    for (int64_t s = 0; s < p.top_k; ++s) sum += affinity[static_cast<size_t>(expert_order[static_cast<size_t>(s)])];
    for (int64_t s = 0; s < p.top_k; ++s) {  // weights from the unbiased affinities
      const int64_t e = expert_order[static_cast<size_t>(s)];
      p.topk_idx[t * p.top_k + s] = int32_t(e);
      p.topk_weight[t * p.top_k + s] = float(affinity[static_cast<size_t>(e)] / sum * p.route_scale);
    }
  }
}

void moe_permute(const MoePermuteParams& p) {
  validate(p);
  const int64_t slots = p.tokens * p.top_k;
  std::vector<int32_t> filled(static_cast<size_t>(p.experts), 0);
  std::fill(p.expert_offsets, p.expert_offsets + p.experts + 1, 0);
  for (int64_t s = 0; s < slots; ++s) ++p.expert_offsets[p.topk_idx[s] + 1];
  std::partial_sum(p.expert_offsets, p.expert_offsets + p.experts + 1, p.expert_offsets);
  for (int64_t s = 0; s < slots; ++s) {  // slots in (token, slot) order keep each expert stable
    const int32_t e = p.topk_idx[s];
    const int32_t row = p.expert_offsets[e] + filled[static_cast<size_t>(e)]++;
    p.row_of_slot[s] = row;
    p.slot_of_row[row] = int32_t(s);
    std::copy(p.x + (s / p.top_k) * p.hidden, p.x + (s / p.top_k + 1) * p.hidden, p.x_perm + row * p.hidden);
  }
}

void moe_combine(const MoeCombineParams& p) {
  validate(p);
  for (int64_t t = 0; t < p.tokens; ++t) {
    for (int64_t c = 0; c < p.hidden; ++c) {
      double v = 0;
      for (int64_t s = 0; s < p.top_k; ++s) {
        const int64_t row = p.row_of_slot[t * p.top_k + s];
        v += double(p.topk_weight[t * p.top_k + s]) * bf16_to_float(p.y_perm[row * p.hidden + c]);
      }
      p.out[t * p.hidden + c] = float_to_bf16(float(v));
    }
  }
}

}  // namespace mhcsim::kernels::ref
