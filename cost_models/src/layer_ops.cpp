// layer_ops(): one transformer layer as operations. Element counts per token are written next
// to the tensor they describe; bytes follow from the precision's dtypes.
#include "mhcsim/cost/layer_ops.h"

#include <algorithm>
#include <cmath>

#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
int64_t ceil_i(double v) { return std::max<int64_t>(1, static_cast<int64_t>(std::ceil(v - 1e-9))); }

// Everything the builder needs about the scenario, resolved once.
struct Ctx {
  const Scenario& s;
  const ModelSpec& m;
  double tokens = 0;  // tokens of one micro-batch on this GPU's CP rank (b s / cp)
  double tp = 1;
  double rep = 0;  // tokens whose replicated tensors (norms, dropout) this GPU holds:
                   // all of them, or tokens / tp with sequence parallelism
  double act = 2;  // bytes per activation element
  double lin = 2;  // bytes per cached Linear input: FP8 GEMMs keep their FP8 cast
  DType gemm = DType::BF16;
  ActivationRecompute recompute = ActivationRecompute::None;
  bool deepseek_selective() const { return recompute == ActivationRecompute::Selective; }
  bool megatron_selective() const { return recompute == ActivationRecompute::Attention; }
  // DeepSeek-V3's low-precision activation caches (report 3.3.3) go with its FP8 training and
  // selective recompute.
  bool fp8_caches() const {
    return deepseek_selective() && gemm == DType::FP8 && s.workload.mode == WorkloadMode::Train;
  }
};

}  // namespace

double micro_batch_tokens(const Scenario& s) {
  const auto& w = s.workload;
  const double tokens = w.mode == WorkloadMode::Train
                            ? d(w.micro_batch_seqs * w.seq_len)
                            : d(w.batch_seqs) * (w.phase == ServePhase::Prefill ? d(w.context_len) : 1.0);
  return tokens / d(std::max<int64_t>(1, s.parallel.cp));
}

