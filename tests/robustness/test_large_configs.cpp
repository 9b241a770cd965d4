// Byte counts at scale (issue 8): 16K GPUs and 1M-token sequences / contexts, and the largest
// values the scenario schema accepts, give finite, positive results that equal exact integer
// arithmetic -- no int32/int64 overflow anywhere between the scenario and the cost model.
#include <catch2/catch.hpp>

#include <cmath>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/scenarios/load.h"

using namespace mhcsim;
using Catch::Matchers::WithinRel;

namespace {

const std::string kScenarios = std::string(MHCSIM_SOURCE_DIR) + "/scenarios/";

// DeepSeek-V3 MLA at BF16: (d_c 512 + d_h^R 64) x 61 layers x 2 B = 70,272 B per token
// (DESIGN.md, KV cache; DeepSeek-V2 paper's comparison table).
constexpr int64_t kV3KvBytesPerToken = 70'272;

Scenario serve_16k(int64_t context, int64_t batch) {
  return scenarios::load_scenario(kScenarios + "deepseek_v3_serve.toml",
                                  {{"hardware.gpus", "16384"},
                                   {"parallel.ep", "128"},
                                   {"parallel.redundant_experts", "0"},
                                   {"workload.context_len", std::to_string(context)},
                                   {"workload.batch_seqs", std::to_string(batch)}});
}

}  // namespace

TEST_CASE("KV cache: 1M-token contexts and the schema's largest values stay exact") {
  const auto s = serve_16k(int64_t{1} << 20, 128);
  REQUIRE(s.hardware.gpus == 16384);
  const double per_seq = cost::kv_bytes_per_sequence(s.model, DType::BF16, int64_t{1} << 20, 64);
  // 70,272 x 2^20 = 73,685,729,280 B: past int32, exact in a double.
  CHECK(per_seq == static_cast<double>(kV3KvBytesPerToken * (int64_t{1} << 20)));
  // The schema's maxima: context 2^32 tokens (x 70,272 B = 3.0e14 B) ...
  const double huge = cost::kv_bytes_per_sequence(s.model, DType::BF16, int64_t{1} << 32, 64);
  CHECK(huge == static_cast<double>(kV3KvBytesPerToken) * 4294967296.0);
  // ... times 2^24 sequences is 5.1e21 B, past int64 (9.2e18): doubles keep it (549 x 2^63).
  const double all = huge * static_cast<double>(int64_t{1} << 24);
  CHECK(std::isfinite(all));
  CHECK(all == std::ldexp(549.0, 63));

  const auto fit = cost::kv_fit(s, int64_t{1} << 20);
  for (const double v : {fit.hbm_bytes, fit.weight_bytes, fit.bytes_per_sequence}) {
    CHECK(std::isfinite(v));
    CHECK(v > 0);
  }
  CHECK(fit.kv_budget_bytes >= 0);
  // One 1M-token sequence (73.7 GB at PP 1) does not fit next to the weights on an 80 GB H800.
  CHECK(fit.sequences == static_cast<int64_t>(std::floor(fit.kv_budget_bytes / fit.bytes_per_sequence)));
}

TEST_CASE("training at 16K GPUs and 1M-token sequences: finite memory and step figures") {
  const auto s = scenarios::load_scenario(kScenarios + "deepseek_v3_train.toml",
                                          {{"hardware.gpus", "16384"}, {"workload.seq_len", "1048576"}});
  REQUIRE(s.parallel.dp == 1024);
  const auto mem = cost::training_memory(s);
  for (const double v :
       {mem.weight_bytes, mem.grad_bytes, mem.optimizer_bytes, mem.activation_bytes, mem.total_bytes()}) {
    CHECK(std::isfinite(v));
    CHECK(v > 0);
  }
  // Activations scale with tokens: 1M-token micro-batches hold 256x those of 4K-token ones.
  const auto base = cost::training_memory(
      scenarios::load_scenario(kScenarios + "deepseek_v3_train.toml", {{"hardware.gpus", "16384"}}));
  CHECK_THAT(mem.activation_bytes, WithinRel(base.activation_bytes * 256, 1e-9));

  const auto step = cost::step_estimate(s);
  for (const double v : {step.step_seconds, step.tokens_per_step, step.tokens_per_second, step.busy_seconds}) {
    CHECK(std::isfinite(v));
    CHECK(v > 0);
  }
  // 1024 DP ranks x 120 micro-batches x 1 sequence x 2^20 tokens = 1.29e11 tokens per step.
  CHECK(step.tokens_per_step == 1024.0 * 120.0 * 1048576.0);
}
