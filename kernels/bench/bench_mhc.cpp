// mHC kernels at the paper's shapes (n = 4; C = 2560 for the 27B model, 7168 for DeepSeek-V3).
#include <benchmark/benchmark.h>

#include "bench_util.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/kernel_bytes_extra.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels::bench {
namespace {

constexpr int kBf16Pattern = 0x3c;  // memset byte: bf16 0x3c3c = 0.0115, fp32 0x3c3c3c3c = 0.0115

struct MhcBuffers {
  int64_t n, channels, tokens;
  DeviceBuffer<bf16_bits> x, f, out, scratch_a, scratch_b, u;
  DeviceBuffer<float> phi, bias, h_pre, h_post, logits, h_res, grad;
  MhcBuffers(int64_t n_, int64_t c_, int64_t t_)
      : n(n_), channels(c_), tokens(t_), x(size_t(t_ * n_ * c_)), f(size_t(t_ * c_)), out(x.size()),
        scratch_a(x.size()), scratch_b(x.size()), u(f.size()), phi(size_t(n_ * c_ * (n_ * n_ + 2 * n_))),
        bias(size_t(n_ * n_ + 2 * n_)), h_pre(size_t(t_ * n_)), h_post(h_pre.size()), logits(size_t(t_ * n_ * n_)),
        h_res(logits.size()), grad(logits.size()) {
    for (auto* b : {&x, &f}) b->fill_bytes(kBf16Pattern);
    for (auto* b : {&phi, &bias, &h_pre, &h_post, &logits, &h_res, &grad}) b->fill_bytes(kBf16Pattern);
  }
  MhcPostResParams post_res() const {
    MhcPostResParams p;
    p.x = x.get();
    p.f = f.get();
    p.h_post = h_post.get();
    p.h_res = h_res.get();
    p.x_next = out.get();
    p.scratch_post = scratch_a.get();
    p.scratch_res = scratch_b.get();
    p.tokens = tokens;
    p.n = n;
    p.channels = channels;
    return p;
  }
  SinkhornParams sinkhorn() const {
    SinkhornParams p;
    p.logits = logits.get();
    p.h_res = h_res.get();
    p.grad_h_res = grad.get();
    p.grad_logits = h_res.get();  // backward benchmark only: overwriting h_res is harmless
    p.tokens = tokens;
    p.n = n;
    return p;
  }
  MhcCoeffParams coeff() const {
    MhcCoeffParams p;
    p.x = x.get();
    p.phi = phi.get();
    p.bias = bias.get();
    p.h_pre = h_pre.get();
    p.h_post = h_post.get();
    p.res_logits = logits.get();
    p.tokens = tokens;
    p.n = n;
    p.channels = channels;
    p.x_token_stride = n * channels;
    return p;
  }
};

struct Shape {
  int64_t n, channels, tokens;
};
Shape shape(const benchmark::State& s) { return {s.range(0), s.range(1), s.range(2)}; }

void BM_mhc_coeff(benchmark::State& state) {
  const Shape sh = shape(state);
  MhcBuffers b(sh.n, sh.channels, sh.tokens);
  const auto p = b.coeff();
  run_timed(state, [&] { mhc_coeff(p); }, cost::mhc_coeff_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total(),
            cost::mhc_coeff_flops(sh.n, sh.channels, sh.tokens));
}

// The Sinkhorn-including coefficient path: coefficients, then H_res = SK(exp(logits)).
void BM_mhc_coeff_sinkhorn(benchmark::State& state) {
  const Shape sh = shape(state);
  MhcBuffers b(sh.n, sh.channels, sh.tokens);
  const auto pc = b.coeff();
  const auto ps = b.sinkhorn();
  const double bytes = cost::mhc_coeff_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total() +
                       cost::mhc_sinkhorn_forward_bytes(sh.n, sh.tokens).total();
  run_timed(state, [&] { mhc_coeff(pc); sinkhorn_forward(ps); }, bytes,
            cost::mhc_coeff_flops(sh.n, sh.channels, sh.tokens));
}

void BM_mhc_sinkhorn_fwd(benchmark::State& state) {
  const int64_t n = state.range(0), tokens = state.range(1);
  MhcBuffers b(n, 8, tokens);
  const auto p = b.sinkhorn();
  run_timed(state, [&] { sinkhorn_forward(p); }, cost::mhc_sinkhorn_forward_bytes(n, tokens).total(), 0);
}

void BM_mhc_sinkhorn_bwd(benchmark::State& state) {
  const int64_t n = state.range(0), tokens = state.range(1);
  MhcBuffers b(n, 8, tokens);
  const auto p = b.sinkhorn();
  run_timed(state, [&] { sinkhorn_backward(p); }, cost::mhc_sinkhorn_backward_bytes(n, tokens).total(), 0);
}

void BM_mhc_pre(benchmark::State& state) {
  const Shape sh = shape(state);
  MhcBuffers b(sh.n, sh.channels, sh.tokens);
  MhcPreParams p;
  p.x = b.x.get();
  p.h_pre = b.h_pre.get();
  p.out = b.u.get();
  p.tokens = sh.tokens;
  p.n = sh.n;
  p.channels = sh.channels;
  p.x_token_stride = sh.n * sh.channels;
  p.out_token_stride = sh.channels;
  run_timed(state, [&] { mhc_apply_pre(p); }, cost::mhc_pre_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total(), 0);
}

void BM_mhc_post_res_fused(benchmark::State& state) {
  const Shape sh = shape(state);
  MhcBuffers b(sh.n, sh.channels, sh.tokens);
  const auto p = b.post_res();
  run_timed(state, [&] { mhc_post_res_fused(p); },
            cost::mhc_post_res_fused_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total(), 0);
}

void BM_mhc_post_res_unfused(benchmark::State& state) {
  const Shape sh = shape(state);
  MhcBuffers b(sh.n, sh.channels, sh.tokens);
  const auto p = b.post_res();
  run_timed(state, [&] { mhc_post_res_unfused(p); },
            cost::mhc_post_res_unfused_bytes(sh.n, sh.channels, sh.tokens, DType::BF16).total(), 0);
}

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
