#pragma once
// Seeded inputs shared by the CPU property tests and the GPU-vs-reference tests (FlashMLA
// habit: seeded parameter lists, NaN-poisoned padding and unused block-table entries).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "mhcsim/kernels/bf16.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/mla_decode.h"
#include "mhcsim/kernels/ref/mla_ref.h"

namespace mhcsim::kernels::testing {

inline std::vector<float> uniform(size_t count, float lo, float hi, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<float> v(count);
  for (float& x : v) x = dist(rng);
  return v;
}

inline std::vector<bf16_bits> to_bf16(const std::vector<float>& v) {
  std::vector<bf16_bits> out(v.size());
  for (size_t i = 0; i < v.size(); ++i) out[i] = float_to_bf16(v[i]);
  return out;
}

inline std::vector<bf16_bits> uniform_bf16(size_t count, float lo, float hi, uint32_t seed) {
  return to_bf16(uniform(count, lo, hi, seed));
}

// One mHC layer on the host, every input seeded: state x [tokens][n][C], F's output f
// [tokens][C], packed phi and bias, coefficients to feed the apply kernels, and Sinkhorn's
// logits and backward input.
using MhcCase = MhcLayer<HostArray>;

inline MhcCase make_mhc_case(int64_t tokens, int64_t n, int64_t channels, uint32_t seed) {
  MhcCase c(tokens, n, channels);
  c.x = uniform_bf16(c.x.size(), -2.0f, 2.0f, seed);
  c.f = uniform_bf16(c.f.size(), -2.0f, 2.0f, seed + 1);
  c.phi = uniform(c.phi.size(), -1.0f, 1.0f, seed + 2);
  c.bias = uniform(c.bias.size(), -0.5f, 0.5f, seed + 3);
  c.h_pre = uniform(c.h_pre.size(), 0.0f, 1.0f, seed + 4);
  c.h_post = uniform(c.h_post.size(), 0.0f, 2.0f, seed + 5);
  c.h_res = uniform(c.h_res.size(), 0.0f, 0.5f, seed + 6);  // any matrix: apply does not care
  c.res_logits = uniform(c.res_logits.size(), -2.0f, 2.0f, seed + 7);
  c.grad_h_res = uniform(c.grad_h_res.size(), -1.0f, 1.0f, seed + 8);
  return c;
}

// A paged latent cache for a batch of sequences. Block 0 is all NaN; every table entry past a
// sequence's last block points at it, and the unused rows of each last block are NaN too, so
// any read outside [0, seq_len) turns the output into NaN.
using MlaCase = MlaDecode<HostArray>;

inline MlaCase make_mla_case(const std::vector<int32_t>& lens, int64_t heads, uint32_t seed,
                             int64_t tokens_per_split = 1024) {
  MlaDecodeParams config;
  config.batch = static_cast<int64_t>(lens.size());
  config.heads = heads;
  for (int32_t len : lens) config.max_seq_len = std::max<int64_t>(config.max_seq_len, len);
  const int64_t max_blocks = std::max<int64_t>(1, (config.max_seq_len + kMlaBlockTokens - 1) / kMlaBlockTokens + 1);
  config.max_blocks_per_seq = max_blocks;
  int64_t used = 0;
  for (int32_t len : lens) used += (len + kMlaBlockTokens - 1) / kMlaBlockTokens;
  config.num_blocks = used + 1;
  config.tokens_per_split = tokens_per_split;
  config.softmax_scale = 1.0f / std::sqrt(192.0f);  // DeepSeek: qk_nope 128 + qk_rope 64
  MlaCase c(config);
  c.seq_lens = lens;
  const auto row = static_cast<size_t>(kMlaHeadDim), block = static_cast<size_t>(kMlaBlockTokens) * row;
  c.kv_cache = uniform_bf16(c.kv_cache.size(), -1.0f, 1.0f, seed);
  const bf16_bits nan = float_to_bf16(std::numeric_limits<float>::quiet_NaN());
  std::fill(c.kv_cache.begin(), c.kv_cache.begin() + static_cast<std::ptrdiff_t>(block), nan);
  // Hand out blocks 1..used in a seeded shuffled order, so pages are not contiguous.
  std::vector<int32_t> free_blocks(static_cast<size_t>(used));
  for (size_t i = 0; i < free_blocks.size(); ++i) free_blocks[i] = static_cast<int32_t>(i + 1);
  std::shuffle(free_blocks.begin(), free_blocks.end(), std::mt19937(seed + 1));
  size_t next = 0;
  for (int64_t b = 0; b < config.batch; ++b) {
    const int64_t len = lens[static_cast<size_t>(b)];
    for (int64_t j = 0; j * kMlaBlockTokens < len; ++j) {
      const int32_t blk = free_blocks[next++];
      c.block_table[static_cast<size_t>(b * max_blocks + j)] = blk;
      for (int64_t r = len - j * kMlaBlockTokens; r < kMlaBlockTokens; ++r) {  // tail rows
        auto start = c.kv_cache.begin() + static_cast<std::ptrdiff_t>((blk * kMlaBlockTokens + r) * kMlaHeadDim);
        std::fill(start, start + kMlaHeadDim, nan);
      }
    }
  }
  c.q = uniform_bf16(c.q.size(), -1.0f, 1.0f, seed + 2);
  return c;
}

// The same case over FlashMLA's FP8 cache: every row quantized, poisoned rows stay NaN
// (0xff bytes are NaN as e4m3, as the fp32 scales and as bf16); the bf16 cache is dropped.
inline MlaCase with_fp8_cache(MlaCase c) {
  c.kv_cache_fp8.assign(static_cast<size_t>(c.config.num_blocks * kMlaBlockTokens * kMlaFp8RowBytes), 0);
  std::vector<float> row(static_cast<size_t>(kMlaHeadDim));
  for (int64_t r = 0; r < c.config.num_blocks * kMlaBlockTokens; ++r) {
    bool poisoned = false;
    for (int64_t d = 0; d < kMlaHeadDim; ++d) {
      row[size_t(d)] = bf16_to_float(c.kv_cache[size_t(r * kMlaHeadDim + d)]);
      poisoned = poisoned || std::isnan(row[size_t(d)]);
    }
    uint8_t* dst = c.kv_cache_fp8.data() + r * kMlaFp8RowBytes;
    if (poisoned) {
      std::fill(dst, dst + kMlaFp8RowBytes, uint8_t{0xff});
    } else {
      ref::quantize_mla_row_fp8(row.data(), dst);
    }
  }
  c.kv_cache.clear();
  return c;
}

}  // namespace mhcsim::kernels::testing

namespace mhcsim::kernels::testing {

// sum_j |H_res[i][j] x_j[c]| + |H_post[i] f[c]|: the scale of the rounding errors of element
// (t, i, c) of x_{l+1}.
inline double post_res_magnitude(const MhcCase& c, int64_t t, int64_t i, int64_t ch) {
  double m = std::abs(double(c.h_post[size_t(t * c.n + i)]) * bf16_to_float(c.f[size_t(t * c.channels + ch)]));
  for (int64_t j = 0; j < c.n; ++j) {
    m += std::abs(double(c.h_res[size_t((t * c.n + i) * c.n + j)]) *
                  bf16_to_float(c.x[size_t((t * c.n + j) * c.channels + ch)]));
  }
  return m;
}

}  // namespace mhcsim::kernels::testing
