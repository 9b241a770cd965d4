// The serving step at the scenario's batch (cost::serve_estimate: the iteration model of
// serving_step.h) against DeepSeek's published serving figures (open-infra week day 6,
// "DeepSeek-V3/R1 inference system overview") and its own arithmetic.
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
  // Published: ~14.8k output tokens/s per node at an average KV length of 4,989 and 20-22
  // tokens/s per user, as a day's averages; together they say 14,800 / 8 / 21 = 88 sequences
  // per GPU. The scenario runs 128, more than that: its capacity must cover the published
  // rate and not exceed it by more than 2x.
  const auto e = serve_estimate(serve());
  CHECK(e.tokens_per_second_per_node >= 14.8e3);
  CHECK(e.tokens_per_second_per_node <= 2 * 14.8e3);
  // At the published batch the time per output token must allow the published 20 tokens/s.
  const auto at88 = serve_estimate(serve({{"workload.batch_seqs", "88"}}));
  CHECK(at88.latency_seconds() <= 1.0 / 20.0);
  CHECK(at88.latency_seconds() < e.latency_seconds());
  // Decode-only batches take DeepEP's low-latency kernels, two overlapped micro-batches.
  CHECK(e.low_latency_a2a);
  CHECK(e.micro_batches == 2);
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
  // Op by op at one token: the weights streamed, plus launches and the BF16 LM head; no
  // faster than streaming them, and well within 2x of it.
  CHECK(one.linear_seconds >= one.weight_bytes / hbm);
  CHECK(one.linear_seconds <= 2 * one.weight_bytes / hbm);
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
  // In whole EP144 groups (18 nodes): a part of a group cannot be deployed.
  CHECK(e.gpus_for_target == 144 * static_cast<int64_t>(std::ceil(1.944e6 / e.tokens_per_second_per_gpu / 144)));
  CHECK(e.gpus_for_target >= 1.944e6 / e.tokens_per_second_per_gpu);
  CHECK(e.nodes_for_target == e.gpus_for_target / 8);
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
