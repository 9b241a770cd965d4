// KV cache golden figures (DESIGN.md "KV cache" and "More published figures": seed 000,
// DeepSeek-V2 paper's comparison table, DeepSeek-V3 config, FlashMLA's FP8 cache format).
#include <catch2/catch.hpp>

#include <algorithm>

#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/error.h"
#include "mhcsim/units.h"
#include "models.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

TEST_CASE("seed 000: L=32, H=4096 MHA in BF16 is 4 GiB at 8K tokens and 64 GiB at 128K") {
  const auto m = test::dense(32, 4096, 32, 32, AttentionKind::MHA);  // 32 heads x 128 = 4096
  CHECK(kv_bytes_per_sequence(m, DType::BF16, 8192, 0) == 4294967296.0);
  CHECK(kv_bytes_per_sequence(m, DType::BF16, 131072, 0) == 64 * kGiB);
}

TEST_CASE("DeepSeek-V3 MLA: (512 + 64) x 61 = 35,136 elements = 70,272 B per token at BF16") {
  const auto m = test::deepseek_v3();
  CHECK(kv_elems_per_token_per_layer(m) == 576);
  CHECK(kv_bytes_per_token(m, DType::BF16) == 70272);
  // MHA-shaped heads (K 192 + V 128 = 2 x 160 per head): 4,997,120 B, 71.1x MLA.
  auto mha = m;
  mha.attention = AttentionKind::MHA;
  mha.head_dim = 160;
  CHECK(kv_bytes_per_token(mha, DType::BF16) == 4997120);
  CHECK_THAT(kv_bytes_per_token(mha, DType::BF16) / 70272.0, WithinRel(71.1, 1e-3));
}

TEST_CASE("FlashMLA FP8 cache: 656 B per token per layer (512 e4m3 + 4 fp32 + 64 bf16)") {
  CHECK(kv_bytes_per_token_per_layer(test::deepseek_v3(), DType::FP8) == 656);
  // The decode kernel's byte count reads the same rows: 1000 tokens, b = 1, h_q = 16, s_q = 1,
  // q and o in bf16 (16 x 1088 elements).
  MlaDecodeShape shape;
  shape.total_kv_tokens = 1000;
  shape.q_heads = 16;
  CHECK(mla_decode_bytes(shape, DType::FP8, DType::BF16) == 1000 * 656 + 16 * 1088 * 2);
  CHECK(mla_decode_bytes(shape, DType::BF16, DType::BF16) == 1000 * 1152 + 16 * 1088 * 2);
}

TEST_CASE("DeepSeek-V2's 93.3% KV reduction against DeepSeek 67B") {
  // DeepSeek 67B: 95 layers, GQA with 8 KV heads of 128, BF16 -> 389,120 B per token.
  auto ds67b = test::dense(95, 8192, 64, 8, AttentionKind::GQA);
  CHECK(kv_bytes_per_token(ds67b, DType::BF16) == 389120);
  // DeepSeek-V2: 60 layers of MLA (d_c 512, d_R 64), deployed at ~6 bits per element.
  auto v2 = test::deepseek_v3();
  v2.layers = 60;
  const double v2_bytes = kv_elems_per_token_per_layer(v2) * 60 * 0.75;
  CHECK(v2_bytes == 25920);
  CHECK_THAT(1.0 - v2_bytes / kv_bytes_per_token(ds67b, DType::BF16), WithinRel(0.9334, 1e-4));
}

TEST_CASE("MHA, GQA, MQA elements per token per layer") {
  CHECK(kv_elems_per_token_per_layer(test::dense(1, 4096, 32, 32, AttentionKind::MHA)) == 8192);
  CHECK(kv_elems_per_token_per_layer(test::dense(1, 4096, 32, 8, AttentionKind::GQA)) == 2048);
  CHECK(kv_elems_per_token_per_layer(test::dense(1, 4096, 32, 1, AttentionKind::MQA)) == 256);
  const auto m = test::dense(1, 4096, 32, 8, AttentionKind::GQA);
  CHECK(kv_bytes_per_token(m, DType::INT4) == 1024);
}