namespace {

Ctx context(const Scenario& s) {
  const auto& p = s.parallel;
  check_parallel_ranges(p);
  Ctx c{s, s.model};
  c.tokens = micro_batch_tokens(s);
  c.tp = d(p.tp);
  c.rep = p.sequence_parallel ? c.tokens / c.tp : c.tokens;
  c.act = bytes_per_element(s.precision.activations);
  c.gemm = s.precision.gemm;
  // FP8 GEMMs save the quantized input (1 B and one fp32 scale per fp8_tile elements) for the
  // weight gradient (DeepSeek-V3 report 3.3.3; Transformer Engine does the same).
  c.lin = c.gemm == DType::FP8 ? 1.0 + 4.0 / d(std::max<int64_t>(1, s.precision.fp8_tile)) : c.act;
  c.recompute = p.activation_recompute;
  return c;
}

Op memory_op(const char* name, Sublayer part, double bytes, double saved) {
  Op o;
  o.name = name;
  o.kind = OpKind::MemoryBound;
  o.part = part;
  o.bytes = bytes;
  // Backward of an elementwise op reads its saved input and the output gradient and writes the
  // input gradient (mhc_traffic.h's backward_row): about twice the forward traffic.
  o.backward_bytes = 2.0 * bytes;
  o.saved_bytes = saved;
  return o;
}

Op gemm_op(const char* name, Sublayer part, GemmShape shape, double saved) {
  Op o;
  o.name = name;
  o.kind = OpKind::Gemm;
  o.part = part;
  o.gemm = shape;
  o.saved_bytes = saved;
  return o;
}

GemmShape linear(const Ctx& c, double rows, int64_t n, int64_t k, DType dtype) {
  return GemmShape{ceil_i(rows), std::max<int64_t>(1, n), std::max<int64_t>(1, k), 1, dtype, c.s.precision.activations};
}

// Megatron's two TP collectives per sublayer: an all-reduce of the sublayer output (or, with
// sequence parallelism, an all-gather before and a reduce-scatter after of the same total
// bytes; Korthikanti et al. 2022, sec. 4.2.2). Counted as one all-reduce of the hidden per pass.
// Megatron's --tp-comm-overlap (Transformer Engine's userbuffers) pipelines the all-gather with
// the column-parallel GEMM after it and the reduce-scatter with the row-parallel GEMM before
// it, chunk by chunk, in the forward and in the backward (Wang et al., ASPLOS 2023, "Overlap
// communication with dependent computation via decomposition"). How much it hides is the
// scenario's parallel.tp_overlap, at most the sublayer's GEMM time: chunks at either end that
// cannot overlap, smaller GEMMs and the SMs and HBM the collectives take all leave some exposed,
// by amounts no source we know publishes. A MoE sublayer's experts are not TP-split linears
// (mlp_ops), so its collective has no GEMM of its own to pipeline with: `overlappable` false.
Op tp_collective(const Ctx& c, Sublayer part, bool overlappable) {
  Op o;
  o.name = c.s.parallel.sequence_parallel ? "tp_allgather_reducescatter" : "tp_allreduce";
  o.kind = OpKind::Communication;
  o.part = part;
  o.bytes = c.tokens * d(c.m.hidden) * c.act;
  o.backward_bytes = o.bytes;
  o.tp_collective = true;
  if (overlappable) o.hides = HidesBehind::SublayerGemms;
  return o;
}

// Residual merge, or the mHC kernels (coefficients, apply H_pre, fused F_post,res; mHC paper
// 4.3.1) with their own backward and block recompute traffic.
Op residual_op(const Ctx& c, Sublayer part) {
  const auto& m = c.m;
  if (m.residual == ResidualKind::Residual || m.mhc_n == 1)
    return memory_op("residual_add", part, 3.0 * c.rep * d(m.hidden) * c.act, 0);
  const auto t = residual_traffic_per_token(m, c.s.precision, /*fused=*/true, c.s.parallel.recompute_mhc);
  Op o = memory_op("mhc", part, c.rep * t.forward.total(), 0);
  o.backward_bytes = c.rep * (t.backward.total() + t.recompute.total());
  o.mhc_kernel = true;
  return o;
}

double norm_bytes(const Ctx& c) { return 2.0 * c.rep * d(c.m.hidden) * c.act; }  // read + write

// Attention sublayer: norm, projections, core, output projection, TP collective, residual.
void attention_ops(const Ctx& c, std::vector<Op>& ops) {
  const auto& m = c.m;
  const auto& p = c.s.parallel;
  const auto A = Sublayer::Attention;
  const double h = d(m.hidden), heads = d(m.heads) / c.tp, T = c.tokens;
  const bool mla = m.attention == AttentionKind::MLA;
  const double qk = mla ? d(m.qk_nope_head_dim + m.qk_rope_head_dim) : d(m.head_dim);
  const double v = mla ? d(m.v_head_dim) : d(m.head_dim);
  const double kv_heads = mla ? heads : std::max(1.0, d(m.kv_heads) / c.tp);
  const bool ds = c.deepseek_selective();

  // The norm keeps its input; its output (the projections' input) is recomputed under
  // DeepSeek's selective scheme.
  Op norm = memory_op("attn_norm", A, norm_bytes(c), c.rep * h * c.act);
  norm.recomputed = ds;
  ops.push_back(norm);
  const double proj_in = ds ? 0.0 : c.rep * h * c.lin;
  if (mla) {
    // DeepSeek-V2 sec. 2.1: down-projections to the q and kv latents (+ the decoupled RoPE key),
    // latent norms, up-projections to per-head q, k, v. Selective recompute keeps the latents
    // and replays the norms and up-projections.
    if (m.q_lora_rank > 0) {
      ops.push_back(gemm_op("q_down", A, linear(c, T, m.q_lora_rank, m.hidden, c.gemm), proj_in));
      Op qn = memory_op("q_norm", A, 2.0 * T * d(m.q_lora_rank) * c.act, T * d(m.q_lora_rank) * c.act);
      qn.recomputed = ds;
      ops.push_back(qn);
      Op up = gemm_op("q_up", A, linear(c, T, static_cast<int64_t>(heads * qk), m.q_lora_rank, c.gemm),
                      ds ? 0.0 : T * d(m.q_lora_rank) * c.lin);
      up.recomputed = ds;
      ops.push_back(up);
    } else {
      ops.push_back(gemm_op("q_proj", A, linear(c, T, static_cast<int64_t>(heads * qk), m.hidden, c.gemm), proj_in));
    }
    ops.push_back(gemm_op("kv_down", A, linear(c, T, m.kv_lora_rank + m.qk_rope_head_dim, m.hidden, c.gemm),
                          m.q_lora_rank > 0 ? 0.0 : proj_in));  // same input as q_down: kept once
    Op kvn = memory_op("kv_norm", A, 2.0 * T * d(m.kv_lora_rank) * c.act,
                       T * d(m.kv_lora_rank + m.qk_rope_head_dim) * c.act);  // latent + RoPE key
    kvn.recomputed = ds;
    ops.push_back(kvn);
    Op up = gemm_op(
        "kv_up", A,
        linear(c, T, static_cast<int64_t>(heads * d(m.qk_nope_head_dim + m.v_head_dim)), m.kv_lora_rank, c.gemm),
        ds ? 0.0 : T * d(m.kv_lora_rank) * c.lin);
    up.recomputed = ds;
    ops.push_back(up);
  } else {
    const int64_t n = static_cast<int64_t>((heads * qk + 2.0 * kv_heads * d(m.head_dim)));
    ops.push_back(gemm_op("qkv_proj", A, linear(c, T, n, m.hidden, c.gemm), proj_in));
  }
  // RoPE rotates the rotary part of q and k in place (MLA: one decoupled key shared by all heads).
  const double rope_dim = mla ? d(m.qk_rope_head_dim) : qk;
  ops.push_back(memory_op("rope", A, 2.0 * T * (heads + (mla ? 1.0 : kv_heads)) * rope_dim * c.act, 0));
  const auto& w = c.s.workload;
  const bool decode = w.mode == WorkloadMode::Serve && w.phase == ServePhase::Decode;
  if (mla && !decode) {  // per-head keys for the attention core (mla_k_assembly_bytes_per_token)
    Op k_cat = memory_op("mla_k_assembly", A, T * mla_k_assembly_bytes_per_token(c.s), 0);
    k_cat.recomputed = ds;  // kv_up is replayed, so is its K
    ops.push_back(k_cat);
  }

  // Q, K, V as the core keeps them (MLA: per head after the up-projection).
  const double qkv_elems = heads * qk + kv_heads * (qk + v);
  const double qkv_saved = ds ? 0.0 : T * qkv_elems * c.act;
  const double seq = d(c.s.workload.mode == WorkloadMode::Train ? c.s.workload.seq_len : c.s.workload.context_len);
  const bool dropout = m.dropout;
  if (decode) {
    // Decode: each of the T new tokens attends its sequence's whole cache of `seq` tokens, read
    // from HBM once per step; nothing is kept for a backward. MLA in the weight-absorbed form
    // and FlashMLA's accounting (kernel_bytes.h), other attention over the K and V heads.
    Op core;
    core.name = "attention_core";
    core.kind = OpKind::Attention;
    core.part = A;
    const double keys = T * seq;
    if (mla) {
      const MlaDecodeShape shape{
          static_cast<int64_t>(T), 1, static_cast<int64_t>(keys), static_cast<int64_t>(heads), m.kv_lora_rank,
          m.qk_rope_head_dim};
      core.flops = mla_decode_flops(shape);
      core.bytes = mla_decode_bytes(shape, c.s.precision.kv_cache, c.s.precision.activations);
    } else {
      core.flops = 2.0 * keys * heads * (qk + v);
      core.bytes =
          keys * kv_heads * (qk + v) * bytes_per_element(c.s.precision.kv_cache) + T * heads * (qk + v) * c.act;
    }
    ops.push_back(core);
  } else if (p.flash_attention) {
    // FlashAttention: causal blocks above the diagonal are skipped, so a query attends (s+1)/2
    // keys on average; the s x s scores never reach HBM. Saves Q, K, V, O and the log-sum-exp.
    Op core;
    core.name = "attention_core";
    core.kind = OpKind::Attention;
    core.part = A;
    core.flops = 2.0 * T * average_causal_context(static_cast<int64_t>(seq)) * heads * (qk + v);
    core.bytes = T * (qkv_elems + heads * v) * c.act;
    core.backward_bytes = 2.0 * core.bytes;
    core.saved_bytes = qkv_saved + T * heads * 4.0;
    core.recomputed = c.megatron_selective();
    ops.push_back(core);
  } else {
    // Megatron-LM's unfused core (Korthikanti et al. 2022, sec. 4.1): batched QK^T over the
    // full s x s (the causal mask is applied afterwards), fused scale-mask-softmax, dropout,
    // batched PV. Softmax output (2 B), dropout mask (1 B) and dropout output (2 B) per score:
    // the 5 a s^2 b term.
    const double seqs = T / seq;
    const int64_t groups = ceil_i(seqs * heads);
    const double scores = T * heads * seq;  // per GPU
    const bool mega = c.megatron_selective();
    Op qk_gemm = gemm_op("attn_qk", A,
                         GemmShape{static_cast<int64_t>(seq), static_cast<int64_t>(seq), static_cast<int64_t>(qk),
                                   groups, DType::BF16, DType::BF16},
                         ds ? 0.0 : T * (heads * qk + kv_heads * qk) * c.act);
    qk_gemm.weight_grad = false;
    qk_gemm.recomputed = mega;
    ops.push_back(qk_gemm);
    Op softmax = memory_op("attn_softmax", A, 2.0 * scores * c.act, mega ? 0.0 : scores * c.act);
    softmax.recomputed = mega;
    ops.push_back(softmax);
    if (dropout) {
      Op drop = memory_op("attn_dropout", A, scores * (2.0 * c.act + 1.0), mega ? 0.0 : scores * (c.act + 1.0));
      drop.recomputed = mega;
      ops.push_back(drop);
    }
    Op pv = gemm_op("attn_pv", A,
                    GemmShape{static_cast<int64_t>(seq), static_cast<int64_t>(v), static_cast<int64_t>(seq), groups,
                              DType::BF16, DType::BF16},
                    ds ? 0.0 : T * kv_heads * v * c.act);
    pv.weight_grad = false;
    pv.recomputed = mega;
    ops.push_back(pv);
  }
  if (p.cp > 1) {
    // Ring attention (Megatron-Core context parallelism): each rank passes its K/V blocks
    // around the cp ring, cp - 1 steps, overlapped with the attention core; the backward
    // passes K/V and their gradients.
    Op ring;
    ring.name = "cp_kv_ring";
    ring.kind = OpKind::Communication;
    ring.part = A;
    ring.bytes = (d(p.cp) - 1.0) * T * kv_heads * (qk + v) * c.act;
    ring.backward_bytes = 2.0 * ring.bytes;
    ring.hides = HidesBehind::PreviousOp;
    ops.push_back(ring);
  }
  double attn_out_saved = T * heads * v * c.lin;
  if (c.fp8_caches()) {
    // DeepSeek-V3 report 3.3.3 (1): the attention output, the input of the Linear after the
    // attention core that the core's backward reads too, is cached in E5M6 (12 bits): cast in
    // the forward, cast back in the backward.
    constexpr double kE5m6Bytes = 1.5;
    const double elems = T * heads * v;
    Op cache = memory_op("attn_output_e5m6", A, elems * (c.act + kE5m6Bytes), elems * kE5m6Bytes);
    cache.backward_bytes = cache.bytes;
    ops.push_back(cache);
    attn_out_saved = 0;
  }
  ops.push_back(
      gemm_op("attn_out", A, linear(c, T, m.hidden, static_cast<int64_t>(heads * v), c.gemm), attn_out_saved));
  if (c.tp > 1) ops.push_back(tp_collective(c, A, true));
  if (dropout) ops.push_back(memory_op("attn_out_dropout", A, c.rep * h * (2.0 * c.act + 1.0), c.rep * h));
  ops.push_back(residual_op(c, A));
}

// The FFN part of a GPT (GeLU: FC1 to ffn, GeLU, FC2) or SwiGLU (FC1 to 2 ffn, SiLU(a) * b,
// FC2) block over `rows` rows and `groups` equal groups (experts); SwiGLU keeps its input and
// replays its output under DeepSeek's selective recompute.
void ffn_ops(const Ctx& c, std::vector<Op>& ops, const char* const names[3], double rows, int64_t groups, int64_t width,
             double input_saved, bool moe) {
  const auto& m = c.m;
  const auto M = Sublayer::Mlp;
  const bool gelu = m.mlp == MlpKind::GeLU;
  const int64_t rows_per_group = ceil_i(rows / d(groups));
  const int64_t fc1_n = gelu ? width : 2 * width;
  GemmShape fc1{rows_per_group, fc1_n, m.hidden, groups, c.gemm, c.s.precision.activations};
  ops.push_back(gemm_op(names[0], M, fc1, input_saved));
  const double w = d(width);
  Op act = memory_op(names[1], M, rows * (gelu ? 2.0 * w : 3.0 * w) * c.act, rows * d(fc1_n) * c.act);
  act.recomputed = c.deepseek_selective();
  if (moe && c.fp8_caches()) {
    // DeepSeek-V3 report 3.3.3 (2): the MoE SwiGLU's input is cached in FP8 with the
    // fine-grained scales, cast in the forward and cast back before the backward replays it.
    const double elems = rows * d(fc1_n);
    Op cache = memory_op("swiglu_input_fp8", M, elems * (c.act + c.lin), elems * c.lin);
    cache.backward_bytes = cache.bytes;
    ops.push_back(cache);
    act.saved_bytes = 0;
  }
  ops.push_back(act);
  GemmShape fc2{rows_per_group, m.hidden, width, groups, c.gemm, c.s.precision.activations};
  ops.push_back(gemm_op(names[2], M, fc2, c.deepseek_selective() ? 0.0 : rows * w * c.lin));
}

void mlp_ops(const Ctx& c, std::vector<Op>& ops, bool moe) {
  const auto& m = c.m;
  const auto M = Sublayer::Mlp;
  const double h = d(m.hidden), T = c.tokens;
  const bool ds = c.deepseek_selective();
  Op norm = memory_op("mlp_norm", M, norm_bytes(c), c.rep * h * c.act);
  norm.recomputed = ds;
  ops.push_back(norm);
  const double in_saved = ds ? 0.0 : c.rep * h * c.lin;
  if (!moe) {
    static const char* const dense[3] = {"fc1", "activation", "fc2"};
    ffn_ops(c, ops, dense, T, 1, static_cast<int64_t>(std::ceil(d(m.ffn_hidden) / c.tp)), in_saved, false);
  } else {
    // DeepSeekMoE: router (BF16 GEMM + top-k), shared experts on every token, routed experts as
    // a grouped GEMM over the experts this GPU hosts. Balanced routing gives each GPU
    // tokens x top_k rows in all; experts are not split over TP (each TP rank routes its
    // 1/tp of the tokens).
    const auto& p = c.s.parallel;
    const double tokens = T / c.tp;
    const int64_t experts = std::max<int64_t>(1, (m.routed_experts + p.redundant_experts) / std::max<int64_t>(1, p.ep));
    ops.push_back(gemm_op("router", M, linear(c, tokens, m.routed_experts, m.hidden, DType::BF16), in_saved));
    const auto gate = moe_gate_bytes(ceil_i(tokens), m.routed_experts, m.top_k);
    ops.push_back(memory_op("router_topk", M, gate.total(), 0));
    const auto permute = moe_permute_bytes(ceil_i(tokens), m.top_k, m.hidden, c.s.precision.activations);
    ops.push_back(memory_op("permute", M, permute.total(), 0));
    if (m.shared_experts > 0) {
      static const char* const shared[3] = {"shared_fc1", "shared_activation", "shared_fc2"};
      ffn_ops(c, ops, shared, tokens, 1, m.shared_experts * m.expert_ffn_hidden, 0.0, true);
    }
    // The dispatched rows stay cached for the backward (the all-to-all is not replayed). The
    // most loaded rank has expert_imbalance x the mean.
    const double rows = tokens * d(m.top_k) * p.expert_imbalance;
    static const char* const routed[3] = {"expert_fc1", "expert_activation", "expert_fc2"};
    ffn_ops(c, ops, routed, rows, experts, m.expert_ffn_hidden, rows * h * c.lin, true);
    const auto combine = moe_combine_bytes(ceil_i(tokens), m.top_k, m.hidden, c.s.precision.activations);
    ops.push_back(memory_op("unpermute_combine", M, combine.total(), 0));
  }
  if (c.tp > 1) ops.push_back(tp_collective(c, M, !moe));
  if (m.dropout) ops.push_back(memory_op("mlp_dropout", M, c.rep * h * (2.0 * c.act + 1.0), c.rep * h));
  ops.push_back(residual_op(c, M));
}

void apply_full_recompute(const Ctx& c, std::vector<Op>& ops) {
  if (c.recompute != ActivationRecompute::Full) return;
  for (auto& o : ops) {  // only the layer input stays (layer_input_bytes)
    o.saved_bytes = 0;
    o.recomputed = true;
  }
}
}  // namespace

