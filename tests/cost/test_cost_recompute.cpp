// Activation recompute: what each mode keeps (memory) and what it replays (backward time).
// DeepSeek-V3 report 3.2.3 (RMSNorm and MLA up-projection recompute) and 3.3.3 (FP8 caching
// of Linear inputs) are what let its PP16 DualPipe step fit the H800's 80 GB.
#include <catch2/catch.hpp>

#include <string>

#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/units.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

namespace {
Scenario with_recompute(const char* file, ActivationRecompute r) {
  auto s = scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/" + file);
  s.parallel.activation_recompute = r;
  return s;
}
}  // namespace

TEST_CASE("full recompute keeps only each layer's input") {
  const auto s = with_recompute("llama3_70b_gqa.toml", ActivationRecompute::Full);
  const double tokens = static_cast<double>(s.workload.micro_batch_seqs * s.workload.seq_len);
  const double bytes = 80.0 * tokens * 8192 * bytes_per_element(s.precision.activations);
  CHECK_THAT(chunk_activation_bytes(s, 80), WithinRel(bytes, 1e-12));
}

TEST_CASE("DeepSeek-V3 fits 80 GB only with its selective recompute") {
  const auto none = training_memory(with_recompute("deepseek_v3_train.toml", ActivationRecompute::None));
  const auto sel = training_memory(with_recompute("deepseek_v3_train.toml", ActivationRecompute::Selective));
  const auto full = training_memory(with_recompute("deepseek_v3_train.toml", ActivationRecompute::Full));
  CHECK_FALSE(none.fits());
  CHECK(sel.fits());
  CHECK(full.activation_bytes < sel.activation_bytes);
  // FP8-cached Linear inputs are kept in both modes; selective drops the norm, up-projection
  // and SwiGLU outputs on top.
  CHECK(sel.activation_bytes < 0.6 * none.activation_bytes);
  CHECK(sel.weight_bytes == none.weight_bytes);
}

TEST_CASE("FP8 caching shrinks the selective activations; BF16 GEMMs keep them in BF16") {
  auto fp8 = with_recompute("deepseek_v3_train.toml", ActivationRecompute::Selective);
  auto bf16 = fp8;
  bf16.precision.gemm = DType::BF16;
  CHECK(chunk_activation_bytes(fp8, 4) < chunk_activation_bytes(bf16, 4));
}

TEST_CASE("recompute replays forward work in the backward: none < selective < full") {
  const auto none = chunk_cost(with_recompute("deepseek_v3_train.toml", ActivationRecompute::None), 4);
  const auto sel = chunk_cost(with_recompute("deepseek_v3_train.toml", ActivationRecompute::Selective), 4);
  const auto full = chunk_cost(with_recompute("deepseek_v3_train.toml", ActivationRecompute::Full), 4);
  CHECK(none.recompute_seconds == 0);
  CHECK(sel.recompute_seconds > 0);
  CHECK_THAT(full.recompute_seconds, WithinRel(full.forward_seconds(), 1e-12));
  // DeepSeek's selective scheme also caches the MoE SwiGLU inputs in FP8 and the attention
  // output in E5M6 (report 3.3.3): a cast in the forward, a cast back in the backward.
  const auto s = with_recompute("deepseek_v3_train.toml", ActivationRecompute::Selective);
  const auto rates = op_rates(s);
  double cast_forward = 0, cast_backward = 0;
  int caches = 0;
  for (const auto& o : layer_ops(s, true)) {
    const std::string name = o.name;
    if (name != "swiglu_input_fp8" && name != "attn_output_e5m6") continue;
    ++caches;
    cast_forward += 4 * op_seconds(o, rates).forward;
    cast_backward += 4 * op_seconds(o, rates).backward_input;
  }
  CHECK(caches == 3);  // shared and routed experts' SwiGLU, attention output
  CHECK_THAT(sel.forward_seconds() - none.forward_seconds(), WithinRel(cast_forward, 1e-9));
  CHECK_THAT(sel.backward_seconds() - none.backward_seconds(), WithinRel(sel.recompute_seconds + cast_backward, 1e-9));
  // "minimal overhead" (3.2.3): a few % of the chunk's forward + backward.
  CHECK(sel.recompute_seconds < 0.05 * (sel.forward_seconds() + sel.backward_seconds()));
  CHECK(sel.backward_weight_seconds() == none.backward_weight_seconds());
}

TEST_CASE("MLA up-projections: W_UQ (incl. RoPE part), W_UK, W_UV of DeepSeek-V3") {
  const auto s = with_recompute("deepseek_v3_train.toml", ActivationRecompute::None);
  const double per_layer = 1536.0 * 128 * (128 + 64) + 512.0 * 128 * (128 + 128);
  CHECK_THAT(mla_up_projection_parameters_per_layer(s.model), WithinRel(per_layer, 1e-12));
  const auto gqa = with_recompute("llama3_70b_gqa.toml", ActivationRecompute::None);
  CHECK(mla_up_projection_parameters_per_layer(gqa.model) == 0);
}
