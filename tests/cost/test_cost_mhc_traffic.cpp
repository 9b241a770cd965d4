// mHC paper (arXiv 2512.24880) Table 2 and Eq. 20, via DESIGN.md "mHC".
#include <catch2/catch.hpp>

#include <cmath>

#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/error.h"

using namespace mhcsim;
using namespace mhcsim::cost;

namespace {
void check_row(const TrafficRow& r, double rc, double rk, double wc, double wk) {
  INFO(r.operation);
  CHECK(r.read.per_channel == rc);
  CHECK(r.read.coefficients == rk);
  CHECK(r.write.per_channel == wc);
  CHECK(r.write.coefficients == wk);
}
}  // namespace

TEST_CASE("Table 2 at n = 4: every row and the 21C+24 / 13C+24 totals") {
  const auto rows = mhc_table2(4);
  REQUIRE(rows.size() == 6);
  check_row(rows[0], 4, 0, 0, 24);     // compute H_pre, H_post, H_res: nC | n^2+2n
  check_row(rows[1], 4, 4, 1, 0);      // apply H_pre: nC+n | C
  check_row(rows[2], 1, 4, 4, 0);      // apply H_post: C+n | nC
  check_row(rows[3], 4, 16, 4, 0);     // apply H_res: nC+n^2 | nC
  check_row(rows[4], 8, 0, 4, 0);      // residual merge: 2nC | nC
  check_row(rows[5], 21, 24, 13, 24);  // (5n+1)C+n^2+2n | (3n+1)C+n^2+2n
}

TEST_CASE("Table 2 totals follow (5n+1)C+n^2+2n and (3n+1)C+n^2+2n for every n") {
  const int64_t n = GENERATE(1, 2, 3, 4, 8);
  const auto total = mhc_table2(n).back();
  const double nn = static_cast<double>(n);
  check_row(total, 5 * nn + 1, nn * nn + 2 * nn, 3 * nn + 1, nn * nn + 2 * nn);
}

TEST_CASE("fused F_post,res reads (n+1)C instead of (3n+1)C, writes nC instead of 3nC") {
  const int64_t n = GENERATE(2, 4, 6);
  const double nn = static_cast<double>(n);
  check_row(mhc_post_res_unfused_row(n), 3 * nn + 1, nn + nn * nn, 3 * nn, 0);
  check_row(mhc_post_res_fused_row(n), nn + 1, nn + nn * nn, nn, 0);
}

TEST_CASE("n = 1 and the plain residual kind are the residual merge (2C read, C write)") {
  const auto merge = residual_merge_row();
  check_row(merge, 2, 0, 1, 0);
  for (bool fused : {false, true}) {
    check_row(residual_forward_row(ResidualKind::MHC, 1, fused), 2, 0, 1, 0);
    check_row(residual_forward_row(ResidualKind::HC, 1, fused), 2, 0, 1, 0);
    check_row(residual_forward_row(ResidualKind::Residual, 4, fused), 2, 0, 1, 0);
  }
}

TEST_CASE("kernel byte counts: bf16 streams, fp32 coefficients") {
  const int64_t n = 4, c = 2560, t = 1000;
  const auto fused = mhc_post_res_fused_bytes(n, c, t, DType::BF16);
  CHECK(fused.read_bytes == t * ((n + 1) * c * 2.0 + (n + n * n) * 4.0));
  CHECK(fused.write_bytes == t * n * c * 2.0);
  const auto unfused = mhc_post_res_unfused_bytes(n, c, t, DType::BF16);
  CHECK(unfused.write_bytes == 3 * fused.write_bytes);
  const auto pre = mhc_pre_bytes(n, c, t, DType::BF16);
  CHECK(pre.read_bytes == t * (n * c * 2.0 + n * 4.0));
  CHECK(pre.write_bytes == t * c * 2.0);
  const auto coeff = mhc_coeff_bytes(n, c, t, DType::BF16);
  CHECK(coeff.write_bytes == t * 24 * 4.0);
  CHECK(coeff.read_bytes == t * n * c * 2.0 + (n * c + 1.0) * 24 * 4.0);  // + phi and bias once
  CHECK(mhc_sinkhorn_forward_bytes(n, t).total() == 2.0 * t * 16 * 4);
  CHECK(mhc_sinkhorn_backward_bytes(n, t).total() == 3.0 * t * 16 * 4);
  CHECK(mhc_coeff_flops(n, c, t) == 2.0 * t * n * c * 24);
  // DeepSeek-V3 gate: 256 fp32 logits + bias in, top-8 int32 indices and fp32 weights out.
  const auto gate = moe_gate_bytes(t, 256, 8);
  CHECK(gate.read_bytes == 4.0 * (t * 256 + 256));
  CHECK(gate.write_bytes == 8.0 * t * 8);
  CHECK_THROWS_AS(moe_gate_bytes(t, 4, 8), SpecError);
  CHECK_THROWS_AS(mhc_post_res_fused_bytes(0, c, t, DType::BF16), SpecError);
  CHECK_THROWS_AS(mhc_pre_bytes(n, 0, t, DType::BF16), SpecError);
}

TEST_CASE("backward rule: reads inputs + output grads, writes input grads") {
  const auto b = backward_row(mhc_post_res_fused_row(4));
  check_row(b, 9, 20, 5, 20);
}

TEST_CASE("per-step traffic: 2 x layers mHC layers, recompute replays the forward") {
  ModelSpec m;
  m.layers = 30;
  m.hidden = 2560;
  m.residual = ResidualKind::MHC;
  m.mhc_n = 4;
  const PrecisionSpec p;
  const auto one = residual_traffic_per_token(m, p, true, false);
  const auto step = residual_traffic_per_step(m, p, true, false, 4096);
  CHECK_THAT(step.forward.total(), Catch::Matchers::WithinRel(one.forward.total() * 60 * 4096, 1e-12));
  CHECK(one.recompute.total() == 0);
  const auto rc = residual_traffic_per_token(m, p, true, true);
  CHECK(rc.recompute.total() == rc.forward.total());
  // fused forward: (n+1)C + nC + nC read... = coefficients + pre + fused post-res
  CHECK(one.forward.read_bytes == (4 + 4 + 5) * 2560 * 2.0 + (0 + 4 + 20) * 4.0);
}

TEST_CASE("Eq. 20: optimal L_r minimises nC ceil(L/L_r) + (n+2)C L_r near sqrt(nL/(n+2))") {
  const int64_t n = GENERATE(2, 4, 8);
  const int64_t layers = GENERATE(1, 4, 10, 30, 60, 122);
  const int64_t best = mhc_optimal_recompute_block(n, layers);
  const double at_best = mhc_stored_elems_recompute(n, 1, layers, best);
  for (int64_t b = 1; b <= layers; ++b) CHECK(at_best <= mhc_stored_elems_recompute(n, 1, layers, b));
  const double approx = std::sqrt(static_cast<double>(n * layers) / static_cast<double>(n + 2));
  CHECK(std::abs(static_cast<double>(best) - approx) <= 0.5 * approx + 1.0);
  // Recompute never stores more than keeping everything (L_r = L stores nC + (n+2)CL).
  CHECK(at_best <= mhc_stored_elems_no_recompute(n, 1, layers) + n);
  CHECK_THROWS_AS(mhc_stored_elems_recompute(n, 1, layers, layers + 1), SpecError);
}
