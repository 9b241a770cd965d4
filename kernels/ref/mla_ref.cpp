#include "mhcsim/kernels/ref/mla_ref.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "mhcsim/kernels/fp8.h"

namespace mhcsim::kernels::ref {

void mla_cache_row(const MlaDecodeParams& p, int64_t block, int64_t slot, float* row) {
  const int64_t index = block * kMlaBlockTokens + slot;
  if (p.kv_cache != nullptr) {
    const bf16_bits* src = p.kv_cache + index * kMlaHeadDim;
    for (int64_t d = 0; d < kMlaHeadDim; ++d) row[d] = bf16_to_float(src[d]);
    return;
  }
  const uint8_t* src = p.kv_cache_fp8 + index * kMlaFp8RowBytes;
  float scales[kMlaFp8Scales];
  std::memcpy(scales, src + kMlaLatentDim, sizeof scales);
  for (int64_t d = 0; d < kMlaLatentDim; ++d) {
    row[d] = round_to_bf16(fp8_e4m3_to_float(src[d]) * scales[d / kMlaFp8ScaleTile]);
  }
  bf16_bits rope[kMlaRopeDim];
  std::memcpy(rope, src + kMlaLatentDim + sizeof scales, sizeof rope);
  for (int64_t d = 0; d < kMlaRopeDim; ++d) row[kMlaLatentDim + d] = bf16_to_float(rope[d]);
}

void quantize_mla_row_fp8(const float* row, uint8_t* out) {
  float scales[kMlaFp8Scales];
  for (int64_t s = 0; s < kMlaFp8Scales; ++s) {
    float amax = 1e-4f;
    for (int64_t d = 0; d < kMlaFp8ScaleTile; ++d) amax = std::max(amax, std::fabs(row[s * kMlaFp8ScaleTile + d]));
    scales[s] = std::exp2(std::ceil(std::log2(amax / kFp8E4M3Max)));
    for (int64_t d = 0; d < kMlaFp8ScaleTile; ++d) {
      out[s * kMlaFp8ScaleTile + d] = float_to_fp8_e4m3(row[s * kMlaFp8ScaleTile + d] / scales[s]);
    }
  }
  std::memcpy(out + kMlaLatentDim, scales, sizeof scales);
  bf16_bits rope[kMlaRopeDim];
  for (int64_t d = 0; d < kMlaRopeDim; ++d) rope[d] = float_to_bf16(row[kMlaLatentDim + d]);
  std::memcpy(out + kMlaLatentDim + sizeof scales, rope, sizeof rope);
}

std::vector<float> mla_sequence_rows(const MlaDecodeParams& p, int64_t b) {
  const int64_t len = p.seq_lens[b];
  std::vector<float> rows(static_cast<size_t>(len * kMlaHeadDim));
  for (int64_t t = 0; t < len; ++t) {
    const int64_t block = p.block_table[b * p.max_blocks_per_seq + t / kMlaBlockTokens];
    mla_cache_row(p, block, t % kMlaBlockTokens, rows.data() + t * kMlaHeadDim);
  }
  return rows;
}

std::vector<double> mla_softmax_weights(const MlaDecodeParams& p, int64_t b, int64_t h, const std::vector<float>& rows,
                                        double& lse) {
  const int64_t len = static_cast<int64_t>(rows.size()) / kMlaHeadDim;
  const bf16_bits* q = p.q + (b * p.heads + h) * kMlaHeadDim;
  std::vector<double> w(static_cast<size_t>(len));
  double max_score = -std::numeric_limits<double>::infinity();
  for (int64_t t = 0; t < len; ++t) {
    const float* row = rows.data() + t * kMlaHeadDim;
    double s = 0;
    for (int64_t d = 0; d < kMlaHeadDim; ++d) s += double(bf16_to_float(q[d])) * row[d];
    w[static_cast<size_t>(t)] = s * p.softmax_scale;
    max_score = std::max(max_score, w[static_cast<size_t>(t)]);
  }
  double sum = 0;
  for (double& x : w) sum += (x = std::exp(x - max_score));
  for (double& x : w) x /= sum;
  // Empty sequence: the softmax has no terms, so lse = log(0) = -inf.
  lse = len > 0 ? max_score + std::log(sum) : -std::numeric_limits<double>::infinity();
  return w;
}

void mla_decode(const MlaDecodeParams& p, float* out, float* lse) {
  validate(p);
  for (int64_t b = 0; b < p.batch; ++b) {
    const auto rows = mla_sequence_rows(p, b);
    for (int64_t h = 0; h < p.heads; ++h) {
      double head_lse = 0;
      const auto w = mla_softmax_weights(p, b, h, rows, head_lse);
      std::vector<double> acc(kMlaLatentDim, 0.0);  // o = 0 for an empty sequence
      for (size_t t = 0; t < w.size(); ++t) {
        const float* row = rows.data() + t * kMlaHeadDim;
        for (int64_t d = 0; d < kMlaLatentDim; ++d) acc[static_cast<size_t>(d)] += w[t] * row[d];
      }
      float* o = out + (b * p.heads + h) * kMlaLatentDim;
      for (int64_t d = 0; d < kMlaLatentDim; ++d) o[d] = float(acc[static_cast<size_t>(d)]);
      lse[b * p.heads + h] = float(head_lse);
    }
  }
}

}  // namespace mhcsim::kernels::ref
