// CUDA MLA decode against the fp32 reference on NaN-poisoned paged caches.
#include <catch2/catch.hpp>

#include <cmath>

#include "../cases.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/ref/mla_ref.h"

using namespace mhcsim::kernels;

TEST_CASE("gpu mla_decode matches the reference", "[gpu][mla]") {
  const std::vector<int32_t> lens = {0, 1, 63, 64, 65, 1000, 4097, 0, 2048};
  const int64_t heads = GENERATE(16, 10);          // 10: a partial group of 8 heads
  const int64_t split = GENERATE(256, 1024, 8192);  // several, a few, one split per sequence
  auto c = testing::make_mla_case(lens, heads, 301, split);
  MlaDecode<DeviceBuffer> dev(c);
  dev.out.fill_bytes(0xff);  // NaN pattern: every output must be written
  mla_decode(dev.params());
  MHCSIM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> want(dev.out.size()), want_lse(dev.lse.size());
  ref::mla_decode(c.params(), want.data(), want_lse.data());
  const auto got = dev.out.download();
  const auto got_lse = dev.lse.download();
  for (int64_t b = 0; b < c.config.batch; ++b) {
    const int64_t len = c.seq_lens[size_t(b)];
    // bf16 output: half an ulp (eps/2 |ref|); fp32 accumulation of len weighted rows with
    // |c| <= 1 and weights <= 1: <= (len + 576) u (recursive-summation bound).
    const double acc_tol = double(len + kMlaHeadDim) * 0x1p-24;
    for (int64_t h = 0; h < heads; ++h) {
      for (int64_t d = 0; d < kMlaLatentDim; ++d) {
        const size_t at = size_t((b * heads + h) * kMlaLatentDim + d);
        const float g = bf16_to_float(got[at]);
        REQUIRE(std::isfinite(g));
        CHECK(std::abs(g - want[at]) <= kBf16Epsilon / 2 * std::abs(want[at]) + acc_tol + 1e-6);
      }
      const size_t bh = size_t(b * heads + h);
      if (len == 0) {
        CHECK((std::isinf(got_lse[bh]) && got_lse[bh] < 0));
      } else {
        CHECK(std::abs(got_lse[bh] - want_lse[bh]) <= 4 * acc_tol + 1e-5 * std::abs(want_lse[bh]));
      }
    }
  }
}
