// The GEMM shape model (gemm_model.h) against published kernel measurements, and its terms.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "mhcsim/cost/gemm_model.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/scenarios/load.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinRel;

namespace {
// H800 SXM: 1979 dense FP8 TFLOP/s, 132 SMs, 3.35 TB/s at the default 0.8 HBM efficiency.
GemmRates h800_fp8() { return {1979e12, kDefaultGemmEfficiencyFp8, 132, 3350e9 * kDefaultHbmEfficiency, 0}; }

struct Measured {
  int64_t groups, m, n, k;
  double tflops;
};
double predicted_tflops(const Measured& x) {
  const GemmShape g{x.m, x.n, x.k, x.groups, DType::FP8, DType::BF16};
  return g.flops() / gemm_time(g, h800_fp8()).seconds / 1e12;
}
}  // namespace

TEST_CASE("GEMM model vs DeepGEMM's H800 FP8 table: every shape within 30%, median within 12%") {
  // deepseek-ai/DeepGEMM README (2025-02), "Normal GEMMs for dense models" and "Grouped GEMMs
  // for MoE models (contiguous layout)", TFLOP/s. The plateau efficiency comes from the row
  // 4096 x 7168 x 16384 alone; the others test the shape terms.
  const std::vector<Measured> table{
      {1, 64, 2112, 7168, 206},     {1, 64, 24576, 1536, 289},   {1, 64, 32768, 512, 219},
      {1, 64, 7168, 16384, 336},    {1, 64, 4096, 7168, 287},    {1, 64, 7168, 2048, 295},
      {1, 128, 2112, 7168, 352},    {1, 128, 24576, 1536, 535},  {1, 128, 32768, 512, 358},
      {1, 128, 7168, 16384, 645},   {1, 128, 4096, 7168, 533},   {1, 128, 7168, 2048, 510},
      {1, 4096, 2112, 7168, 1058},  {1, 4096, 24576, 1536, 990}, {1, 4096, 32768, 512, 590},
      {1, 4096, 7168, 16384, 1358}, {1, 4096, 4096, 7168, 1304}, {1, 4096, 7168, 2048, 1025},
      {4, 8192, 4096, 7168, 1297},  {4, 8192, 7168, 2048, 1099}, {8, 4096, 4096, 7168, 1288},
      {8, 4096, 7168, 2048, 1093}};
  std::vector<double> errors;
  for (const auto& x : table) {
    const double err = std::abs(predicted_tflops(x) / x.tflops - 1);
    INFO(x.groups << " x " << x.m << " x " << x.n << " x " << x.k << ": predicted " << predicted_tflops(x) << " vs "
                  << x.tflops << " TFLOP/s");
    CHECK(err < 0.30);
    errors.push_back(err);
  }
  std::nth_element(errors.begin(), errors.begin() + static_cast<long>(errors.size() / 2), errors.end());
  CHECK(errors[errors.size() / 2] < 0.12);
  CHECK_THAT(predicted_tflops({1, 4096, 7168, 16384, 1358}), WithinRel(1358.0, 0.01));
}

TEST_CASE("wave quantization: one tile past a full wave costs a second wave") {
  GemmRates r = h800_fp8();
  r.hbm_bytes_per_second = 1e30;  // isolate the mainloop
  // 132 tiles of 128 x 128 fill the 132 SMs once. One more: 128 x 128 tiles need two waves
  // (133 of 264 slots), 64 x 128 ones three (266 of 396), the best the library can pick.
  const auto full = gemm_time({128 * 132, 128, 8192, 1, DType::FP8, DType::BF16}, r);
  CHECK_THAT(full.wave_efficiency, WithinRel(1.0, 1e-12));
  const auto spill = gemm_time({128 * 133, 128, 8192, 1, DType::FP8, DType::BF16}, r);
  CHECK_THAT(spill.wave_efficiency, WithinRel(266.0 / 396.0, 1e-12));
  CHECK(spill.tile_m == 64);
  CHECK(spill.mainloop_seconds > 1.4 * full.mainloop_seconds);
}

TEST_CASE("small M streams the weights; accumulating into C doubles the epilogue") {
  const auto rates = h800_fp8();
  const auto decode = gemm_time({8, 7168, 2048, 1, DType::FP8, DType::BF16}, rates);
  CHECK(decode.operand_seconds > decode.mainloop_seconds);
  const double weights = 7168.0 * 2048 * 1;  // fp8 bytes
  CHECK_THAT(decode.operand_seconds, WithinRel((weights + 8.0 * 2048) / rates.hbm_bytes_per_second, 1e-12));
  GemmShape w{7168, 4096, 8192, 4, DType::FP8, DType::FP32};
  const auto plain = gemm_time(w, rates);
  w.accumulate = true;
  const auto acc = gemm_time(w, rates);
  CHECK_THAT(acc.epilogue_seconds, WithinRel(2 * plain.epilogue_seconds, 1e-12));
  CHECK_THAT(plain.epilogue_seconds, WithinRel(4.0 * 7168 * 4096 * 4 / rates.hbm_bytes_per_second, 1e-12));
}

TEST_CASE("precision.fp8_gemm_kernels: DeepSeek's CUTLASS 3.6 kernels plateau 1.2x below DeepGEMM") {
  // DeepGEMM README (2025-02-25): 1358 TFLOP/s at 4096 x 7168 x 16384, 1.2x its CUTLASS 3.6 baseline.
  auto s = scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_train.toml", {});
  const auto deepgemm = gemm_rates(s, DType::FP8);
  s.precision.fp8_gemm_kernels = Fp8GemmKernels::Cutlass36;
  const auto cutlass = gemm_rates(s, DType::FP8);
  CHECK_THAT(deepgemm.plateau_efficiency / cutlass.plateau_efficiency, WithinRel(1.2, 1e-12));
  // BF16 GEMMs do not depend on it.
  CHECK(gemm_rates(s, DType::BF16).plateau_efficiency == kDefaultGemmEfficiencyBf16);
  const GemmShape row{4096, 7168, 16384, 1, DType::FP8, DType::BF16};
  const GemmRates h800{1979e12, cutlass.plateau_efficiency, 132, 3350e9 * kDefaultHbmEfficiency, 0};
  CHECK_THAT(row.flops() / gemm_time(row, h800).seconds / 1e12, WithinRel(1358.0 / 1.2, 0.01));
}
