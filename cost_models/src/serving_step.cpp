// ServingStepModel: tables built once, then one iteration's time per query. The op list and
// its prices are training's (layer_ops.h); only what differs at serving time is here: the
// expert weights a small batch does not touch, attention over a cache, DeepEP's low-latency
// kernels, and the split into overlapped micro-batches.
#include "mhcsim/cost/serving_step.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/units.h"
#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {

constexpr LowLatencyA2aPoint kDeepEpLowLatency[] = {{8, 77, 114},   {16, 118, 195},  {32, 155, 273},
                                                    {64, 173, 314}, {128, 192, 369}, {256, 194, 360}};
// The table's payload per selection: DeepSeek-V3's hidden 7168, FP8 with 1x128 scales + 16 B
// of metadata (7,408 B) dispatched, BF16 (14,336 B) combined.
constexpr int64_t kReferenceHidden = 7168;

// Grid of token counts: every integer up to 8, then steps of 2^(1/8) (9%): the tables are
// piecewise linear in between, which is exact where time is linear in tokens (weights streamed
// at a fixed cost, or compute bound) and within a few % at the bend.
std::vector<double> token_grid() {
  std::vector<double> grid;
  for (double t = 1; t <= d(ServingStepModel::kTableMaxTokens);) {
    grid.push_back(t);
    t = std::max(t + 1, std::round(t * std::exp2(0.125)));
  }
  return grid;
}

// Low-latency kernels issue RDMA writes from a few warps and receive through a hook, so the
// computation keeps every SM (DeepEP README: "without any SM occupation"); the normal kernels
// take kCommunicationSms (gemm_rates' compute_sm_fraction).
GemmRates all_sms(GemmRates r, int sm_count) {
  if (r.sms > 0 && sm_count > r.sms) {
    r.peak_flops_per_second *= d(sm_count) / d(r.sms);
    r.sms = sm_count;
  }
  return r;
}

// Routed-expert GEMMs of a small batch: only the experts that one of the EP group's tokens
// picks are streamed. layer_ops spreads the rows over every hosted expert; here they go to the
// expected number hit, E (1 - (1 - k/E)^tokens) of E, in the same share on each GPU.
void stream_only_experts_hit(const Scenario& s, double tokens, Op& op) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const double group_tokens = tokens * d(p.ep) / d(p.tp);
  const double hit_share = expected_experts_hit(m, group_tokens) / d(m.routed_experts);
  const double hosted = d(op.gemm.groups);
  const int64_t groups = std::max<int64_t>(1, std::llround(hosted * hit_share));
  if (groups >= op.gemm.groups) return;
  const double rows = tokens / d(p.tp) * d(m.top_k) * p.expert_imbalance;
  op.gemm.groups = groups;
  op.gemm.m = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(rows / d(groups) - 1e-9)));
}

bool is_routed_expert_gemm(const Op& o) {
  return o.kind == OpKind::Gemm && (std::strcmp(o.name, "expert_fc1") == 0 || std::strcmp(o.name, "expert_fc2") == 0);
}

// One layer kind's forward for `tokens` tokens: GEMMs, memory-bound ops and collectives, and
// the attention sublayer's part of them; the attention core is priced per batch (it depends on
// the context, not only on the tokens).
std::array<double, 4> layer_seconds(const Scenario& mb, bool moe, const OpRates& rates, double tokens) {
  std::array<double, 4> t{};
  for (auto o : layer_ops(mb, moe)) {
    // The attention core is priced per batch, the key assembly per prefill token (time()).
    if (o.kind == OpKind::Attention || std::strcmp(o.name, "mla_k_assembly") == 0) continue;
    if (moe && is_routed_expert_gemm(o)) stream_only_experts_hit(mb, tokens, o);
    const double fwd = op_seconds(o, rates).forward;
    t[o.kind == OpKind::Gemm ? 0 : o.kind == OpKind::MemoryBound ? 1 : 2] += fwd;
    if (o.part == Sublayer::Attention) t[3] += fwd;
  }
  return t;
}

double interpolate_log2(double ep, double (*value)(const LowLatencyA2aPoint&)) {
  const auto& table = kDeepEpLowLatency;
  const size_t n = std::size(table);
  if (ep <= d(table[0].ep)) return value(table[0]);
  for (size_t i = 1; i < n; ++i) {
    if (ep <= d(table[i].ep)) {
      const double f = std::log2(ep / d(table[i - 1].ep)) / std::log2(d(table[i].ep) / d(table[i - 1].ep));
      return value(table[i - 1]) + f * (value(table[i]) - value(table[i - 1]));
    }
  }
  return value(table[n - 1]);
}

