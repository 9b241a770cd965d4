// CUDA MLA decode against the fp32 reference on NaN-poisoned paged caches.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "../cases.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/ref/mla_ref.h"

using namespace mhcsim::kernels;

namespace {
// sum_t w_t |v_t[d] - o[d]| for each latent dim d, with w the exact softmax weights of (b, h).
// The kernel rounds each weight to bf16 (w (1 + e), |e| <= u = 2^-8) before P V and normalises
// by the sum of the rounded weights, so its o is the same convex combination with perturbed
// weights: |o~ - o| = |sum w e (v - o)| / (1 + sum w e) <= u / (1 - u) sum w |v - o|.
std::vector<double> weighted_deviation(testing::MlaCase& c, int64_t b, int64_t h, const float* o) {
  const auto p = c.params();
  const auto rows = ref::mla_sequence_rows(p, b);
  double lse = 0;
  const auto w = ref::mla_softmax_weights(p, b, h, rows, lse);
  std::vector<double> deviation(static_cast<size_t>(kMlaLatentDim), 0.0);
  for (size_t t = 0; t < w.size(); ++t) {
    for (int64_t d = 0; d < kMlaLatentDim; ++d)
      deviation[size_t(d)] += w[t] * std::abs(rows[t * kMlaHeadDim + size_t(d)] - o[d]);
  }
  return deviation;
}

// Runs the kernel on c (NaN-filled outputs first: every output must be written) and checks
// it against the reference with the tolerances derived below.
void check_against_reference(testing::MlaCase& c) {
  const int64_t heads = c.config.heads;
  MlaDecode<DeviceBuffer> dev(c);
  dev.out.fill_bytes(0xff);
  mla_decode(dev.params());
  MHCSIM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> want(dev.out.size()), want_lse(dev.lse.size());
  ref::mla_decode(c.params(), want.data(), want_lse.data());
  const auto got = dev.out.download();
  const auto got_lse = dev.lse.download();
  for (int64_t b = 0; b < c.config.batch; ++b) {
    const int64_t len = c.seq_lens[size_t(b)];
    // bf16 output: half an ulp (eps/2 |ref|); fp32 accumulation of len weighted rows with
    // |c| <= 1 and weights <= 1: <= (len + 576) u (recursive-summation bound); bf16 weights:
    // see weighted_deviation.
    const double acc_tol = double(len + kMlaHeadDim) * 0x1p-24;
    constexpr double u = kBf16Epsilon / 2;
    for (int64_t h = 0; h < heads; ++h) {
      const float* o = want.data() + (b * heads + h) * kMlaLatentDim;
      const auto deviation = weighted_deviation(c, b, h, o);
      for (int64_t d = 0; d < kMlaLatentDim; ++d) {
        const size_t at = size_t((b * heads + h) * kMlaLatentDim + d);
        const float g = bf16_to_float(got[at]);
        REQUIRE(std::isfinite(g));
        const double weights_tol = u / (1 - u) * deviation[size_t(d)];
        CHECK(std::abs(g - want[at]) <= u * std::abs(want[at]) + weights_tol + acc_tol + 1e-6);
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
}  // namespace

TEST_CASE("gpu mla_decode matches the reference", "[gpu][mla]") {
  const std::vector<int32_t> lens = {0, 1, 63, 64, 65, 1000, 4097, 0, 2048};
  const int64_t heads = GENERATE(16, 10, 40);       // 10, 40: partly empty 16- and 32-head blocks
  const int64_t split = GENERATE(256, 1024, 8192);  // several, a few, one split per sequence
  auto c = testing::make_mla_case(lens, heads, 301, split);
  check_against_reference(c);
}

TEST_CASE("gpu mla_decode over the FP8 cache matches the reference", "[gpu][mla][fp8]") {
  const std::vector<int32_t> lens = {0, 1, 65, 1000, 4097};
  const int64_t heads = GENERATE(16, 40);
  const int64_t split = GENERATE(256, 8192);
  auto c = testing::with_fp8_cache(testing::make_mla_case(lens, heads, 302, split));
  check_against_reference(c);
}