TEST_CASE("kv_layouts: the model's layout first, then the others at the same heads (kv and the report)") {
  const auto layouts = kv_layouts(test::deepseek_v3());
  REQUIRE(layouts.size() == 4);
  CHECK(layouts[0].is_model);
  CHECK(layouts[0].attention == AttentionKind::MLA);
  CHECK(layouts[0].shape == "latent 512 + RoPE 64");
  // DeepSeek-V3's MHA-shaped cache: K of 128 + 64 and V of 128 per head, 128 heads, 61 layers:
  // (192 + 128) x 128 x 61 x 2 B = 4,997,120 B per token (DeepSeek-V2 sec. 2.1.2's comparison).
  const auto& mha = layouts.back();
  CHECK(mha.attention == AttentionKind::MHA);
  CHECK(mha.shape == "128 KV heads x 160");
  CHECK(kv_bytes_per_token(mha.model, DType::BF16) == 4'997'120);
  const auto& gqa = layouts[1];
  CHECK(gqa.attention == AttentionKind::GQA);
  CHECK(gqa.model.kv_heads == 8);
}

TEST_CASE("paged cache rounds each sequence up to whole blocks") {
  const auto m = test::deepseek_v3();
  CHECK(kv_bytes_per_sequence(m, DType::BF16, 4989, 64) == 78 * 64 * 70272.0);
  CHECK(kv_bytes_per_sequence(m, DType::BF16, 4992, 64) == 4992 * 70272.0);
  CHECK(kv_bytes_per_sequence(m, DType::BF16, 1, 64) == 64 * 70272.0);
  CHECK_THROWS_AS(kv_bytes_per_sequence(m, DType::BF16, 0, 64), SpecError);
}

TEST_CASE("sequences that fit on one GPU after weights and the activation reserve") {
  Scenario s;
  s.model = test::deepseek_v3();
  s.hardware.gpu.hbm_bytes = 80 * kGiB;
  s.hardware.gpus = 144;
  s.parallel.ep = 144;
  s.parallel.redundant_experts = 32;
  s.precision.weights = DType::FP8;
  s.workload.mode = WorkloadMode::Serve;
  const auto fit = kv_fit(s, 4989);
  CHECK(fit.weight_bytes == weight_bytes_per_gpu(s));
  // FP8 weights, the embedding and the output head in BF16 as DeepSeek's FP8 checkpoint holds
  // them: 1.85 GB more per GPU than all at one byte.
  const auto params = rank_parameters(s);
  const auto c = parameter_count(s.model);
  CHECK(params.bf16_kept == c.embedding + c.head);
  CHECK_THAT(fit.weight_bytes, WithinRel(params.total() + c.embedding + c.head, 1e-12));
  // Over a pipeline, the rank with the most bytes: rank 0's embedding in BF16 outweighs a rank
  // with more parameters (PP 4, EP 16: ~14.9 B + 0.93 B in BF16 against ~15.0 B).
  auto pp4 = s;
  pp4.parallel.pp = 4;
  pp4.parallel.ep = 16;
  pp4.parallel.redundant_experts = 0;
  pp4.parallel.extra_stage_layers = 3;
  double most = 0;
  for (const auto& r : parameters_per_rank(pp4)) most = std::max(most, r.total() + r.bf16_kept);
  CHECK_THAT(weight_bytes_per_gpu(pp4), WithinRel(most, 1e-12));
  CHECK(weight_bytes_per_gpu(pp4) > rank_parameters(pp4).total() + rank_parameters(pp4).bf16_kept);
  CHECK(fit.kv_budget_bytes == fit.hbm_bytes - fit.weight_bytes - fit.reserve_bytes);
  CHECK(fit.sequences == static_cast<int64_t>(fit.kv_budget_bytes / fit.bytes_per_sequence));
  CHECK(fit.sequences > 0);
  // FP8 cache fits more sequences than BF16.
  s.precision.kv_cache = DType::FP8;
  CHECK(kv_fit(s, 4989).sequences > fit.sequences);
}
