// Serving step roofline (cost::serve_estimate) against DeepSeek's published serving figures
// (open-infra week day 6, "DeepSeek-V3/R1 inference system overview") and its own arithmetic.
#include <catch2/catch.hpp>

#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

namespace {
Scenario serve(const std::vector<scenarios::Override>& o = {}) {
  return scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_serve.toml", o);
}
}  // namespace

TEST_CASE("DeepSeek-V3 decode on EP144 H800: the published 14.8k tokens/s per node is reachable") {
  // Published: ~14.8k output tokens/s per node at an average KV length of 4,989, as a day's
  // average over a varying load. The scenario's 128 sequences per GPU is our assumption, so the
  // check is a band: the model's capacity at that batch must cover the published average (a
  // model below a measured figure is wrong) and not exceed it by more than 2x.
  const auto e = serve_estimate(serve());
  CHECK(e.tokens_per_second_per_node >= 14.8e3);
  CHECK(e.tokens_per_second_per_node <= 2 * 14.8e3);
  // Published per-user speed 20-22 tokens/s: the modelled time per output token must allow it.
  CHECK(e.latency_seconds() <= 1.0 / 20.0);
}

TEST_CASE("DeepSeek-V3 prefill on EP32: op-level forward, at least the published computed rate") {
  // Published: ~73.7k input tokens/s per node in prefill, counting the 56.3% of input tokens
  // served from the on-disk KV cache, so ~32.2k tokens/s per node are computed. Batch of 4
  // prompts of the 4,989-token average length per GPU is our assumption. The op-level model
  // prices kernels at what they reach alone, so a deployment cannot beat it: the estimate must
  // not fall below the measured rate. It is 1.9x above it today (DeepSeek's MoE runs are the
  // cases the model is most optimistic about; see `mhcsim validate`): bounded at 2.5x.
  const auto e = serve_estimate(serve({{"workload.phase", "\"prefill\""},
                                       {"workload.batch_seqs", "4"},
                                       {"parallel.ep", "32"},
                                       {"hardware.gpus", "32"}}));
  CHECK(e.tokens_per_second_per_node >= 73.7e3 * (1 - 0.563));
  CHECK(e.tokens_per_second_per_node <= 2.5 * 73.7e3 * (1 - 0.563));
  CHECK(e.tokens_per_step == 4.0 * 4989);
  CHECK(e.linear_seconds > e.attention_seconds);  // GEMMs dominate a 5k-token prefill
}

TEST_CASE("decode at batch 1 streams the weights: HBM-bound, and batching amortises them") {
  const auto one = serve_estimate(serve({{"workload.batch_seqs", "1"}}));
  const auto big = serve_estimate(serve({{"workload.batch_seqs", "256"}}));
  const auto s = serve();
  const double hbm = hbm_rate(s, "hbm_copy").bytes_per_second;
  CHECK_THAT(one.linear_seconds, WithinRel(one.weight_bytes / hbm, 1e-12));
  CHECK(big.tokens_per_second_per_gpu > 20 * one.tokens_per_second_per_gpu);
  CHECK(big.latency_seconds() > one.latency_seconds());
  // One sequence in EP144 hits 8 of 256 experts per layer; 256 x 144 tokens hit them all.
  CHECK(one.weight_bytes < big.weight_bytes);
}

TEST_CASE("KV read grows with context, and the sizing follows the per-GPU rate") {
  const auto short_ctx = serve_estimate(serve({{"workload.context_len", "1024"}}));
  const auto long_ctx = serve_estimate(serve({{"workload.context_len", "32768"}}));
  CHECK_THAT(long_ctx.kv_bytes / short_ctx.kv_bytes, WithinRel(32.0, 1e-12));
  CHECK(long_ctx.tokens_per_second_per_gpu < short_ctx.tokens_per_second_per_gpu);
  const auto e = serve_estimate(serve());
  CHECK(e.gpus_for_target == static_cast<int64_t>(std::ceil(1.944e6 / e.tokens_per_second_per_gpu)));
  CHECK(e.nodes_for_target == (e.gpus_for_target + 7) / 8);
}

TEST_CASE("overlap: none adds the all-to-all, full hides it behind the other micro-batch") {
  const auto none = serve_estimate(serve({{"parallel.overlap", "0"}}));
  const auto full = serve_estimate(serve({{"parallel.overlap", "1"}}));
  CHECK_THAT(none.exposed_a2a_seconds, WithinRel(none.a2a_seconds, 1e-12));
  CHECK(full.exposed_a2a_seconds == std::max(0.0, full.a2a_seconds - full.compute_seconds()));
}

TEST_CASE("pipeline stages: the batch runs as pp micro-batches, each stage a pp-th of the layers") {
  const auto s = serve({{"parallel.ep", "8"},
                        {"hardware.gpus", "16"},
                        {"parallel.pp", "2"},
                        {"parallel.redundant_experts", "0"},
                        {"parallel.extra_stage_layers", "1"}});
  const auto e = serve_estimate(s);
  CHECK(e.micro_batches == 2);
  CHECK(e.micro_batch_seqs == 64);
  CHECK_THAT(e.step_seconds, WithinRel(2 * e.stage_seconds, 1e-12));
  CHECK(e.pp_send_seconds > 0);
}

TEST_CASE("serving estimate rejects training scenarios and impossible shapes") {
  auto s = serve();
  s.workload.mode = WorkloadMode::Train;
  CHECK_THROWS_WITH(serve_estimate(s), Catch::Contains("workload.mode"));
  s = serve();
  s.parallel.pp = 62;
  CHECK_THROWS_WITH(serve_estimate(s), Catch::Contains("parallel.pp"));
  s = serve();
  s.parallel.ep = 0;  // each range error names its own key
  CHECK_THROWS_WITH(serve_estimate(s), Catch::Contains("parallel.ep"));
  s = serve();
  s.parallel.pp = 0;
  CHECK_THROWS_WITH(serve_estimate(s), Catch::Contains("parallel.pp"));
}
