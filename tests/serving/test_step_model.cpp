// cost::ServingStepModel: the time of one serving iteration for any batch shape. Monotone in
// each dimension, weight-streaming bound when small and compute bound when large, the answer
// serve_estimate (`step`) gives at one batch, and DeepEP's published latencies.
#include <catch2/catch.hpp>

#include <cmath>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/serving_step.h"
#include "mhcsim/error.h"
#include "scenarios.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

namespace {
BatchShape decode(double seqs, double context) { return decode_batch(seqs, context); }
BatchShape prefill(double seqs, double len) { return prompt_batch(seqs, len); }
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

TEST_CASE("serve_estimate is the table's answer at the scenario's batch") {
  const auto s = GENERATE(as<Scenario>{}, test::deepseek_serve(),
                          test::deepseek_serve({{"workload.phase", "\"prefill\""},
                                                {"workload.batch_seqs", "4"},
                                                {"parallel.ep", "32"},
                                                {"hardware.gpus", "32"}}),
                          test::llama_serve());
  const bool decoding = s.workload.phase == ServePhase::Decode;
  const double seqs = static_cast<double>(s.workload.batch_seqs);
  const double len = static_cast<double>(s.workload.context_len);
  const BatchShape b = decoding ? decode(seqs, len) : prefill(seqs, len);
  const auto e = serve_estimate(s);
  const auto once = ServingStepModel::time_once(s, b);
  CHECK(e.step_seconds == once.seconds);
  CHECK(e.micro_batches == once.micro_batches);
  // The simulator's table interpolates between sizes 9% apart: within 2% of the exact price.
  CHECK_THAT(ServingStepModel(s).seconds(b), WithinRel(e.step_seconds, 0.02));
}

TEST_CASE("prefill attention is the op list's FlashAttention core") {
  // DeepSeek-V3, EP32: 4 prompts of 4,989 tokens, as layer_ops prices a training forward.
  const auto s = test::deepseek_serve({{"workload.phase", "\"prefill\""},
                                       {"workload.batch_seqs", "4"},
                                       {"parallel.ep", "32"},
                                       {"hardware.gpus", "32"}});
  const auto t = ServingStepModel::time_once(s, prefill(4, 4989));
  const auto rates = op_rates(s);
  double core = 0;
  for (const bool moe : {true, false})
    for (const auto& o : layer_ops(s, moe))
      if (o.kind == OpKind::Attention)
        core += static_cast<double>(moe ? s.model.moe_layers() : s.model.dense_layers) * op_seconds(o, rates).forward;
  CHECK_THAT(t.attention_seconds, WithinRel(core, 0.01));
}

TEST_CASE("decode, one node, no overlap: GEMMs op by op at least the weight-streaming roofline") {
  const auto s = test::deepseek_serve({{"parallel.ep", "8"},
                                       {"hardware.gpus", "8"},
                                       {"parallel.redundant_experts", "0"},
                                       {"parallel.overlap", "0"},
                                       {"parallel.max_nodes_per_token", "0"}});
  const auto e = serve_estimate(s);
  const auto t = ServingStepModel(s).time(decode(128, 4989));
  CHECK(t.micro_batches == 1);
  // Op by op (waves, epilogues, launches, FP8 casts) is never faster than the larger of the
  // GEMM FLOPs at the peak rate and the weights over HBM, and within 2x of it.
  const double hbm = hbm_rate(s, "hbm_copy").bytes_per_second;
  const double gemm = gemm_flops_per_second(s, s.precision.gemm);
  const double roofline = std::max(e.linear_flops / gemm, e.weight_bytes / hbm);
  CHECK(t.linear_seconds >= roofline);
  CHECK(t.linear_seconds <= 2 * roofline);
  // FlashMLA's accounting: the latent cache read plus the q and output rows per layer
  // (kernel_bytes.h: b h_q (2 d_c + d_R)), one launch per layer.
  const double q_bytes = 61.0 * 128 * 128 * (2 * 512 + 64) * 2;
  const double mla_rate = hbm_rate(s, "mla_decode").bytes_per_second;
  CHECK_THAT(t.attention_seconds - 61 * kDefaultLaunchSeconds, WithinRel((e.kv_bytes + q_bytes) / mla_rate, 1e-6));
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
  // One token cannot be split; a few sequences run whole, since each half would stream the
  // weights again (the engine's choice: the faster of the two).
  CHECK(ServingStepModel(test::deepseek_serve()).time(decode(1, 100)).micro_batches == 1);
  const ServingStepModel overlapping(test::deepseek_serve({{"parallel.overlap", "1"}}));
  const ServingStepModel whole(test::deepseek_serve({{"parallel.overlap", "0"}}));
  const auto few = overlapping.time(decode(2, 4989));
  CHECK(few.micro_batches == 1);
  CHECK_FALSE(few.overlapped);
  CHECK(few.seconds == whole.time(decode(2, 4989)).seconds);
  CHECK(full.overlapped);
  CHECK(full.seconds < whole.time(decode(128, 4989)).seconds);
  // time_once prices the same choice.
  CHECK_THAT(ServingStepModel::time_once(test::deepseek_serve({{"parallel.overlap", "1"}}), decode(2, 4989)).seconds,
             WithinRel(few.seconds, 0.02));
  // A pipeline's micro-batches are on different stages: none hides another's all-to-all.
  const auto pipelined = ServingStepModel(test::deepseek_serve({{"parallel.overlap", "1"},
                                                                {"parallel.pp", "2"},
                                                                {"parallel.ep", "72"},
                                                                {"parallel.extra_stage_layers", "1"}}))
                             .time(decode(128, 4989));
  CHECK(pipelined.micro_batches == 2);
  CHECK(pipelined.exposed_a2a_seconds == pipelined.a2a_seconds);
  // The parts the simulator places: dispatch within the all-to-all, the attention sublayers
  // within the compute.
  CHECK(full.dispatch_seconds > 0);
  CHECK(full.dispatch_seconds < full.a2a_seconds);
  CHECK(full.attention_sublayer_seconds > 0);
  CHECK(full.attention_sublayer_seconds < full.linear_seconds + full.memory_bound_seconds + full.tp_comm_seconds);
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