const char* to_string(OpKind k) {
  switch (k) {
    case OpKind::Gemm:
      return "gemm";
    case OpKind::Attention:
      return "attention";
    case OpKind::MemoryBound:
      return "memory-bound";
    case OpKind::Communication:
      return "communication";
  }
  return "?";
}

std::vector<Op> layer_ops(const Scenario& s, bool moe_layer) {
  validate_model(s.model);
  const Ctx c = context(s);
  std::vector<Op> ops;
  ops.reserve(32);
  attention_ops(c, ops);
  mlp_ops(c, ops, moe_layer && s.model.is_moe());
  apply_full_recompute(c, ops);
  return ops;
}

std::vector<Op> head_ops(const Scenario& s) {
  const Ctx c = context(s);
  const auto& m = c.m;
  const auto M = Sublayer::Mlp;
  // Output layer in BF16 (DeepSeek-V3 report 3.3.1 keeps it out of FP8), vocabulary split over
  // TP; cross-entropy reads the logits and writes their gradient in fp32.
  const int64_t vocab = static_cast<int64_t>(std::ceil(d(m.vocab) / c.tp));
  return {memory_op("final_norm", M, norm_bytes(c), c.rep * d(m.hidden) * c.act),
          gemm_op("lm_head", M, linear(c, c.tokens, vocab, m.hidden, DType::BF16), c.tokens * d(m.hidden) * c.act),
          memory_op("cross_entropy", M, c.tokens * d(vocab) * (c.act + 4.0), c.tokens * d(vocab) * 4.0)};
}