const CollectiveFit* calibrated(const Scenario& s, const char* name) {
  if (!s.calibration) return nullptr;
  const auto it = s.calibration->collectives.find(name);
  return it == s.calibration->collectives.end() ? nullptr : &it->second;
}
}  // namespace

std::span<const LowLatencyA2aPoint> deepep_low_latency_table() { return kDeepEpLowLatency; }

A2aPhaseSeconds low_latency_a2a_seconds(const Scenario& s, double tokens) {
  const auto& m = s.model;
  check(m.is_moe(), "model.moe.routed_experts", "all-to-all needs a MoE model (experts > 0)");
  check(tokens >= 0, "tokens", "must be >= 0");
  if (tokens <= 0) return {};
  const double disp_sel = dispatch_bytes_per_selection(m.hidden, s.precision.dispatch, s.precision.fp8_tile);
  const double comb_sel = combine_bytes_per_selection(m.hidden, s.precision.combine);
  const double disp_bytes = tokens * d(m.top_k) * disp_sel;
  const double comb_bytes = tokens * d(m.top_k) * comb_sel;
  const auto phase = [&](const char* fit_name, double bytes, double ref_us, double ref_bytes) {
    if (const auto* fit = calibrated(s, fit_name))
      return fit->alpha_seconds + bytes / gbps_to_bytes_per_second(fit->bus_gbps);
    const double alpha = s.hardware.nic_latency_us * kUs;
    const double ref = ref_us * kUs;
    return alpha + std::max(0.0, ref - alpha) * bytes / ref_bytes;
  };
  const double ep = d(std::max<int64_t>(1, s.parallel.ep));
  const double ref_tokens = d(kLowLatencyReferenceTokens) * 8.0;  // 128 tokens x top-8
  const double ref_disp = ref_tokens * dispatch_bytes_per_selection(kReferenceHidden, DType::FP8, 128);
  const double ref_comb = ref_tokens * combine_bytes_per_selection(kReferenceHidden, DType::BF16);
  return {phase("alltoall_ll_dispatch", disp_bytes,
                interpolate_log2(ep, [](const LowLatencyA2aPoint& p) { return p.dispatch_us; }), ref_disp),
          phase("alltoall_ll_combine", comb_bytes,
                interpolate_log2(ep, [](const LowLatencyA2aPoint& p) { return p.combine_us; }), ref_comb)};
}

BatchShape prompt_batch(double seqs, double len, double cached) {
  const double computed = len - cached;
  BatchShape b;
  b.prefill_tokens = seqs * computed;
  b.prefill_attended_tokens = seqs * (computed * cached + computed * (computed + 1) / 2);
  b.sampled_seqs = seqs;
  return b;
}

BatchShape decode_batch(double seqs, double context_len) {
  BatchShape b;
  b.decode_seqs = b.sampled_seqs = seqs;
  b.decode_context_tokens = seqs * context_len;
  return b;
}

int64_t deployment_unit_gpus(const Scenario& s) {
  const auto& p = s.parallel;
  const int64_t gpn = std::max(1, s.hardware.gpus_per_node);
  const int64_t replica = p.tp * p.pp;
  const int64_t group = std::max(replica, s.model.is_moe() ? p.ep : int64_t{1});
  return group >= gpn ? (group + gpn - 1) / gpn * gpn : group;
}

std::array<double, 4> ServingStepModel::LinearTable::at(double t) const {
  if (tokens.size() == 1) return seconds.front();  // time_once: the one size asked for
  t = std::max(t, tokens.front());                 // a part of a token still streams the weights
  size_t hi = static_cast<size_t>(std::upper_bound(tokens.begin(), tokens.end(), t) - tokens.begin());
  hi = std::clamp<size_t>(hi, 1, tokens.size() - 1);  // past the end: extrapolate the last slope
  const size_t lo = hi - 1;
  const double f = (t - tokens[lo]) / (tokens[hi] - tokens[lo]);
  std::array<double, 4> v{};
  for (size_t k = 0; k < v.size(); ++k) v[k] = seconds[lo][k] + f * (seconds[hi][k] - seconds[lo][k]);
  return v;
}

