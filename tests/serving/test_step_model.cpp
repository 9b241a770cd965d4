// cost::ServingStepModel: the time of one serving iteration for any batch shape. Monotone in
// each dimension, weight-streaming bound when small and compute bound when large, the same
// numbers as serve_estimate where both model the same thing, and DeepEP's published latencies.
#include <catch2/catch.hpp>

#include <cmath>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/serving_step.h"
#include "mhcsim/error.h"
#include "scenarios.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

namespace {
BatchShape decode(double seqs, double context) {
  BatchShape b;
  b.decode_seqs = b.sampled_seqs = seqs;
  b.decode_context_tokens = seqs * context;
  return b;
}
// `seqs` whole prompts of `len` tokens in one iteration.
BatchShape prefill(double seqs, double len) {
  BatchShape b;
  b.prefill_tokens = seqs * len;
  b.prefill_attended_tokens = seqs * len * (len + 1) / 2;
  b.sampled_seqs = seqs;
  return b;
}
}  // namespace

TEST_CASE("iteration time grows with every dimension of the batch") {
  const auto model = GENERATE(as<int>{}, 0, 1);  // MoE with EP, dense with TP
  const Scenario s = model == 0 ? test::deepseek_serve() : test::llama_serve();
  const ServingStepModel m(s);
  double previous = 0;
  for (double d = 1; d <= 1024; d *= 2) {  // decode sequences at a fixed context
    const double t = m.seconds(decode(d, 2000));
    CHECK(t >= previous);
    previous = t;
  }
  previous = 0;
  for (double k = 128; k <= 1e6; k *= 4) {  // cached tokens read by 64 sequences
    BatchShape b = decode(64, 0);
    b.decode_context_tokens = k;
    const double t = m.seconds(b);
    CHECK(t >= previous);
    previous = t;
  }
  previous = 0;
  for (double p = 16; p <= 65536; p *= 2) {  // prefill tokens (one prompt of p tokens)
    const double t = m.seconds(prefill(1, p));
    CHECK(t >= previous);
    previous = t;
  }
  CHECK(m.seconds(BatchShape{}) == 0);
}

TEST_CASE("small batches stream the weights, large ones are compute bound") {
  const ServingStepModel m(test::llama_serve());
  // Decode at 1..16 sequences: the same weights are read, so the linear time hardly moves.
  const auto t1 = m.time(decode(1, 128));
  const auto t16 = m.time(decode(16, 128));
  CHECK(t16.linear_seconds < 1.1 * t1.linear_seconds);
  // Prefill of 32k vs 64k tokens: twice the FLOPs, twice the GEMM time (within the wave/tile
  // steps of the grid).
  const auto p32 = m.time(prefill(1, 32768));
  const auto p64 = m.time(prefill(2, 32768));
  CHECK_THAT(p64.linear_seconds / p32.linear_seconds, WithinRel(2.0, 0.03));
  // Past the tabulated range the last slope extrapolates, still linear.
  const auto far = m.time(prefill(16, 32768));
  CHECK_THAT(far.linear_seconds / p32.linear_seconds, WithinRel(16.0, 0.05));
}

TEST_CASE("routed experts: a small batch on one GPU streams only the experts it hits") {
  // EP 1: one GPU hosts all 256 experts; one token picks 8 of them.
  const ServingStepModel one_gpu(test::deepseek_serve({{"parallel.ep", "1"},
                                                       {"hardware.gpus", "1"},
                                                       {"parallel.redundant_experts", "0"},
                                                       {"parallel.max_nodes_per_token", "0"}}));
  const double t1 = one_gpu.time(decode(1, 128)).linear_seconds;
  const double t256 = one_gpu.time(decode(256, 128)).linear_seconds;
  CHECK(t256 > 3 * t1);
  // EP 144: 144 GPUs' tokens hit every expert even at one sequence each.
  const ServingStepModel ep(test::deepseek_serve());
  CHECK(ep.time(decode(8, 128)).linear_seconds < 1.2 * ep.time(decode(2, 128)).linear_seconds);
}