std::vector<Op> mtp_ops(const Scenario& s) {
  const Ctx c = context(s);
  const auto& m = c.m;
  const auto M = Sublayer::Mlp;
  // DeepSeek-V3 report eq. 21: h' = M [RMSNorm(h); RMSNorm(Emb(t_{i+1}))], M of h x 2h.
  const int64_t proj_k = 2 * m.hidden;
  return {memory_op("mtp_norms", M, 2.0 * norm_bytes(c), 2.0 * c.rep * d(m.hidden) * c.act),
          gemm_op("mtp_proj", M, linear(c, c.tokens, m.hidden, proj_k, c.gemm), c.tokens * d(proj_k) * c.lin)};
}

double mla_k_assembly_bytes_per_token(const Scenario& s) {
  const auto& m = s.model;
  if (m.attention != AttentionKind::MLA) return 0;
  // A fused attention core takes K with one head dimension, so MLA's per-head keys are
  // assembled in HBM: k_nope (from kv_up) next to the decoupled RoPE key broadcast to every
  // head (DeepSeek-V2 sec. 2.1.3, k_t = [k_C; k_R]); reads heads x qk_nope + d_R, writes
  // heads x (qk_nope + d_R). The backward splits dK and sums the RoPE part over the heads.
  // (DeepSeek's profiler trace of V3 training shows these copies: one per layer and pass.)
  const double heads = d(m.heads) / d(std::max<int64_t>(1, s.parallel.tp));
  const double nope = d(m.qk_nope_head_dim), rope = d(m.qk_rope_head_dim);
  return (heads * nope + rope + heads * (nope + rope)) * bytes_per_element(s.precision.activations);
}

