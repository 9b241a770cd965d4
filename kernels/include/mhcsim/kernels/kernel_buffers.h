#pragma once
// The arrays behind each kernel's params, over either storage: HostArray (std::vector) for the
// CPU references, DeviceBuffer (device_buffer.h) for the CUDA kernels. The params are filled
// from them here, once, so the reference tests, the GPU-vs-reference tests and the benchmarks
// cannot wire a kernel differently. A set is sized from its shape (contents: zeros on the host,
// unset on the device), or made from a host set, copying or uploading its arrays.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "mhcsim/kernels/bf16.h"
#include "mhcsim/kernels/mhc.h"
#include "mhcsim/kernels/mla_decode.h"
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels {

template <class T>
using HostArray = std::vector<T>;

namespace detail {
inline size_t count(int64_t n) { return static_cast<size_t>(n); }
}  // namespace detail

// One mHC layer (mhc.h): state x [tokens][n][C], F's output f [tokens][C], phi [n*C][n*n+2n]
// and its bias, the coefficients H_pre, H_post [tokens][n] and the H_res logits and matrix
// [tokens][n*n], Sinkhorn's backward input and output, and the apply outputs u = H_pre x
// [tokens][C], x_next and the unfused path's two scratch states [tokens][n][C].
template <template <class> class Array>
struct MhcLayer {
  int64_t tokens = 0, n = 0, channels = 0;
  Array<bf16_bits> x, f;
  Array<float> phi, bias, h_pre, h_post, res_logits, h_res, grad_h_res, grad_logits;
  Array<bf16_bits> u, x_next, scratch_post, scratch_res;

  MhcLayer(int64_t tokens_, int64_t n_, int64_t channels_)
      : tokens(tokens_),
        n(n_),
        channels(channels_),
        x(detail::count(tokens_ * n_ * channels_)),
        f(detail::count(tokens_ * channels_)),
        phi(detail::count(n_ * channels_ * mhc_coeff_columns(n_))),
        bias(detail::count(mhc_coeff_columns(n_))),
        h_pre(detail::count(tokens_ * n_)),
        h_post(h_pre.size()),
        res_logits(detail::count(tokens_ * n_ * n_)),
        h_res(res_logits.size()),
        grad_h_res(res_logits.size()),
        grad_logits(res_logits.size()),
        u(f.size()),
        x_next(x.size()),
        scratch_post(x.size()),
        scratch_res(x.size()) {}
  template <template <class> class From>
  explicit MhcLayer(const MhcLayer<From>& from)
      : tokens(from.tokens),
        n(from.n),
        channels(from.channels),
        x(from.x),
        f(from.f),
        phi(from.phi),
        bias(from.bias),
        h_pre(from.h_pre),
        h_post(from.h_post),
        res_logits(from.res_logits),
        h_res(from.h_res),
        grad_h_res(from.grad_h_res),
        grad_logits(from.grad_logits),
        u(from.u),
        x_next(from.x_next),
        scratch_post(from.scratch_post),
        scratch_res(from.scratch_res) {}

  // The params of each mHC kernel over these arrays (designated initializers: in field order).
  MhcCoeffParams coeff() {  // x -> h_pre, h_post, res_logits
    return {.x = x.data(),
            .phi = phi.data(),
            .bias = bias.data(),
            .h_pre = h_pre.data(),
            .h_post = h_post.data(),
            .res_logits = res_logits.data(),
            .tokens = tokens,
            .n = n,
            .channels = channels,
            .x_token_stride = n * channels};
  }
  SinkhornParams sinkhorn() {  // forward res_logits -> h_res; backward grad_h_res -> grad_logits
    return {.logits = res_logits.data(),
            .h_res = h_res.data(),
            .grad_h_res = grad_h_res.data(),
            .grad_logits = grad_logits.data(),
            .tokens = tokens,
            .n = n};
  }
  MhcPreParams pre() {  // x, h_pre -> u
    return {.x = x.data(),
            .h_pre = h_pre.data(),
            .out = u.data(),
            .tokens = tokens,
            .n = n,
            .channels = channels,
            .x_token_stride = n * channels,
            .out_token_stride = channels};
  }
  MhcPostResParams post_res() {  // x, f, h_post, h_res -> x_next
    return {.x = x.data(),
            .f = f.data(),
            .h_post = h_post.data(),
            .h_res = h_res.data(),
            .x_next = x_next.data(),
            .scratch_post = scratch_post.data(),
            .scratch_res = scratch_res.data(),
            .tokens = tokens,
            .n = n,
            .channels = channels};
  }
};

// DeepSeek-V3's router (config.json: n_routed_experts 256, n_group 8, topk_group 4,
// num_experts_per_tok 8, routed_scaling_factor 2.5) over `tokens` tokens; no pointers set.
constexpr MoeGateParams deepseek_v3_gate(int64_t tokens) {
  return {.tokens = tokens, .experts = 256, .groups = 8, .topk_group = 4, .top_k = 8, .route_scale = 2.5f};
}

// The MoE gate (moe.h): logits [tokens][experts] and bias [experts] in, topk_idx and
// topk_weight [tokens][top_k] out. `config` holds the shape and routing settings.
template <template <class> class Array>
struct MoeGate {
  MoeGateParams config;  // its pointers are not used
  Array<float> logits, bias, topk_weight;
  Array<int32_t> topk_idx;

  explicit MoeGate(const MoeGateParams& c)
      : config(c),
        logits(detail::count(c.tokens * c.experts)),
        bias(detail::count(c.experts)),
        topk_weight(detail::count(c.tokens * c.top_k)),
        topk_idx(topk_weight.size()) {}
  template <template <class> class From>
  explicit MoeGate(const MoeGate<From>& from)
      : config(from.config),
        logits(from.logits),
        bias(from.bias),
        topk_weight(from.topk_weight),
        topk_idx(from.topk_idx) {}

  MoeGateParams params() {
    MoeGateParams p = config;
    p.logits = logits.data();
    p.bias = bias.data();
    p.topk_idx = topk_idx.data();
    p.topk_weight = topk_weight.data();
    return p;
  }
};

// MoE dispatch and combine (moe.h): tokens x [tokens][hidden] permuted into the expert-major
// x_perm [tokens*top_k][hidden] with its layout arrays, and the weighted sum of x_perm's rows
// back into out [tokens][hidden].
template <template <class> class Array>
struct MoeDispatch {
  int64_t tokens = 0, hidden = 0, experts = 0, top_k = 1;
  Array<bf16_bits> x, x_perm, out;
  Array<int32_t> expert_offsets, row_of_slot, slot_of_row;

  MoeDispatch(int64_t tokens_, int64_t hidden_, int64_t experts_, int64_t top_k_)
      : tokens(tokens_),
        hidden(hidden_),
        experts(experts_),
        top_k(top_k_),
        x(detail::count(tokens_ * hidden_)),
        x_perm(detail::count(tokens_ * top_k_ * hidden_)),
        out(x.size()),
        expert_offsets(detail::count(experts_ + 1)),
        row_of_slot(detail::count(tokens_ * top_k_)),
        slot_of_row(row_of_slot.size()) {}
  template <template <class> class From>
  explicit MoeDispatch(const MoeDispatch<From>& from)
      : tokens(from.tokens),
        hidden(from.hidden),
        experts(from.experts),
        top_k(from.top_k),
        x(from.x),
        x_perm(from.x_perm),
        out(from.out),
        expert_offsets(from.expert_offsets),
        row_of_slot(from.row_of_slot),
        slot_of_row(from.slot_of_row) {}

  MoePermuteParams permute(const int32_t* topk_idx) {  // the gate's choices, same storage
    return {.topk_idx = topk_idx,
            .x = x.data(),
            .x_perm = x_perm.data(),
            .expert_offsets = expert_offsets.data(),
            .row_of_slot = row_of_slot.data(),
            .slot_of_row = slot_of_row.data(),
            .tokens = tokens,
            .hidden = hidden,
            .experts = experts,
            .top_k = top_k};
  }
  MoeCombineParams combine(const float* topk_weight) {  // x_perm's rows -> out
    return {.y_perm = x_perm.data(),
            .row_of_slot = row_of_slot.data(),
            .topk_weight = topk_weight,
            .out = out.data(),
            .tokens = tokens,
            .hidden = hidden,
            .top_k = top_k};
  }
};

// MLA decode (mla_decode.h): absorbed q [batch][heads][576], the paged cache
// [num_blocks][64][576] (bf16) or [num_blocks][64][656] (FP8 rows), block_table
// [batch][max_blocks_per_seq] and seq_lens [batch] in; out [batch][heads][512], lse
// [batch][heads] and the split-KV workspace (sized for config.tokens_per_split). `config`
// holds the sizes, scale and split; one of the two caches is allocated, the other is empty.
template <template <class> class Array>
struct MlaDecode {
  MlaDecodeParams config;  // its pointers are not used
  Array<bf16_bits> q, kv_cache;
  Array<uint8_t> kv_cache_fp8;
  Array<int32_t> block_table, seq_lens;
  Array<bf16_bits> out;
  Array<float> lse, workspace;

  explicit MlaDecode(const MlaDecodeParams& c, bool fp8_cache = false)
      : config(c),
        q(detail::count(c.batch * c.heads * kMlaHeadDim)),
        kv_cache(detail::count(fp8_cache ? 0 : c.num_blocks * kMlaBlockTokens * kMlaHeadDim)),
        kv_cache_fp8(detail::count(fp8_cache ? c.num_blocks * kMlaBlockTokens * kMlaFp8RowBytes : 0)),
        block_table(detail::count(c.batch * c.max_blocks_per_seq)),
        seq_lens(detail::count(c.batch)),
        out(detail::count(c.batch * c.heads * kMlaLatentDim)),
        lse(detail::count(c.batch * c.heads)),
        workspace(detail::count(mla_workspace_floats(c))) {}
  template <template <class> class From>
  explicit MlaDecode(const MlaDecode<From>& from)
      : config(from.config),
        q(from.q),
        kv_cache(from.kv_cache),
        kv_cache_fp8(from.kv_cache_fp8),
        block_table(from.block_table),
        seq_lens(from.seq_lens),
        out(from.out),
        lse(from.lse),
        workspace(from.workspace) {}

  MlaDecodeParams params() {
    MlaDecodeParams p = config;
    p.q = q.data();
    p.kv_cache = kv_cache.size() > 0 ? kv_cache.data() : nullptr;
    p.kv_cache_fp8 = kv_cache_fp8.size() > 0 ? kv_cache_fp8.data() : nullptr;
    p.block_table = block_table.data();
    p.seq_lens = seq_lens.data();
    p.out = out.data();
    p.lse = lse.data();
    p.workspace = workspace.data();
    return p;
  }
};

}  // namespace mhcsim::kernels
