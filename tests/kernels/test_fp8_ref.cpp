// The host FP8 E4M3FN conversion (OCP 8-bit FP spec v1.0) and FlashMLA's FP8 cache rows.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "cases.h"
#include "mhcsim/kernels/fp8.h"
#include "mhcsim/kernels/ref/mla_ref.h"

using namespace mhcsim::kernels;

TEST_CASE("fp8 e4m3: the specification's landmark codes", "[kernels][fp8]") {
  CHECK(fp8_e4m3_to_float(0x00) == 0.0f);
  CHECK(std::signbit(fp8_e4m3_to_float(0x80)));
  CHECK(fp8_e4m3_to_float(0x01) == 0x1p-9f);      // smallest subnormal
  CHECK(fp8_e4m3_to_float(0x07) == 7 * 0x1p-9f);  // largest subnormal
  CHECK(fp8_e4m3_to_float(0x08) == 0x1p-6f);      // smallest normal
  CHECK(fp8_e4m3_to_float(0x38) == 1.0f);
  CHECK(fp8_e4m3_to_float(0xb8) == -1.0f);
  CHECK(fp8_e4m3_to_float(0x7e) == 448.0f);  // largest finite
  CHECK(std::isnan(fp8_e4m3_to_float(0x7f)));
  CHECK(std::isnan(fp8_e4m3_to_float(0xff)));
  CHECK(fp8_e4m3_to_float(0x78) == 256.0f);  // S.1111.000 is finite: no infinities
}

TEST_CASE("fp8 e4m3: encoding inverts decoding and rounds to nearest even", "[kernels][fp8]") {
  for (int code = 0; code < 256; ++code) {
    const auto c = static_cast<fp8_bits>(code);
    if (std::isnan(fp8_e4m3_to_float(c))) continue;
    CHECK(float_to_fp8_e4m3(fp8_e4m3_to_float(c)) == c);
  }
  CHECK(float_to_fp8_e4m3(1.0625f) == 0x38);  // halfway 1 and 1.125: the even mantissa (0)
  CHECK(float_to_fp8_e4m3(1.1875f) == 0x3a);  // halfway 1.125 and 1.25: mantissa 2
  CHECK(float_to_fp8_e4m3(1.07f) == 0x39);
  CHECK(float_to_fp8_e4m3(1.5f * 0x1p-9f) == 0x02);  // subnormal tie: to the even code
  CHECK(float_to_fp8_e4m3(7.5f * 0x1p-9f) == 0x08);  // rounds up into the smallest normal
  CHECK(float_to_fp8_e4m3(0x1p-11f) == 0x00);
  CHECK(float_to_fp8_e4m3(1000.0f) == 0x7e);  // saturates
  CHECK(float_to_fp8_e4m3(-1000.0f) == 0xfe);
  CHECK(float_to_fp8_e4m3(NAN) == kFp8E4M3NaN);
  // Every value in range lands on a nearest code: half a spacing, 2^-4 relative for normals
  // (3 mantissa bits) and 2^-10 absolute for subnormals.
  const auto values = testing::uniform(20000, -460.0f, 460.0f, 5);
  for (float v : values) {
    for (float x : {v, v * 0x1p-12f}) {
      const float back = fp8_e4m3_to_float(float_to_fp8_e4m3(x));
      const float a = std::fabs(x);
      if (a > 448.0f) {
        CHECK(std::fabs(back) == 448.0f);
      } else {
        CHECK(std::fabs(back - x) <= (a < 0x1p-6f ? 0x1p-10f : 0x1p-4f * a));
      }
    }
  }
}