double layer_input_bytes(const Scenario& s) {
  const Ctx c = context(s);
  return c.rep * d(c.m.hidden) * c.act;
}

OpRates op_rates(const Scenario& s) {
  OpRates r;
  r.linear = gemm_rates(s, s.precision.gemm);
  r.bf16 = gemm_rates(s, DType::BF16);
  const double bf16_peak = r.bf16.peak_flops_per_second;
  r.attention_forward_flops_per_second = bf16_peak * kDefaultAttentionForwardEfficiency;
  r.attention_backward_flops_per_second = bf16_peak * kDefaultAttentionBackwardEfficiency;
  r.hbm_bytes_per_second = r.bf16.hbm_bytes_per_second;
  r.mhc_bytes_per_second = hbm_rate(s, "mhc_post_res_fused").bytes_per_second;
  r.launch_seconds = r.bf16.launch_seconds;
  const auto& p = s.parallel;
  r.grads = s.precision.grads;
  r.accumulate_grads = s.workload.mode == WorkloadMode::Train && p.micro_batches > 1;
  r.tp = static_cast<double>(p.tp);
  r.tp_overlap = p.tp_overlap;
  if (p.tp > 1) r.tp_link = allreduce_rate(s, p.tp > s.hardware.nvlink_domain());
  if (p.cp > 1) r.cp_link = p.tp * p.cp > s.hardware.nvlink_domain() ? nic_rate(s) : nvlink_rate(s);
  return r;
}

