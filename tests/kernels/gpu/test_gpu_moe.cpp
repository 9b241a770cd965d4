// CUDA MoE gate, permute and combine against the CPU references.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "../moe_case.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/ref/moe_ref.h"

using namespace mhcsim::kernels;

TEST_CASE("gpu moe_gate matches the reference up to near-ties", "[gpu][moe]") {
  testing::MoeCase c;
  testing::make_moe_case(c, 777, 401);
  DeviceBuffer<float> logits(c.logits), bias(c.bias), weight(c.weight.size());
  DeviceBuffer<int32_t> idx(c.idx.size());
  MoeGateParams p = c.gate;
  p.logits = logits.get();
  p.bias = bias.get();
  p.topk_idx = idx.get();
  p.topk_weight = weight.get();
  moe_gate(p);
  ref::moe_gate(c.gate);
  const auto got_idx = idx.download();
  const auto got_w = weight.download();
  const auto choice = [&](int64_t t, int32_t e) {
    return 1.0 / (1.0 + std::exp(-double(c.logits[size_t(t * 256 + e)]))) + c.bias[size_t(e)];
  };
  int swaps = 0;
  for (int64_t t = 0; t < c.gate.tokens; ++t) {
    for (int64_t s = 0; s < 8; ++s) {
      const size_t at = size_t(t * 8 + s);
      if (got_idx[at] == c.idx[at]) {
        // fp32 sigmoid (expf within 2 ulp), an 8-term sum, a division and the scale: about ten
        // fp32 roundings, rel. ~6e-7; 2e-6 leaves a factor of 3.
        CHECK(std::abs(got_w[at] - c.weight[at]) <= 2e-6f * c.weight[at] + 1e-7f);
      } else {
        // fp32 choice scores can order two experts closer than 1e-6 differently than double.
        ++swaps;
        CHECK(std::abs(choice(t, got_idx[at]) - choice(t, c.idx[at])) < 1e-6);
      }
    }
  }
  CHECK(swaps <= 4);
}

TEST_CASE("gpu moe_permute and moe_combine match the reference exactly / to bf16", "[gpu][moe]") {
  testing::MoeCase c;
  const int64_t tokens = 513, k = 8, hidden = 7168;
  testing::make_moe_case(c, tokens, 402);
  ref::moe_gate(c.gate);
  const auto x = testing::uniform_bf16(size_t(tokens * hidden), -3.0f, 3.0f, 403);
  const size_t slots = size_t(tokens * k);
  DeviceBuffer<int32_t> idx(c.idx), offsets(257), row_of(slots), slot_of(slots);
  DeviceBuffer<bf16_bits> dx(x), x_perm(slots * size_t(hidden)), out(x.size());
  DeviceBuffer<float> w(c.weight);
  MoePermuteParams p;
  p.topk_idx = idx.get();
  p.x = dx.get();
  p.x_perm = x_perm.get();
  p.expert_offsets = offsets.get();
  p.row_of_slot = row_of.get();
  p.slot_of_row = slot_of.get();
  p.tokens = tokens;
  p.hidden = hidden;
  p.experts = 256;
  p.top_k = k;
  moe_permute(p);
  std::vector<bf16_bits> want_perm(slots * size_t(hidden));
  std::vector<int32_t> want_off(257), want_row(slots), want_slot(slots);
  MoePermuteParams h = p;
  h.topk_idx = c.idx.data();
  h.x = x.data();
  h.x_perm = want_perm.data();
  h.expert_offsets = want_off.data();
  h.row_of_slot = want_row.data();
  h.slot_of_row = want_slot.data();
  ref::moe_permute(h);
  CHECK(offsets.download() == want_off);  // the layout is deterministic: exact
  CHECK(row_of.download() == want_row);
  CHECK(slot_of.download() == want_slot);
  CHECK(x_perm.download() == want_perm);

  MoeCombineParams q;
  q.y_perm = x_perm.get();
  q.row_of_slot = row_of.get();
  q.topk_weight = w.get();
  q.out = out.get();
  q.tokens = tokens;
  q.hidden = hidden;
  q.top_k = k;
  moe_combine(q);
  std::vector<bf16_bits> want_out(x.size());
  MoeCombineParams hq = q;
  hq.y_perm = want_perm.data();
  hq.row_of_slot = want_row.data();
  hq.topk_weight = c.weight.data();
  hq.out = want_out.data();
  ref::moe_combine(hq);
  const auto got = out.download();
  for (size_t e = 0; e < got.size(); ++e) {  // both round a near-equal sum: 1 bf16 ulp
    const double r = bf16_to_float(want_out[e]);
    CHECK(std::abs(bf16_to_float(got[e]) - r) <= kBf16Epsilon * std::abs(r) + 1e-6);
  }
}
