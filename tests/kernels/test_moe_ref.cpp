// MoE routing references (DeepSeek-V3 report 2.1.2 and its inference Gate): group-limited
// top-k with bias-for-selection-only, and the dispatch permutation round trip.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>

#include "moe_case.h"
#include "mhcsim/kernels/ref/moe_ref.h"

using namespace mhcsim::kernels;
using Catch::Matchers::WithinRel;

namespace {
double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }
}  // namespace

TEST_CASE("moe_gate: top-k stays within topk_group groups, sorted, weights from unbiased affinities",
          "[kernels][moe]") {
  auto c = testing::make_moe_case(64, 71);
  ref::moe_gate(c.params());
  const int64_t k = c.config.top_k, group_size = c.config.experts / c.config.groups;
  int limited_tokens = 0;  // tokens whose plain top-k would have used more groups
  for (int64_t t = 0; t < c.config.tokens; ++t) {
    std::set<int64_t> groups;
    double weight_sum = 0, affinity_sum = 0;
    for (int64_t s = 0; s < k; ++s) affinity_sum += sigmoid(c.logits[size_t(t * 256 + c.topk_idx[size_t(t * k + s)])]);
    for (int64_t s = 0; s < k; ++s) {
      const int32_t e = c.topk_idx[size_t(t * k + s)];
      groups.insert(e / group_size);
      const double choice = sigmoid(c.logits[size_t(t * 256 + e)]) + c.bias[size_t(e)];
      if (s > 0) {
        const int32_t prev = c.topk_idx[size_t(t * k + s - 1)];
        CHECK(sigmoid(c.logits[size_t(t * 256 + prev)]) + c.bias[size_t(prev)] >= choice);
      }
      const double expected = sigmoid(c.logits[size_t(t * 256 + e)]) / affinity_sum * 2.5;
      CHECK_THAT(c.topk_weight[size_t(t * k + s)], WithinRel(float(expected), 1e-6f));
      weight_sum += c.topk_weight[size_t(t * k + s)];
    }
    CHECK(int64_t(groups.size()) <= c.config.topk_group);
    CHECK_THAT(weight_sum, WithinRel(2.5, 1e-6));
    std::vector<double> all(256);
    for (int64_t e = 0; e < 256; ++e) all[size_t(e)] = sigmoid(c.logits[size_t(t * 256 + e)]) + c.bias[size_t(e)];
    std::vector<int64_t> order(256);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int64_t a, int64_t b) { return all[size_t(a)] > all[size_t(b)]; });
    std::set<int64_t> plain_groups;
    for (int64_t s = 0; s < k; ++s) plain_groups.insert(order[size_t(s)] / group_size);
    limited_tokens += int64_t(plain_groups.size()) > c.config.topk_group;
  }
  CHECK(limited_tokens > 0);  // the limit actually binds on this data
}

TEST_CASE("moe_gate: groups are ranked by the sum of their top-2, not their best expert", "[kernels][moe]") {
  auto c = testing::make_moe_case(1, 72);
  c.config.topk_group = 1;
  c.config.top_k = 2;
  std::fill(c.logits.begin(), c.logits.end(), -6.0f);
  std::fill(c.bias.begin(), c.bias.end(), 0.0f);
  c.logits[0] = 6.0f;                  // group 0: one strong expert (top-2 sum ~1.0)
  c.logits[32] = c.logits[33] = 1.5f;  // group 1: two good experts (top-2 sum ~1.64)
  ref::moe_gate(c.params());
  CHECK(c.topk_idx[0] == 32);
  CHECK(c.topk_idx[1] == 33);
}

TEST_CASE("moe_gate: the balancing bias moves selection but not the weights", "[kernels][moe]") {
  auto c = testing::make_moe_case(16, 73);
  c.bias[200] = 10.0f;  // expert 200 wins every token's first slot
  ref::moe_gate(c.params());
  for (int64_t t = 0; t < 16; ++t) {
    REQUIRE(c.topk_idx[size_t(t * 8)] == 200);
    double affinity_sum = 0;
    for (int64_t s = 0; s < 8; ++s) affinity_sum += sigmoid(c.logits[size_t(t * 256 + c.topk_idx[size_t(t * 8 + s)])]);
    CHECK_THAT(c.topk_weight[size_t(t * 8)],
               WithinRel(float(sigmoid(c.logits[size_t(t * 256 + 200)]) / affinity_sum * 2.5), 1e-6f));
  }
}

TEST_CASE("moe_permute / moe_combine: dispatch layout round-trips", "[kernels][moe]") {
  const int64_t tokens = 40, k = 8, hidden = 64;
  auto [c, m] = testing::make_routed_case(tokens, hidden, 74);
  ref::moe_permute(m.permute(c.topk_idx.data()));
  const auto& offsets = m.expert_offsets;
  const auto& slot_of_row = m.slot_of_row;
  CHECK(offsets.front() == 0);
  CHECK(offsets.back() == tokens * k);
  for (int64_t e = 0; e < 256; ++e) {
    for (int32_t row = offsets[size_t(e)]; row < offsets[size_t(e) + 1]; ++row) {
      CHECK(c.topk_idx[size_t(slot_of_row[size_t(row)])] == e);                                      // expert-major
      if (row > offsets[size_t(e)]) CHECK(slot_of_row[size_t(row)] > slot_of_row[size_t(row) - 1]);  // stable
    }
  }
  for (int64_t s = 0; s < tokens * k; ++s) {
    const int32_t row = m.row_of_slot[size_t(s)];
    CHECK(slot_of_row[size_t(row)] == s);
    CHECK(std::equal(m.x.begin() + (s / k) * hidden, m.x.begin() + (s / k + 1) * hidden,
                     m.x_perm.begin() + row * hidden));
  }
  // Combine the unchanged rows with weights summing to 1: every token comes back as itself.
  std::vector<float> w(size_t(tokens * k));
  for (size_t s = 0; s < w.size(); ++s) w[s] = c.topk_weight[s] / 2.5f;
  ref::moe_combine(m.combine(w.data()));
  // sum w = 1 +- a few float ulps, far below half a bf16 ulp, so the round trip is exact.
  CHECK(m.out == m.x);
}