ServingStepModel::Split::Split(const Scenario& s)
    : pp(s.parallel.pp), ep(s.model.is_moe() && s.parallel.ep > 1), overlap(s.parallel.overlap) {}

ServingStepModel::ServingStepModel(const Scenario& s) : ServingStepModel(s, token_grid(), kBothTables) {}

IterationTime ServingStepModel::time_once(const Scenario& s, const BatchShape& b) {
  // Table entries at the micro-batch sizes time() asks for answer it exactly: the pipeline's
  // share, or the half and the whole of a batch it may split in two.
  const Split split(s);
  const double tokens = std::max(1.0, b.tokens());
  const std::vector<double> sizes = split.pp > 1             ? std::vector<double>{tokens / d(split.pp)}
                                    : split.can_pair(tokens) ? std::vector<double>{tokens / 2, tokens}
                                                             : std::vector<double>{tokens};
  return ServingStepModel(s, sizes, split.low_latency(b) ? kAllSms : kNormalSms).time(b);
}

ServingStepModel::ServingStepModel(const Scenario& s, const std::vector<double>& grid, Tables tables) : split_(s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = s.workload;
  check_serving_spec(s);
  check(w.kv_block_tokens >= 1, "workload.kv_block_tokens", "must be >= 1");
  validate_model(m);

  gpus_per_replica_ = p.tp * p.pp;

  // The stage's layers, MoE layers first: the most loaded stage paces the pipeline.
  const double stage_layers = std::ceil(d(m.layers) / d(p.pp));
  moe_layers_ = std::min(stage_layers, d(m.moe_layers()));
  const double dense_layers = stage_layers - moe_layers_;

  Scenario mb = s;
  mb.workload.phase = ServePhase::Prefill;
  mb.workload.context_len = 1;  // batch_seqs = the micro-batch's tokens
  const OpRates normal = op_rates(mb);
  OpRates wide = normal;
  wide.linear = all_sms(normal.linear, s.hardware.gpu.sm_count);
  wide.bf16 = all_sms(normal.bf16, s.hardware.gpu.sm_count);
  fewer_sms_ = compute_sm_fraction(s);
  for (const double t : grid) {
    mb.workload.batch_seqs = std::max<int64_t>(1, std::llround(t));
    const auto add = [&](LinearTable& table, const OpRates& rates) {
      std::array<double, 4> sum{};
      const auto moe = moe_layers_ > 0 ? layer_seconds(mb, true, rates, t) : std::array<double, 4>{};
      const auto dense = dense_layers > 0 ? layer_seconds(mb, false, rates, t) : std::array<double, 4>{};
      for (size_t k = 0; k < sum.size(); ++k) sum[k] = moe_layers_ * moe[k] + dense_layers * dense[k];
      table.tokens.push_back(t);
      table.seconds.push_back(sum);
    };
    if (tables & kNormalSms) add(normal_, normal);
    if (tables & kAllSms) add(all_sms_, split_.ep ? wide : normal);
  }

  // Attention: FLOPs and bytes per key, per token and per sequence, as serve_estimate and
  // layer_ops count them.
  auto& a = attention_;
  a.layers = stage_layers;
  const double heads = std::max(1.0, d(m.heads) / d(p.tp));
  const bool mla = m.attention == AttentionKind::MLA;
  const double qk = mla ? d(m.qk_nope_head_dim + m.qk_rope_head_dim) : d(m.head_dim);
  const double v = mla ? d(m.v_head_dim) : d(m.head_dim);
  const double kv_heads = mla ? heads : std::max(1.0, d(m.kv_heads) / d(p.tp));
  const double act = bytes_per_element(s.precision.activations);
  a.prefill_flops_per_key = 2.0 * heads * (qk + v);
  a.prefill_bytes_per_token = (heads * qk + kv_heads * (qk + v) + heads * v) * act;
  a.prefill_k_assembly_bytes_per_token = mla_k_assembly_bytes_per_token(s);
  a.prefill_flops_per_second = normal.attention_forward_flops_per_second;
  kv_bytes_per_token_per_gpu_ = cost::kv_bytes_per_token_per_gpu(s);
  a.decode_kv_bytes_per_key = kv_bytes_per_token_per_gpu_;
  if (mla) {
    // FlashMLA: one latent head of d_c + d_R per key for all h_q query heads (kernel_bytes.h).
    MlaDecodeShape one{1, 1, 1, static_cast<int64_t>(heads), m.kv_lora_rank, m.qk_rope_head_dim};
    a.decode_flops_per_key = mla_decode_flops(one);
    a.decode_q_bytes_per_seq = stage_layers * heads * d(2 * m.kv_lora_rank + m.qk_rope_head_dim) * act;
    a.decode_flops_per_second = decode_attention_flops_per_second(s);
    a.decode_bytes_per_second = hbm_rate(s, "mla_decode").bytes_per_second;
  } else {
    a.decode_flops_per_key = 2.0 * heads * (qk + v);
    a.decode_q_bytes_per_seq = stage_layers * 2.0 * heads * v * act;
    a.decode_flops_per_second = normal.attention_forward_flops_per_second / fewer_sms_;
    a.decode_bytes_per_second = hbm_rate(s, "hbm_copy").bytes_per_second;
  }
  a.hbm_bytes_per_second = normal.hbm_bytes_per_second;
  a.launch_seconds = normal.launch_seconds;

  head_normal_ = gemm_rates(s, DType::BF16);
  head_all_sms_ = all_sms(head_normal_, s.hardware.gpu.sm_count);
  vocab_per_gpu_ = static_cast<int64_t>(std::ceil(d(m.vocab) / d(p.tp)));
  hidden_ = d(m.hidden);
  act_bytes_ = act;

  // Per micro-batch over the stage's MoE layers, tokens per rank = tokens / tp.
  const auto linear_in_tokens = [](auto&& seconds) {
    const double one = seconds(1.0), two = seconds(2.0);
    return Linear{2.0 * one - two, two - one};
  };
  if (split_.ep && moe_layers_ > 0) {
    const double tp = d(p.tp);
    const auto link = [&](double A2aTime::*field) {
      return linear_in_tokens([&, field](double t) { return moe_layers_ * (a2a_time(s, t / tp).*field); });
    };
    a2a_normal_ = {link(&A2aTime::dispatch_nvlink_seconds), link(&A2aTime::dispatch_nic_seconds),
                   link(&A2aTime::combine_nvlink_seconds), link(&A2aTime::combine_nic_seconds)};
    const auto low_latency = [&](double A2aPhaseSeconds::*field) {
      return linear_in_tokens(
          [&, field](double t) { return moe_layers_ * (low_latency_a2a_seconds(s, t / tp).*field); });
    };
    a2a_low_latency_ = {low_latency(&A2aPhaseSeconds::dispatch), low_latency(&A2aPhaseSeconds::combine)};
  }
  if (split_.pp > 1)
    pp_send_ = linear_in_tokens([&](double t) { return stage_send_seconds(s, stage_send_bytes(s, t)); });

  kv_block_tokens_ = w.kv_block_tokens;
  const auto fit = kv_fit(s, 1);
  const double block_bytes = d(kv_block_tokens_) * kv_bytes_per_token_per_gpu_;
  kv_blocks_ = block_bytes > 0 ? static_cast<int64_t>(std::floor(fit.kv_budget_bytes / block_bytes)) : 0;
}

