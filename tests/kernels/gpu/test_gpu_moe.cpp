// CUDA MoE gate, permute and combine against the CPU references.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "../moe_case.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/ref/moe_ref.h"

using namespace mhcsim::kernels;

TEST_CASE("gpu moe_gate matches the reference up to near-ties", "[gpu][moe]") {
  auto c = testing::make_moe_case(777, 401);
  MoeGate<DeviceBuffer> d(c);
  moe_gate(d.params());
  ref::moe_gate(c.params());
  const auto got_idx = d.topk_idx.download();
  const auto got_w = d.topk_weight.download();
  const auto choice = [&](int64_t t, int32_t e) {
    return 1.0 / (1.0 + std::exp(-double(c.logits[size_t(t * 256 + e)]))) + c.bias[size_t(e)];
  };
  int swaps = 0;
  for (int64_t t = 0; t < c.config.tokens; ++t) {
    for (int64_t s = 0; s < 8; ++s) {
      const size_t at = size_t(t * 8 + s);
      if (got_idx[at] == c.topk_idx[at]) {
        // fp32 sigmoid (expf within 2 ulp), an 8-term sum, a division and the scale: about ten
        // fp32 roundings, rel. ~6e-7; 2e-6 leaves a factor of 3.
        CHECK(std::abs(got_w[at] - c.topk_weight[at]) <= 2e-6f * c.topk_weight[at] + 1e-7f);
      } else {
        // fp32 choice scores can order two experts closer than 1e-6 differently than double.
        ++swaps;
        CHECK(std::abs(choice(t, got_idx[at]) - choice(t, c.topk_idx[at])) < 1e-6);
      }
    }
  }
  CHECK(swaps <= 4);
}

TEST_CASE("gpu moe_permute and moe_combine match the reference exactly / to bf16", "[gpu][moe]") {
  auto [c, h] = testing::make_routed_case(513, 7168, 402);
  MoeGate<DeviceBuffer> gate(c);  // the reference's choices and weights
  MoeDispatch<DeviceBuffer> d(h);
  moe_permute(d.permute(gate.topk_idx.data()));
  ref::moe_permute(h.permute(c.topk_idx.data()));
  CHECK(d.expert_offsets.download() == h.expert_offsets);  // the layout is deterministic: exact
  CHECK(d.row_of_slot.download() == h.row_of_slot);
  CHECK(d.slot_of_row.download() == h.slot_of_row);
  CHECK(d.x_perm.download() == h.x_perm);

  moe_combine(d.combine(gate.topk_weight.data()));
  ref::moe_combine(h.combine(c.topk_weight.data()));
  const auto got = d.out.download();
  for (size_t e = 0; e < got.size(); ++e) {  // both round a near-equal sum: 1 bf16 ulp
    const double r = bf16_to_float(h.out[e]);
    CHECK(std::abs(bf16_to_float(got[e]) - r) <= kBf16Epsilon * std::abs(r) + 1e-6);
  }
}
