// Shape checks shared by the CUDA launches and the CPU references (SpecError via require).
#include "mhcsim/error.h"
#include "mhcsim/kernels/mhc.h"
#include "mhcsim/kernels/mla_decode.h"
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels {
namespace {
constexpr int64_t kMaxStreams = 8;  // the GPU kernels keep n^2 coefficients in registers
void require_streams(int64_t n, const char* key) {
  require(n >= 1 && n <= kMaxStreams, key, "n must be in 1..8 (expected the mHC expansion rate)");
}
}  // namespace

void validate(const MhcCoeffParams& p) {
  require_streams(p.n, "mhc_coeff.n");
  require(p.tokens >= 0 && p.channels > 0, "mhc_coeff.channels", "must be > 0");
  require(p.x_token_stride >= p.n * p.channels, "mhc_coeff.x_token_stride", "must be >= n*C");
  require(p.x && p.phi && p.bias && p.h_pre && p.h_post && p.res_logits, "mhc_coeff", "null pointer");
}

void validate(const SinkhornParams& p) {
  require_streams(p.n, "sinkhorn.n");
  require(p.iterations >= 1 && p.iterations <= kSinkhornMaxIterations, "sinkhorn.iterations",
          "must be in 1..64 (expected t_max = 20)");
  require(p.tokens >= 0 && p.logits != nullptr, "sinkhorn.logits", "null pointer");
}

void validate(const MhcPreParams& p) {
  require_streams(p.n, "mhc_pre.n");
  require(p.channels > 0 && p.channels % 8 == 0, "mhc_pre.channels", "must be a positive multiple of 8");
  require(p.x_token_stride >= p.n * p.channels && p.out_token_stride >= p.channels, "mhc_pre.strides",
          "must cover one token");
  require(p.x_token_stride % 8 == 0 && p.out_token_stride % 8 == 0, "mhc_pre.strides",
          "must be multiples of 8 (16-byte vectors)");
  require(p.x && p.h_pre && p.out, "mhc_pre", "null pointer");
}

void validate(const MhcPostResParams& p, bool unfused) {
  require_streams(p.n, "mhc_post_res.n");
  require(p.channels > 0 && p.channels % 8 == 0, "mhc_post_res.channels", "must be a positive multiple of 8");
  require(p.x && p.f && p.h_post && p.h_res && p.x_next, "mhc_post_res", "null pointer");
  require(!unfused || (p.scratch_post && p.scratch_res), "mhc_post_res.scratch",
          "the unfused path needs two n x C scratch states");
}

int64_t mla_num_splits(const MlaDecodeParams& p) {
  return p.max_seq_len <= 0 ? 1 : (p.max_seq_len + p.tokens_per_split - 1) / p.tokens_per_split;
}

int64_t mla_workspace_floats(const MlaDecodeParams& p) {
  return p.batch * mla_num_splits(p) * p.heads * kMlaPartialFloats;
}

void validate(const MlaDecodeParams& p) {
  require(p.batch >= 0 && p.heads > 0, "mla.heads", "must be > 0");
  require(p.tokens_per_split > 0 && p.tokens_per_split % kMlaBlockTokens == 0, "mla.tokens_per_split",
          "must be a positive multiple of 64");
  require(p.max_seq_len <= p.max_blocks_per_seq * kMlaBlockTokens, "mla.max_seq_len",
          "must fit the block table (max_blocks_per_seq x 64)");
  require(p.softmax_scale > 0, "mla.softmax_scale", "must be > 0");
  require((p.kv_cache != nullptr) != (p.kv_cache_fp8 != nullptr), "mla.kv_cache",
          "set exactly one of kv_cache (bf16) and kv_cache_fp8");
  require(p.q && p.block_table && p.seq_lens, "mla", "null input pointer");
}

void validate(const MoeGateParams& p) {
  require(p.experts > 0 && p.experts <= kMoeMaxExperts, "moe_gate.experts", "must be in 1..512");
  require(p.groups >= 1 && p.experts % p.groups == 0, "moe_gate.groups", "must divide experts");
  require(p.experts / p.groups >= 2, "moe_gate.groups", "each group needs >= 2 experts (top-2 score)");
  require(p.topk_group >= 1 && p.topk_group <= p.groups, "moe_gate.topk_group", "must be in 1..groups");
  require(p.top_k >= 1 && p.top_k <= p.topk_group * (p.experts / p.groups), "moe_gate.top_k",
          "must be in 1..experts of the kept groups");
  require(p.logits && p.bias && p.topk_idx && p.topk_weight, "moe_gate", "null pointer");
}

void validate(const MoePermuteParams& p) {
  require(p.experts > 0 && p.top_k >= 1 && p.hidden > 0 && p.hidden % 8 == 0, "moe_permute.hidden",
          "must be a positive multiple of 8");
  require(p.topk_idx && p.x && p.x_perm && p.expert_offsets && p.row_of_slot && p.slot_of_row, "moe_permute",
          "null pointer");
}

void validate(const MoeCombineParams& p) {
  require(p.top_k >= 1 && p.hidden > 0 && p.hidden % 8 == 0, "moe_combine.hidden", "must be a positive multiple of 8");
  require(p.y_perm && p.row_of_slot && p.topk_weight && p.out, "moe_combine", "null pointer");
}

}  // namespace mhcsim::kernels
