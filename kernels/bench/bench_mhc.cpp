// mHC kernels at the paper's shapes (n = 4; C = 2560 for the 27B model, 7168 for DeepSeek-V3).
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels::bench {
namespace {

constexpr int kBf16Pattern = 0x3c;  // memset byte: bf16 0x3c3c = 0.0115, fp32 0x3c3c3c3c = 0.0115

struct Shape {
  int64_t n, channels, tokens;
};
Shape shape(const benchmark::State& s) { return {s.range(0), s.range(1), s.range(2)}; }

// A layer's device arrays, inputs filled with the byte pattern (values do not change the time).
struct Layer : MhcLayer<DeviceBuffer> {
  explicit Layer(const Shape& s) : MhcLayer(s.tokens, s.n, s.channels) {
    for (auto* b : {&x, &f}) b->fill_bytes(kBf16Pattern);
    for (auto* b : {&phi, &bias, &h_pre, &h_post, &res_logits, &h_res, &grad_h_res}) b->fill_bytes(kBf16Pattern);
  }
};

void BM_mhc_coeff(benchmark::State& state) {
  const Shape sh = shape(state);
  Layer b(sh);
  const auto p = b.coeff();
  run_timed(
      state, [&] { mhc_coeff(p); }, cost::mhc_coeff_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total(),
      cost::mhc_coeff_flops(sh.n, sh.channels, sh.tokens));
}

// The Sinkhorn-including coefficient path: coefficients, then H_res = SK(exp(logits)).
void BM_mhc_coeff_sinkhorn(benchmark::State& state) {
  const Shape sh = shape(state);
  Layer b(sh);
  const auto pc = b.coeff();
  const auto ps = b.sinkhorn();
  const double bytes = cost::mhc_coeff_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total() +
                       cost::mhc_sinkhorn_forward_bytes(sh.n, sh.tokens).total();
  run_timed(
      state,
      [&] {
        mhc_coeff(pc);
        sinkhorn_forward(ps);
      },
      bytes, cost::mhc_coeff_flops(sh.n, sh.channels, sh.tokens));
}

void BM_mhc_sinkhorn_fwd(benchmark::State& state) {
  const int64_t n = state.range(0), tokens = state.range(1);
  Layer b({n, 8, tokens});
  const auto p = b.sinkhorn();
  run_timed(
      state, [&] { sinkhorn_forward(p); }, cost::mhc_sinkhorn_forward_bytes(n, tokens).total(), 0);
}

void BM_mhc_sinkhorn_bwd(benchmark::State& state) {
  const int64_t n = state.range(0), tokens = state.range(1);
  Layer b({n, 8, tokens});
  const auto p = b.sinkhorn();
  run_timed(
      state, [&] { sinkhorn_backward(p); }, cost::mhc_sinkhorn_backward_bytes(n, tokens).total(), 0);
}

void BM_mhc_pre(benchmark::State& state) {
  const Shape sh = shape(state);
  Layer b(sh);
  const auto p = b.pre();
  run_timed(
      state, [&] { mhc_apply_pre(p); }, cost::mhc_pre_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total(), 0);
}

// Fused and unfused F_post,res over the same layer, each priced with its own bytes (Table 2).
void time_post_res(benchmark::State& state, bool unfused) {
  const Shape sh = shape(state);
  Layer b(sh);
  const auto p = b.post_res();
  const auto bytes = unfused ? cost::mhc_post_res_unfused_bytes(sh.n, sh.channels, sh.tokens, DType::BF16)
                             : cost::mhc_post_res_fused_bytes(sh.n, sh.channels, sh.tokens, DType::BF16);
  run_timed(
      state, [&] { unfused ? mhc_post_res_unfused(p) : mhc_post_res_fused(p); }, bytes.total(), 0);
}
void BM_mhc_post_res_fused(benchmark::State& state) { time_post_res(state, false); }
void BM_mhc_post_res_unfused(benchmark::State& state) { time_post_res(state, true); }

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "C", "tokens"})->UseManualTime()->Unit(benchmark::kMicrosecond);
  for (int64_t c : {2560, 7168}) {
    for (int64_t t : {4096, 16384}) b->Args({4, c, t});
  }
}

BENCHMARK(BM_mhc_coeff)->Apply(shapes);
BENCHMARK(BM_mhc_coeff_sinkhorn)->Apply(shapes);
BENCHMARK(BM_mhc_pre)->Apply(shapes);
BENCHMARK(BM_mhc_post_res_fused)->Apply(shapes);
BENCHMARK(BM_mhc_post_res_unfused)->Apply(shapes);
void token_counts(benchmark::internal::Benchmark* b) {
  b->ArgNames({"n", "tokens"})->Args({4, 16384})->Args({4, 262144})->UseManualTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_mhc_sinkhorn_fwd)->Apply(token_counts);
BENCHMARK(BM_mhc_sinkhorn_bwd)->Apply(token_counts);

}  // namespace
}  // namespace mhcsim::kernels::bench