PassSeconds& PassSeconds::operator+=(const PassSeconds& o) {
  forward += o.forward;
  backward_input += o.backward_input;
  backward_weight += o.backward_weight;
  recompute += o.recompute;
  communication += o.communication;
  for (int k = 0; k < kOpKinds; ++k) by_kind[k] += o.by_kind[k];
  return *this;
}

PassSeconds PassSeconds::scaled(double f) const {
  PassSeconds t = *this;
  t.forward *= f, t.backward_input *= f, t.backward_weight *= f, t.recompute *= f, t.communication *= f;
  for (auto& k : t.by_kind) k *= f;
  return t;
}

OpSeconds op_seconds(const Op& o, const OpRates& r) {
  OpSeconds t;
  switch (o.kind) {
    case OpKind::Gemm: {
      const GemmRates& rates = o.gemm.input == DType::FP8 ? r.linear : r.bf16;
      const GemmShape g = o.gemm;
      t.forward = gemm_time(g, rates).seconds;
      // dgrad: dC (M x N) x B^T -> M x K; wgrad: A^T (K x M) x dC -> K x N (per group).
      const double dgrad = gemm_time(GemmShape{g.m, g.k, g.n, g.groups, g.input, g.output}, rates).seconds;
      const double wgrad =
          o.weight_grad
              ? gemm_time(GemmShape{g.k, g.n, g.m, g.groups, g.input, r.grads, r.accumulate_grads}, rates).seconds
              : gemm_time(GemmShape{g.k, g.n, g.m, g.groups, g.input, g.output}, rates).seconds;
      t.backward_input = dgrad + (o.weight_grad ? 0.0 : wgrad);
      t.backward_weight = o.weight_grad ? wgrad : 0.0;
      if (g.input == DType::FP8) {
        // FP8 casts around the GEMM, each a round trip through HBM (DeepSeek-V3 report 3.5.2:
        // BF16 activations are read, quantized per 1x128 tile and written back before the MMA
        // reads them again; the backward needs them transposed into 128x1 tiles): X (bf16 ->
        // fp8) in the forward; dY in 1x128 tiles for dgrad; for wgrad, which reduces over the
        // tokens, dY (bf16 -> fp8) and the cached X (fp8 -> fp8) in 128x1 tiles.
        const double rows = d(g.groups) * d(g.m), act = bytes_per_element(g.output);
        const double bw = r.hbm_bytes_per_second;
        const double x_cast = rows * d(g.k) * (act + 1.0) / bw + r.launch_seconds;
        const double dy_cast = rows * d(g.n) * (act + 1.0) / bw + r.launch_seconds;
        const double xt_cast = (rows * d(g.k) * 2.0 + rows * d(g.n) * (act + 1.0)) / bw + 2.0 * r.launch_seconds;
        // dgrad reduces over N, but Hopper's FP8 WGMMA reads both operands K-major only (PTX
        // ISA, wgmma.mma_async: the transpose flags are for .f16/.bf16), so the backward first
        // writes the FP8 weight transposed: one read and one write of groups x N x K bytes.
        const double w_transpose = o.weight_grad ? d(g.groups) * d(g.n) * d(g.k) * 2.0 / bw + r.launch_seconds : 0.0;
        t.forward += x_cast;
        t.backward_input += dy_cast + w_transpose;
        if (o.weight_grad) t.backward_weight += xt_cast;
        t.memory_bound = x_cast + dy_cast + w_transpose + (o.weight_grad ? xt_cast : 0.0);
      }
      break;
    }
    case OpKind::Attention:
      t.forward =
          std::max(o.flops / r.attention_forward_flops_per_second, o.bytes / r.hbm_bytes_per_second) + r.launch_seconds;
      // FlashAttention's backward recomputes the scores: 2.5x the forward's matmul FLOPs.
      t.backward_input =
          std::max(2.5 * o.flops / r.attention_backward_flops_per_second, o.backward_bytes / r.hbm_bytes_per_second) +
          r.launch_seconds;
      break;
    case OpKind::MemoryBound: {
      const double bw = o.mhc_kernel ? r.mhc_bytes_per_second : r.hbm_bytes_per_second;
      t.forward = o.bytes / bw + r.launch_seconds;
      t.backward_input = o.backward_bytes / bw + r.launch_seconds;
      break;
    }
    case OpKind::Communication:
      if (o.tp_collective) {
        t.forward = ring_all_reduce_seconds(r.tp_link, o.bytes, r.tp);
        t.backward_input = ring_all_reduce_seconds(r.tp_link, o.backward_bytes, r.tp);
      } else {
        t.forward = r.cp_link.seconds(o.bytes, 1);
        t.backward_input = r.cp_link.seconds(o.backward_bytes, 1);
      }
      break;
  }
  return t;
}