A2aPhaseSeconds ServingStepModel::NormalA2a::at(double tokens) const {
  return {std::max(dispatch_nvlink.at(tokens), dispatch_nic.at(tokens)),
          std::max(combine_nvlink.at(tokens), combine_nic.at(tokens))};
}

double ServingStepModel::attention_seconds(const BatchShape& b, bool all) const {
  const auto& a = attention_;
  double t = 0;
  if (b.prefill_tokens > 0) {
    const double flops = a.layers * a.prefill_flops_per_key * b.prefill_attended_tokens;
    const double bytes = a.layers * a.prefill_bytes_per_token * b.prefill_tokens;
    t += std::max(flops / a.prefill_flops_per_second, bytes / a.hbm_bytes_per_second) + a.layers * a.launch_seconds;
  }
  if (b.decode_seqs > 0) {
    const double flops = a.layers * a.decode_flops_per_key * b.decode_context_tokens;
    const double bytes = a.decode_kv_bytes_per_key * b.decode_context_tokens + a.decode_q_bytes_per_seq * b.decode_seqs;
    const double rate = a.decode_flops_per_second * (all ? 1.0 : fewer_sms_);
    t += std::max(flops / rate, bytes / a.decode_bytes_per_second) + a.layers * a.launch_seconds;
  }
  return t;
}

