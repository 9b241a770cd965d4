// The op list of a layer: its FLOPs add up to the closed forms, its saved tensors to Korthikanti
// et al.'s activation memory (2022, Table 2), and the parallelism keys change what they should.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

namespace {
// GPT-3 175B as Korthikanti et al. run it: s = 2048, b = 1, h = 12288, a = 96, GeLU 4h MLP,
// dropout, Megatron's unfused attention, TP 8.
const char* kGpt = R"(
name = "gpt-175b"
[model]
layers = 96
hidden = 12288
vocab = 51200
attention = "mha"
heads = 96
head_dim = 128
ffn_hidden = 49152
mlp = "gelu"
dropout = true
[hardware]
gpu = "A100"
gpus = 8
[precision]
gemm = "fp16"
activations = "fp16"
[parallel]
tp = 8
flash_attention = false
[workload]
mode = "train"
seq_len = 2048
micro_batch_seqs = 1
)";

Scenario gpt(std::vector<scenarios::Override> overrides = {}) {
  return scenarios::load_scenario_from_string(kGpt, "gpt.toml", overrides);
}

double saved(const Scenario& s) {
  double b = 0;
  for (const auto& o : layer_ops(s, false)) b += o.saved_bytes;
  return b;
}

constexpr double s = 2048, b = 1, h = 12288, a = 96, t = 8;
}  // namespace

TEST_CASE("saved tensors reproduce Korthikanti et al. Table 2 for every TP/SP/recompute row") {
  const double sbh = s * b * h;
  // TP without SP: s b h (10 + 24/t + 5 a s / (h t)).
  CHECK_THAT(saved(gpt()), WithinRel(sbh * (10 + 24 / t + 5 * a * s / (h * t)), 1e-12));
  // TP + SP: s b h / t (34 + 5 a s / h).
  CHECK_THAT(saved(gpt({{"parallel.sequence_parallel", "true"}})), WithinRel(sbh / t * (34 + 5 * a * s / h), 1e-12));
  // TP + SP + selective (attention core) recompute: 34 s b h / t.
  CHECK_THAT(saved(gpt({{"parallel.sequence_parallel", "true"}, {"parallel.activation_recompute", "\"attention\""}})),
             WithinRel(34 * sbh / t, 1e-12));
  // TP + selective without SP: s b h (10 + 24 / t).
  CHECK_THAT(saved(gpt({{"parallel.activation_recompute", "\"attention\""}})), WithinRel(sbh * (10 + 24 / t), 1e-12));
  // Full recompute keeps the layer input: 2 s b h (/ t with SP).
  CHECK_THAT(chunk_activation_bytes(gpt({{"parallel.activation_recompute", "\"full\""}}), 1),
             WithinRel(2 * sbh, 1e-12));
  CHECK_THAT(chunk_activation_bytes(
                 gpt({{"parallel.activation_recompute", "\"full\""}, {"parallel.sequence_parallel", "true"}}), 1),
             WithinRel(2 * sbh / t, 1e-12));
  // FlashAttention keeps no s x s tensor, only the log-sum-exp (fp32 per head and token).
  CHECK_THAT(saved(gpt({{"parallel.flash_attention", "true"}, {"parallel.sequence_parallel", "true"}})),
             WithinRel(34 * sbh / t + s * b * a / t * 4, 1e-12));
}

