#include "mhcsim/cost/gemm_model.h"
#include "as_double.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace mhcsim::cost {

namespace {
int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Output tile shapes a Hopper/Ampere GEMM library chooses among: 128 x 256 and 128 x 128 for
// large GEMMs, 64-row tiles when M is small (DeepGEMM's BLOCK_M = 64 for M <= 64, cuBLAS's
// small-M kernels).
constexpr std::array<std::array<int64_t, 2>, 3> kTiles{{{128, 256}, {128, 128}, {64, 128}}};
}  // namespace

GemmTime gemm_time(const GemmShape& g, const GemmRates& r) {
  GemmTime t;
  if (g.m <= 0 || g.n <= 0 || g.k <= 0 || g.groups <= 0) return t;
  const double sms = d(std::max(1, r.sms));
  const double useful = d(g.groups) * d(g.m) * d(g.n);
  for (const auto& [bm, bn] : kTiles) {
    const int64_t tiles = g.groups * ceil_div(g.m, bm) * ceil_div(g.n, bn);
    const double waves = std::ceil(d(tiles) / sms);
    const double eff = useful / (waves * sms * d(bm * bn));
    if (eff > t.wave_efficiency) t.wave_efficiency = eff, t.tile_m = bm, t.tile_n = bn;
  }
  t.mainloop_seconds = g.flops() / (r.peak_flops_per_second * r.plateau_efficiency * t.wave_efficiency);
  const double operands = d(g.groups) * (d(g.m) + d(g.n)) * d(g.k) * bytes_per_element(g.input);
  t.operand_seconds = operands / r.hbm_bytes_per_second;
  t.epilogue_seconds = (g.accumulate ? 2.0 : 1.0) * useful * bytes_per_element(g.output) / r.hbm_bytes_per_second;
  t.seconds = std::max(t.mainloop_seconds, t.operand_seconds) + t.epilogue_seconds + r.launch_seconds;
  return t;
}

}  // namespace mhcsim::cost