// Final norm and the BF16 LM head (DeepSeek-V3 report 3.3.1 keeps it out of FP8), vocabulary
// split over TP, on the rows that sample.
double ServingStepModel::head_seconds(double rows, bool all) const {
  if (rows <= 0) return 0;
  const GemmShape g{std::max<int64_t>(1, static_cast<int64_t>(std::ceil(rows))),
                    vocab_per_gpu_,
                    static_cast<int64_t>(hidden_),
                    1,
                    DType::BF16,
                    DType::BF16};
  const double norm = 2.0 * rows * hidden_ * act_bytes_;
  return gemm_time(g, all ? head_all_sms_ : head_normal_).seconds + norm / attention_.hbm_bytes_per_second +
         attention_.launch_seconds;
}

IterationTime ServingStepModel::time(const BatchShape& b) const {
  const double tokens = b.tokens();
  if (tokens <= 0) return {};
  if (split_.pp > 1) return time_split(b, split_.pp);
  const auto one = time_split(b, 1);
  if (!split_.can_pair(tokens)) return one;
  // The engine runs the two-micro-batch overlap where it pays: each half streams the weights
  // again, so small decode batches are faster whole (DeepSeek-V3 EP144 at 2 sequences: 28.9 ms
  // split, 15.4 ms whole; at 128: 56.4 ms split, 69.6 ms whole).
  const auto two = time_split(b, 2);
  return two.seconds < one.seconds ? two : one;
}

IterationTime ServingStepModel::time_split(const BatchShape& b, int64_t micro_batches) const {
  IterationTime t;
  const double tokens = b.tokens();
  t.low_latency_a2a = split_.low_latency(b);
  t.micro_batches = micro_batches;
  t.overlapped = split_.pp == 1 && micro_batches == 2;
  const double n = d(t.micro_batches);
  const double f = 1.0 / n;
  BatchShape part = b;
  part.prefill_tokens *= f;
  part.prefill_attended_tokens *= f;
  part.decode_seqs *= f;
  part.decode_context_tokens *= f;

  const auto linear = (t.low_latency_a2a ? all_sms_ : normal_).at(tokens * f);
  t.linear_seconds = n * linear[0];
  // Prefill tokens' MLA keys are assembled per head (layer_ops' mla_k_assembly); decode
  // tokens attend the latent, so the tables, built for every token, leave it out.
  const auto& a = attention_;
  const double k_assembly =
      part.prefill_tokens > 0 && a.prefill_k_assembly_bytes_per_token > 0
          ? a.layers *
                (a.prefill_k_assembly_bytes_per_token * part.prefill_tokens / a.hbm_bytes_per_second + a.launch_seconds)
          : 0.0;
  t.memory_bound_seconds = n * (linear[1] + k_assembly);
  t.tp_comm_seconds = n * linear[2];
  t.attention_seconds = n * attention_seconds(part, t.low_latency_a2a);
  t.head_seconds = n * head_seconds(b.sampled_seqs * f, t.low_latency_a2a);
  const auto a2a = t.low_latency_a2a ? a2a_low_latency_.at(tokens * f) : a2a_normal_.at(tokens * f);
  t.dispatch_seconds = n * a2a.dispatch;
  t.a2a_seconds = t.dispatch_seconds + n * a2a.combine;
  t.attention_sublayer_seconds = n * (linear[3] + k_assembly);
  // Communication hides behind the other micro-batch's compute up to parallel.overlap of the
  // shorter of the two. One micro-batch has nothing to hide behind, and neither has a
  // pipeline's: each stage runs one of them at a time. Where the all-to-all outlasts the
  // compute, `simulate` (the pieces layer by layer, sim/README.md) exposes more than this in
  // decode (SGLang's EP72: 15.2 ms against 14.1) and less in prefill (DeepSeek-V3 EP32 at 2
  // prompts: 762 ms against 916); training's F&B rule, min(overlap x a2a, compute), would
  // expose 11.6 and 688.
  const double compute = t.compute_seconds();
  t.exposed_a2a_seconds =
      t.overlapped ? t.a2a_seconds - split_.overlap * std::min(compute, t.a2a_seconds) : t.a2a_seconds;
  // A micro-batch crosses the pp - 1 stage boundaries once per iteration and its next one
  // starts when it returns (its sampled tokens, a few bytes), so the pp micro-batches cycle in
  // pp stage times and pp - 1 sends.
  t.pp_send_seconds = (n - 1) * pp_send_.at(tokens * f);
  t.seconds = compute + t.exposed_a2a_seconds + t.pp_send_seconds;
  return t;
}

}  // namespace mhcsim::cost