// The last stage keeps its head's tensors for the backward (Megatron's vocab-parallel
// cross-entropy keeps fp32 logits: 4 s b v / t) and each MTP module's block; under full
// recompute an MTP block keeps its input alone, as the stage's layers do.
TEST_CASE("the last stage keeps the head's logits and each MTP module's block") {
  const auto sum = [](const std::vector<Op>& ops) {
    double bytes = 0;
    for (const auto& o : ops) bytes += o.saved_bytes;
    return bytes;
  };
  for (const char* recompute : {"\"none\"", "\"full\""}) {
    const auto one = gpt({{"parallel.activation_recompute", recompute}});
    const auto two = gpt({{"parallel.activation_recompute", recompute}, {"model.mtp_depth", "1"}});
    INFO(recompute);
    const double head = sum(head_ops(one));
    CHECK(head >= s * b * 51200 / t * 4);  // the logits, at least
    CHECK_THAT(chunk_activation_bytes(one, 1, true), WithinRel(chunk_activation_bytes(one, 1) + head, 1e-12));
    const double block = std::string(recompute) == "\"full\"" ? layer_input_bytes(two) : sum(layer_ops(two, false));
    CHECK_THAT(chunk_activation_bytes(two, 1, true) - chunk_activation_bytes(one, 1, true),
               WithinRel(head + sum(mtp_ops(two)) + block, 1e-9));
  }
}

TEST_CASE("forward GEMM FLOPs of a GPT layer: 24 b s h^2 + 4 b s^2 h (Narayanan et al. eq. 2)") {
  const auto sc = gpt();
  double flops = 0;
  for (const auto& o : layer_ops(sc, false))
    if (o.kind == OpKind::Gemm) flops += o.gemm.flops();
  // Per TP rank; the unfused QK^T and PV compute the whole s x s.
  CHECK_THAT(flops * t, WithinRel(24 * b * s * h * h + 4 * b * s * s * h, 1e-12));
}

TEST_CASE("context parallelism splits tokens and adds the ring exchange hidden behind attention") {
  const auto one = gpt({{"parallel.flash_attention", "true"}, {"hardware.gpus", "16"}, {"parallel.dp", "2"}});
  const auto two = gpt({{"parallel.flash_attention", "true"}, {"hardware.gpus", "16"}, {"parallel.cp", "2"}});
  const auto core = [](const Scenario& sc) {
    for (const auto& o : layer_ops(sc, false))
      if (o.kind == OpKind::Attention) return o.flops;
    return 0.0;
  };
  CHECK_THAT(core(two), WithinRel(core(one) / 2, 1e-12));
  bool ring = false;
  for (const auto& o : layer_ops(two, false))
    ring |= o.hides == HidesBehind::PreviousOp && o.kind == OpKind::Communication;
  CHECK(ring);
  CHECK(chunk_cost(two, 1).forward_seconds() < chunk_cost(one, 1).forward_seconds());
}

TEST_CASE("sequence parallelism shards the norms and dropouts: less memory-bound time, same GEMMs") {
  const auto tp = chunk_cost(gpt(), 1);
  const auto sp = chunk_cost(gpt({{"parallel.sequence_parallel", "true"}}), 1);
  CHECK(sp.kind_seconds[static_cast<size_t>(OpKind::MemoryBound)] <
        tp.kind_seconds[static_cast<size_t>(OpKind::MemoryBound)]);
  CHECK(sp.kind_seconds[static_cast<size_t>(OpKind::Gemm)] == tp.kind_seconds[static_cast<size_t>(OpKind::Gemm)]);
}

