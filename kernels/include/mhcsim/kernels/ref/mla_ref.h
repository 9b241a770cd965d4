#pragma once
// fp32-output CPU reference of the paged, weight-absorbed MLA decode in mla_decode.h (double
// accumulation). Reads only the first seq_lens[b] rows through the block table, so poisoned
// padding and unused table entries never reach it.
#include <cstdint>
#include <vector>

#include "mhcsim/kernels/mla_decode.h"

namespace mhcsim::kernels::ref {

// out: [batch][heads][512] latent output, lse: [batch][heads]; p.out/p.lse are not touched.
void mla_decode(const MlaDecodeParams& p, float* out, float* lse);

// Token `slot` of page `block` as the 576 values the kernel computes with, from whichever
// cache p holds (FP8 rows: bf16(e4m3 x scale)).
void mla_cache_row(const MlaDecodeParams& p, int64_t block, int64_t slot, float* row);

// Sequence b's rows through the block table, [seq_lens[b]][576], as mla_cache_row reads them.
std::vector<float> mla_sequence_rows(const MlaDecodeParams& p, int64_t b);

// Head h's softmax weights over those rows (double, summing to 1; empty for an empty
// sequence), and its log-sum-exp in `lse` (-inf when empty).
std::vector<double> mla_softmax_weights(const MlaDecodeParams& p, int64_t b, int64_t h, const std::vector<float>& rows,
                                        double& lse);

// One 576-value row into the 656-byte FP8 layout. Each 128-value tile gets FlashMLA's
// power-of-two scale 2^ceil(log2(amax / 448)) (amax floored at 1e-4), so that dequantization
// is exact in bf16 and the largest value of the tile still fits e4m3.
void quantize_mla_row_fp8(const float* row, uint8_t* out);

}  // namespace mhcsim::kernels::ref
