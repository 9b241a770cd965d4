#include "mhcsim/kernels/ref/mla_ref.h"

#include <cmath>
#include <limits>
#include <vector>

namespace mhcsim::kernels::ref {

void mla_decode(const MlaDecodeParams& p, float* out, float* lse) {
  validate(p);
  std::vector<double> scores, acc(kMlaLatentDim);
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t len = p.seq_lens[b];
    for (int64_t h = 0; h < p.heads; ++h) {
      const bf16_bits* q = p.q + (b * p.heads + h) * kMlaHeadDim;
      float* o = out + (b * p.heads + h) * kMlaLatentDim;
      scores.assign(static_cast<size_t>(len), 0.0);
      double max_score = -std::numeric_limits<double>::infinity();
      for (int64_t t = 0; t < len; ++t) {
        const int64_t block = p.block_table[b * p.max_blocks_per_seq + t / kMlaBlockTokens];
        const bf16_bits* row = p.kv_cache + (block * kMlaBlockTokens + t % kMlaBlockTokens) * kMlaHeadDim;
        double s = 0;
        for (int64_t d = 0; d < kMlaHeadDim; ++d) s += double(bf16_to_float(q[d])) * bf16_to_float(row[d]);
        scores[static_cast<size_t>(t)] = s * p.softmax_scale;
        max_score = std::max(max_score, scores[static_cast<size_t>(t)]);
      }
      std::fill(acc.begin(), acc.end(), 0.0);
      double sum = 0;
      for (int64_t t = 0; t < len; ++t) {
        const int64_t block = p.block_table[b * p.max_blocks_per_seq + t / kMlaBlockTokens];
        const bf16_bits* row = p.kv_cache + (block * kMlaBlockTokens + t % kMlaBlockTokens) * kMlaHeadDim;
        const double w = std::exp(scores[static_cast<size_t>(t)] - max_score);
        sum += w;
        for (int64_t d = 0; d < kMlaLatentDim; ++d) acc[static_cast<size_t>(d)] += w * bf16_to_float(row[d]);
      }
      // Empty sequence: the softmax has no terms, so o = 0 and lse = log(0) = -inf.
      for (int64_t d = 0; d < kMlaLatentDim; ++d) o[d] = len > 0 ? float(acc[static_cast<size_t>(d)] / sum) : 0.0f;
      lse[b * p.heads + h] = len > 0 ? float(max_score + std::log(sum))
                                     : -std::numeric_limits<float>::infinity();
    }
  }
}

}  // namespace mhcsim::kernels::ref