TEST_CASE("FP8 cache rows: power-of-two scales, exact bf16 dequantization, bf16 RoPE", "[kernels][fp8][mla]") {
  auto row = testing::uniform(size_t(kMlaHeadDim), -3.0f, 3.0f, 9);
  for (int64_t d = 128; d < 256; ++d) row[size_t(d)] *= 1e-3f;  // a tile of small values
  for (int64_t d = 256; d < 384; ++d) row[size_t(d)] = 0.0f;    // an all-zero tile
  for (float& v : row) v = round_to_bf16(v);
  std::vector<uint8_t> packed(static_cast<size_t>(kMlaFp8RowBytes));
  ref::quantize_mla_row_fp8(row.data(), packed.data());
  float scales[kMlaFp8Scales];
  std::memcpy(scales, packed.data() + kMlaLatentDim, sizeof scales);
  for (int64_t s = 0; s < kMlaFp8Scales; ++s) {
    int e = 0;
    CHECK(std::frexp(scales[s], &e) == 0.5f);  // a power of two
    float amax = 0;
    for (int64_t d = 0; d < kMlaFp8ScaleTile; ++d)
      amax = std::max(amax, std::fabs(row[size_t(s * kMlaFp8ScaleTile + d)]));
    CHECK(amax / scales[s] <= kFp8E4M3Max);
    CHECK((amax < 1e-4f || amax / scales[s] > kFp8E4M3Max / 2));  // the tile uses e4m3's top binade
  }
  // Read it back through the reference's row accessor, as one page of one block.
  MlaDecodeParams p;
  p.kv_cache_fp8 = packed.data();
  std::vector<float> back(static_cast<size_t>(kMlaHeadDim));
  ref::mla_cache_row(p, 0, 0, back.data());
  for (int64_t d = 0; d < kMlaHeadDim; ++d) {
    const float x = row[size_t(d)], got = back[size_t(d)];
    CHECK(round_to_bf16(got) == got);  // e4m3 x 2^k needs 4 significant bits: exact in bf16
    if (d >= kMlaLatentDim) {
      CHECK(got == x);  // RoPE part kept in bf16
    } else {
      const float scale = scales[d / kMlaFp8ScaleTile];
      CHECK(std::fabs(got - x) <= std::max(0x1p-4f * std::fabs(x), 0x1p-10f * scale));
    }
  }
}

TEST_CASE("mla_decode reference over the FP8 cache equals the bf16 path over its dequantized rows",
          "[kernels][fp8][mla]") {
  const std::vector<int32_t> lens = {0, 1, 64, 65, 300};
  auto bf16 = testing::make_mla_case(lens, 4, 77);
  auto fp8 = testing::with_fp8_cache(bf16);
  // The bf16 cache that holds exactly what the FP8 rows dequantize to (NaN rows stay NaN).
  auto p8 = fp8.params();
  std::vector<float> row(static_cast<size_t>(kMlaHeadDim));
  for (int64_t r = 0; r < bf16.config.num_blocks * kMlaBlockTokens; ++r) {
    ref::mla_cache_row(p8, r / kMlaBlockTokens, r % kMlaBlockTokens, row.data());
    for (int64_t d = 0; d < kMlaHeadDim; ++d)
      bf16.kv_cache[size_t(r * kMlaHeadDim + d)] = float_to_bf16(row[size_t(d)]);
  }
  const size_t outs = size_t(bf16.config.batch * 4 * kMlaLatentDim), lses = size_t(bf16.config.batch * 4);
  std::vector<float> o8(outs), l8(lses), o16(outs), l16(lses);
  ref::mla_decode(p8, o8.data(), l8.data());
  ref::mla_decode(bf16.params(), o16.data(), l16.data());
  for (size_t i = 0; i < outs; ++i) {
    REQUIRE(std::isfinite(o8[i]));
    CHECK(o8[i] == o16[i]);
  }
  for (size_t i = 0; i < lses; ++i) CHECK((l8[i] == l16[i] || (std::isinf(l8[i]) && std::isinf(l16[i]))));
  // And the quantization moved the answer: a test that FP8 rows are really read.
  auto exact = testing::make_mla_case(lens, 4, 77);
  std::vector<float> oe(outs), le(lses);
  ref::mla_decode(exact.params(), oe.data(), le.data());
  double diff = 0;
  for (size_t i = 0; i < outs; ++i) diff = std::max(diff, double(std::fabs(oe[i] - o8[i])));
  CHECK(diff > 1e-4);
  CHECK(diff < 0.1);
}

TEST_CASE("mla_decode params: exactly one cache", "[kernels][fp8][mla]") {
  auto c = testing::make_mla_case({5}, 2, 3);
  auto p = c.params();
  std::vector<uint8_t> other(size_t(kMlaFp8RowBytes * kMlaBlockTokens * c.config.num_blocks));
  p.kv_cache_fp8 = other.data();
  CHECK_THROWS_WITH(validate(p), Catch::Contains("mla.kv_cache"));
  p.kv_cache = nullptr;
  p.kv_cache_fp8 = nullptr;
  CHECK_THROWS_WITH(validate(p), Catch::Contains("mla.kv_cache"));
}