OpListSeconds price_ops(const std::vector<Op>& ops, const OpRates& r) {
  OpListSeconds out;
  OpSeconds previous;
  // Per sublayer, its GEMMs' forward and input-gradient time so far (the weight gradients run
  // apart in the zero-bubble schedules, so the backward's collectives are not hidden by them).
  std::array<OpSeconds, 2> gemms{};
  for (const auto& o : ops) {
    OpSeconds t = op_seconds(o, r);
    OpSeconds& part_gemms = gemms[o.part == Sublayer::Attention ? 0 : 1];
    const OpSeconds* beside = o.hides == HidesBehind::PreviousOp      ? &previous
                              : o.hides == HidesBehind::SublayerGemms ? &part_gemms
                                                                      : nullptr;
    if (beside) {  // of the share that may hide, only what outlasts the compute beside it is exposed
      const double share = o.hides == HidesBehind::SublayerGemms ? r.tp_overlap : 1.0;
      t.forward -= std::min(share * t.forward, beside->forward);
      t.backward_input -= std::min(share * t.backward_input, beside->backward_input);
    }
    if (o.kind == OpKind::Gemm) {
      part_gemms.forward += t.forward;
      part_gemms.backward_input += t.backward_input;
    }
    previous = t;
    PassSeconds& p = o.part == Sublayer::Attention ? out.attention : out.mlp;
    const double replay = o.recomputed ? t.forward : 0.0;
    p.forward += t.forward;
    p.backward_input += t.backward_input + replay;
    p.backward_weight += t.backward_weight;
    p.recompute += replay;
    if (o.kind == OpKind::Communication) p.communication += t.forward + t.backward_input + replay;
    const double casts = t.memory_bound;  // FP8 casts count as memory-bound time
    p.by_kind[static_cast<int>(o.kind)] += t.forward + t.backward_input + t.backward_weight + replay - casts;
    p.by_kind[static_cast<int>(OpKind::MemoryBound)] += casts;
  }
  return out;
}

}  // namespace mhcsim::cost
