// The weight-absorbed, paged MLA decode reference against naive attention that first
// decompresses K and V per head (DeepSeek-V2 paper 2.1: k = [W_UK c, k_rope], v = W_UV c).
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>

#include "cases.h"
#include "mhcsim/kernels/ref/mla_ref.h"

using namespace mhcsim::kernels;
using Catch::Matchers::WithinAbs;

namespace {

constexpr int64_t kNope = 128, kValue = 128;  // DeepSeek-V3 qk_nope_head_dim, v_head_dim
using Mat = Eigen::MatrixXd;

// Values in {-1, 0, 1} / scale, so W_UK q_nope (a sum of 128 such products) is an integer
// over 16 of magnitude <= 128/16 and therefore exact in bf16: absorption loses nothing.
Mat ternary(int64_t rows, int64_t cols, double scale, uint32_t seed) {
  const auto u = testing::uniform(size_t(rows * cols), -1.5f, 1.5f, seed);
  Mat m(rows, cols);
  for (int64_t i = 0; i < rows * cols; ++i) m(i / cols, i % cols) = std::round(u[size_t(i)]) / scale;
  return m;
}

Eigen::RowVectorXd cache_row(const testing::MlaCase& c, int64_t b, int64_t t, int64_t from, int64_t count) {
  const int64_t block = c.block_table[size_t(b * c.config.max_blocks_per_seq + t / kMlaBlockTokens)];
  Eigen::RowVectorXd r(count);
  for (int64_t d = 0; d < count; ++d) {
    r(d) = bf16_to_float(c.kv_cache[size_t((block * kMlaBlockTokens + t % kMlaBlockTokens) * kMlaHeadDim + from + d)]);
  }
  return r;
}

}  // namespace

TEST_CASE("mla_decode reference: absorbed paged attention equals decompress-then-attend", "[kernels][mla]") {
  const std::vector<int32_t> lens = GENERATE(std::vector<int32_t>{0, 1, 65, 200}, std::vector<int32_t>{64, 0, 129});
  const int64_t heads = 3;
  auto c = testing::make_mla_case(lens, heads, 31);
  std::vector<Mat> w_uk, w_uv, q_nope;
  for (int64_t h = 0; h < heads; ++h) {
    w_uk.push_back(ternary(kMlaLatentDim, kNope, 16.0, 40 + uint32_t(h)));
    w_uv.push_back(ternary(kMlaLatentDim, kValue, 8.0, 50 + uint32_t(h)));
  }
  // Absorb: q_lat = W_UK q_nope (exact in bf16, see ternary()).
  for (int64_t b = 0; b < c.config.batch; ++b) {
    for (int64_t h = 0; h < heads; ++h) {
      const Mat qn = ternary(kNope, 1, 1.0, 60 + uint32_t(b * heads + h));
      q_nope.push_back(qn);
      const Mat q_lat = w_uk[size_t(h)] * qn;
      for (int64_t d = 0; d < kMlaLatentDim; ++d) {
        const float v = float(q_lat(d, 0));
        REQUIRE(round_to_bf16(v) == v);
        c.q[size_t((b * heads + h) * kMlaHeadDim + d)] = float_to_bf16(v);
      }
    }
  }
  std::vector<float> out(size_t(c.config.batch * heads * kMlaLatentDim)), lse(size_t(c.config.batch * heads));
  ref::mla_decode(c.params(), out.data(), lse.data());

  for (int64_t b = 0; b < c.config.batch; ++b) {
    const int64_t len = c.seq_lens[size_t(b)];
    for (int64_t h = 0; h < heads; ++h) {
      const int64_t bh = b * heads + h;
      Eigen::RowVectorXd q_rope(kMlaRopeDim);
      for (int64_t d = 0; d < kMlaRopeDim; ++d)
        q_rope(d) = bf16_to_float(c.q[size_t(bh * kMlaHeadDim + kMlaLatentDim + d)]);
      // Naive: K_nope = C W_UK, V = C W_UV over the sequence's latent rows.
      Mat latent(len, kMlaLatentDim), rope(len, kMlaRopeDim);
      for (int64_t t = 0; t < len; ++t) {
        latent.row(t) = cache_row(c, b, t, 0, kMlaLatentDim);
        rope.row(t) = cache_row(c, b, t, kMlaLatentDim, kMlaRopeDim);
      }
      const Mat k_nope = latent * w_uk[size_t(h)], v = latent * w_uv[size_t(h)];
      const Eigen::VectorXd scores =
          (k_nope * q_nope[size_t(bh)] + rope * q_rope.transpose()) * double(c.config.softmax_scale);
      Eigen::RowVectorXd expected_o = Eigen::RowVectorXd::Zero(kValue);
      double expected_lse = -INFINITY;
      if (len > 0) {
        const double m = scores.maxCoeff();
        const Eigen::VectorXd w = (scores.array() - m).exp();
        expected_o = (w.transpose() * v) / w.sum();
        expected_lse = m + std::log(w.sum());
      }
      Eigen::RowVectorXd o_lat(kMlaLatentDim);
      for (int64_t d = 0; d < kMlaLatentDim; ++d) {
        const float value = out[size_t(bh * kMlaLatentDim + d)];
        REQUIRE(std::isfinite(value));  // no NaN from padding or unused table entries
        o_lat(d) = value;
      }
      const Eigen::RowVectorXd got_o = o_lat * w_uv[size_t(h)];
      // fp32 storage of o_lat (|o_lat| <= 1, rel. 6e-8) times sum |W_UV| column (<= 512/8):
      // <= 4e-6; 1e-5 leaves room for the double summation order.
      for (int64_t d = 0; d < kValue; ++d) CHECK_THAT(got_o(d), WithinAbs(expected_o(d), 1e-5));
      if (len == 0) {
        CHECK(std::isinf(lse[size_t(bh)]));
        CHECK(lse[size_t(bh)] < 0);
      } else {
        CHECK_THAT(double(lse[size_t(bh)]), WithinAbs(expected_lse, 1e-5));
      }
    }
  }
}