TEST_CASE("TP communication overlap: the share that may hide, up to its sublayer's GEMMs, is hidden") {
  const std::vector<scenarios::Override> sp = {{"parallel.sequence_parallel", "true"},
                                               {"parallel.flash_attention", "true"}};
  const auto plain_scenario = gpt(sp);
  const auto rates = op_rates(plain_scenario);
  const auto plain = price_ops(layer_ops(plain_scenario, false), rates).total();
  const double share = GENERATE(0.25, 0.5, 1.0);
  auto with = sp;
  with.push_back({"parallel.tp_overlap", std::to_string(share)});
  const auto overlapped = gpt(with);
  // By hand from the ops alone: per sublayer, each pass of the collective less the smaller of
  // its share and the GEMMs before it in that sublayer (forward; input gradients).
  double gemm_fwd[2] = {}, gemm_bwd[2] = {}, exposed = 0, whole = 0;
  for (const auto& o : layer_ops(plain_scenario, false)) {
    const auto t = op_seconds(o, rates);
    const int part = o.part == Sublayer::Attention ? 0 : 1;
    if (o.kind == OpKind::Gemm) gemm_fwd[part] += t.forward, gemm_bwd[part] += t.backward_input;
    if (!o.tp_collective) continue;
    whole += t.forward + t.backward_input;
    exposed += t.forward - std::min(share * t.forward, gemm_fwd[part]) + t.backward_input -
               std::min(share * t.backward_input, gemm_bwd[part]);
  }
  REQUIRE(whole > 0);
  // The same rates but for the share (op_rates reads parallel.tp_overlap).
  auto overlapped_rates = rates;
  overlapped_rates.tp_overlap = share;
  REQUIRE(op_rates(overlapped).tp_overlap == share);
  const auto hidden = price_ops(layer_ops(overlapped, false), overlapped_rates).total();
  CHECK_THAT(plain.communication, WithinRel(whole, 1e-12));
  CHECK_THAT(hidden.communication, WithinRel(exposed, 1e-12));
  CHECK(hidden.communication < plain.communication);
  const auto gemm = static_cast<size_t>(OpKind::Gemm);
  CHECK(hidden.by_kind[gemm] == plain.by_kind[gemm]);
  CHECK_THAT(plain.forward + plain.backward_input - hidden.forward - hidden.backward_input,
             WithinRel(whole - exposed, 1e-9));
}

TEST_CASE("TP communication overlap: a MoE sublayer's collective has no TP-split GEMM to hide behind") {
  const auto moe = gpt({{"parallel.sequence_parallel", "true"},
                        {"parallel.flash_attention", "true"},
                        {"parallel.tp_overlap", "1"},
                        {"model.moe.routed_experts", "8"},
                        {"model.moe.top_k", "2"},
                        {"model.moe.expert_ffn_hidden", "4096"}});
  int attention = 0, mlp = 0;
  for (const auto& o : layer_ops(moe, /*moe_layer=*/true)) {
    if (!o.tp_collective) continue;
    if (o.part == Sublayer::Attention) attention += o.hides == HidesBehind::SublayerGemms;
    if (o.part == Sublayer::Mlp) mlp += o.hides == HidesBehind::Nothing;
  }
  CHECK(attention == 1);
  CHECK(mlp == 1);
}

TEST_CASE("TP communication overlap follows Megatron's rules: sequence parallelism, training") {
  CHECK_THROWS_WITH(gpt({{"parallel.tp_overlap", "0.5"}}), Catch::Contains("parallel.sequence_parallel"));
  CHECK_THROWS_AS(gpt({{"parallel.tp_overlap", "0.5"}}), InputError);
  CHECK_THROWS_AS(gpt({{"parallel.tp_overlap", "1.5"}, {"parallel.sequence_parallel", "true"}}), InputError);
  CHECK_THROWS_WITH(gpt({{"parallel.tp_overlap", "0.5"},
                         {"parallel.sequence_parallel", "true"},
                         {"workload.mode", "serve"},
                         {"workload.context_len", "2048"}}),
                    Catch::Contains("training steps only"));
}

TEST_CASE("expert imbalance scales the routed expert GEMMs and the all-to-all, nothing else") {
  const auto load = [](double imbalance) {
    auto sc = scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_train.toml");
    sc.parallel.expert_imbalance = imbalance;
    return sc;
  };
  const auto even = load(1.0), skewed = load(1.25);
  const auto rows = [](const Scenario& sc) {
    for (const auto& o : layer_ops(sc, true))
      if (std::string(o.name) == "expert_fc1") return static_cast<double>(o.gemm.groups * o.gemm.m);
    return 0.0;
  };
  CHECK_THAT(rows(skewed), WithinRel(1.25 * rows(even), 0.001));
  const auto a = chunk_cost(even, 4), b = chunk_cost(skewed, 4);
  CHECK(b.dispatch_seconds > 1.2 * a.dispatch_seconds);
  CHECK(b.attn_forward_seconds == a.attn_forward_seconds);
}