TEST_CASE("consistent with serve_estimate where both price the same work") {
  SECTION("prefill: the same op list, all-to-all and overlap, plus the LM head") {
    const auto s = test::deepseek_serve({{"workload.phase", "\"prefill\""},
                                         {"workload.batch_seqs", "4"},
                                         {"parallel.ep", "32"},
                                         {"hardware.gpus", "32"}});
    const auto e = serve_estimate(s);
    const auto t = ServingStepModel(s).time(prefill(4, 4989));
    CHECK_THAT(t.linear_seconds + t.memory_bound_seconds, WithinRel(e.linear_seconds + e.elementwise_seconds, 0.01));
    CHECK_THAT(t.attention_seconds, WithinRel(e.attention_seconds, 0.01));
    CHECK_THAT(t.a2a_seconds, WithinRel(e.a2a_seconds, 0.01));
    CHECK_THAT(t.seconds, WithinRel(e.step_seconds, 0.02));
  }
  SECTION("decode, one node, no overlap: the same attention; GEMMs at least the roofline") {
    const auto s = test::deepseek_serve({{"parallel.ep", "8"},
                                         {"hardware.gpus", "8"},
                                         {"parallel.redundant_experts", "0"},
                                         {"parallel.overlap", "0"},
                                         {"parallel.max_nodes_per_token", "0"}});
    const auto e = serve_estimate(s);
    const auto t = ServingStepModel(s).time(decode(128, 4989));
    CHECK(t.micro_batches == 1);
    // FlashMLA's accounting in both, memory bound here; the step model adds the q and output
    // rows (kernel_bytes.h: b h_q (2 d_c + d_R) per layer) and a launch per layer.
    const double q_bytes = 61.0 * 128 * 128 * (2 * 512 + 64) * 2;
    CHECK_THAT(t.attention_seconds - 61 * kDefaultLaunchSeconds,
               WithinRel(e.attention_seconds * (e.kv_bytes + q_bytes) / e.kv_bytes, 1e-6));
    // Op by op (waves, epilogues, launches, FP8 casts) is never faster than serve_estimate's
    // max(FLOPs, weights) roofline, and within 2x of it.
    const double op_level = t.linear_seconds + t.memory_bound_seconds;
    const double roofline = e.linear_seconds + e.elementwise_seconds;
    CHECK(op_level >= roofline);
    CHECK(op_level <= 2 * roofline);
  }
}

TEST_CASE("DeepEP low-latency kernels: the published latencies at 128 tokens") {
  const auto s = test::deepseek_serve();  // DeepSeek-V3's payload: FP8 dispatch, BF16 combine
  for (const auto& p : deepep_low_latency_table()) {
    Scenario at = s;
    at.parallel.ep = p.ep;
    const auto t = low_latency_a2a_seconds(at, kLowLatencyReferenceTokens);
    CHECK_THAT(t.dispatch, WithinRel(p.dispatch_us * 1e-6, 1e-9));
    CHECK_THAT(t.combine, WithinRel(p.combine_us * 1e-6, 1e-9));
  }
  // EP144 lies between EP128 and EP256 (log-interpolated); half the tokens, about half the time.
  const auto t144 = low_latency_a2a_seconds(s, 128);
  CHECK(t144.dispatch > 192e-6);
  CHECK(t144.dispatch < 194e-6);
  const auto half = low_latency_a2a_seconds(s, 64);
  const double alpha = s.hardware.nic_latency_us * 1e-6;
  CHECK_THAT(half.combine - alpha, WithinRel(0.5 * (t144.combine - alpha), 1e-9));
  // A decode-only batch uses them; a prefill token in the batch switches to the normal kernels.
  const ServingStepModel m(s);
  CHECK(m.time(decode(64, 1000)).low_latency_a2a);
  BatchShape mixed = decode(64, 1000);
  mixed.prefill_tokens = mixed.prefill_attended_tokens = 1;
  CHECK_FALSE(m.time(mixed).low_latency_a2a);
}

TEST_CASE("two-micro-batch overlap: parallel.overlap hides the all-to-all behind the other half") {
  const auto none = ServingStepModel(test::deepseek_serve({{"parallel.overlap", "0"}})).time(decode(128, 4989));
  const auto full = ServingStepModel(test::deepseek_serve({{"parallel.overlap", "1"}})).time(decode(128, 4989));
  CHECK(none.micro_batches == 1);
  CHECK(none.exposed_a2a_seconds == none.a2a_seconds);
  CHECK(full.micro_batches == 2);
  CHECK(full.exposed_a2a_seconds == std::max(0.0, full.a2a_seconds - full.compute_seconds()));
  // Splitting reads the weights twice: the linear time of the halves exceeds the whole's.
  CHECK(full.linear_seconds > none.linear_seconds);
  // One token cannot be split.
  CHECK(ServingStepModel(test::deepseek_serve()).time(decode(1, 100)).micro_batches == 1);
}

TEST_CASE("paged KV cache of a replica: the memory model's budget in blocks") {
  const auto s = test::deepseek_serve();
  const ServingStepModel m(s);
  const auto fit = kv_fit(s, 1);
  const double block = 64.0 * kv_bytes_per_token_per_gpu(s);
  CHECK(m.kv_block_tokens() == 64);
  CHECK(m.kv_blocks() == static_cast<int64_t>(std::floor(fit.kv_budget_bytes / block)));
  CHECK(m.kv_blocks() > 0);
  CHECK(m.gpus_per_replica() == 1);
  CHECK(ServingStepModel(test::llama_serve()).gpus_per_replica() == 8);
}

TEST_CASE("the step model rejects training scenarios and impossible specs") {
  auto s = test::deepseek_serve();
  s.workload.mode = WorkloadMode::Train;
  CHECK_THROWS_WITH(ServingStepModel(s), Catch::Contains("workload.mode"));
  s = test::deepseek_serve();
  s.parallel.overlap = 2;
  CHECK_THROWS_WITH(ServingStepModel(s), Catch::Contains("parallel.overlap"));
}
