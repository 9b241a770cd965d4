// Fits on SYNTHETIC measurements generated from known parameters plus seeded noise recover
// those parameters; injected outliers are the points rejected.
#include <catch2/catch.hpp>

#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calib/report.h"
#include "mhcsim/calib/robust_fit.h"
#include "mhcsim/cost/gemm_model.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/error.h"
#include "mhcsim/units.h"
#include "synthetic.h"

namespace mhcsim::calib {
namespace {

using Catch::Matchers::WithinRel;
using test::SyntheticRow;

constexpr double kT0 = 5e-6;      // s
constexpr double kBwGbps = 4000;  // GB/s
constexpr int kReps = 3;

std::vector<SyntheticRow> hbm_rows(test::Noise& noise) {
  std::vector<SyntheticRow> rows;
  for (double bytes : test::geometric_sizes(kMiB, kGiB, 16))
    for (int r = 0; r < kReps; ++r)
      rows.push_back({"BM_hbm_copy/bytes:" + std::to_string(int64_t(bytes)) + "/manual_time",
                      noise(kT0 + bytes / (kBwGbps * kGB)), bytes});
  return rows;
}

Calibration fit_rows(const std::vector<SyntheticRow>& rows) {
  return calibrate({parse_benchmark_json(test::synthetic_doc(rows).dump(), "synthetic.json")});
}

TEST_CASE("bandwidth fit recovers t0 and bw from 1% noise", "[calib]") {
  test::Noise noise(0.01, 42);
  const Calibration c = fit_rows(hbm_rows(noise));
  const BandwidthFit& f = c.profile.kernels.at("hbm_copy");
  // 48 points with 1% noise: bw is set by the large sizes (~1% each, averaged) -> 1%; t0 only by
  // the small sizes where it is ~95% of the time -> 5%.
  CHECK_THAT(f.bandwidth_gbps, WithinRel(kBwGbps, 0.01));
  CHECK_THAT(f.overhead_seconds, WithinRel(kT0, 0.05));
  CHECK(f.points == 48);
  CHECK(f.median_error_pct < 1.5);
  CHECK(f.max_error_pct < 5);
  CHECK(error_stats(c.points).meets_target());
}

TEST_CASE("outliers are rejected and do not move the fit", "[calib]") {
  test::Noise noise(0.01, 7);
  auto rows = hbm_rows(noise);
  const std::vector<size_t> bad = {4, 20, 40};  // e.g. a throttled clock: 60% slower
  for (size_t i : bad) rows[i].seconds *= 1.6;
  const Calibration c = fit_rows(rows);
  for (size_t i = 0; i < rows.size(); ++i) {
    INFO("point " << i);
    CHECK(c.points[i].outlier == (std::find(bad.begin(), bad.end(), i) != bad.end()));
  }
  const BandwidthFit& f = c.profile.kernels.at("hbm_copy");
  CHECK(f.points == int(rows.size() - bad.size()));
  CHECK_THAT(f.bandwidth_gbps, WithinRel(kBwGbps, 0.01));
  CHECK_THAT(f.overhead_seconds, WithinRel(kT0, 0.05));
}

TEST_CASE("robust fit finds exact parameters and rejects a single bad point", "[calib]") {
  std::vector<std::vector<double>> rows;
  std::vector<double> y;
  for (int i = 1; i <= 10; ++i) {
    rows.push_back({1.0, double(i)});
    y.push_back(2.0 + 3.0 * i);
  }
  y[6] *= 3;
  const LinearFit fit = robust_linear_fit(rows, y);
  CHECK_THAT(fit.coef[0], WithinRel(2.0, 1e-9));
  CHECK_THAT(fit.coef[1], WithinRel(3.0, 1e-9));
  CHECK(fit.inliers() == 9);
  CHECK_FALSE(fit.inlier[6]);
}

// Alpha-beta all-to-all over 8 ranks (7 steps, bus bytes = 7/8 of the message), with a
// protocol switch at 1 MiB: two ranges, each recovered.
struct Regime {
  double alpha_s, bus_gbps, lo_bytes, hi_bytes;
  int sizes;
};

void add_alltoall(std::vector<SyntheticRow>& rows, const Regime& r, int ranks, int nodes, test::Noise& noise) {
  for (double bytes : test::geometric_sizes(r.lo_bytes, r.hi_bytes, r.sizes)) {
    const double t = r.alpha_s * (ranks - 1) + bytes * (ranks - 1) / ranks / (r.bus_gbps * kGB);
    rows.push_back({"BM_nccl_alltoall/bytes:" + std::to_string(int64_t(bytes)) + "/ranks:" + std::to_string(ranks) +
                        "/nodes:" + std::to_string(nodes) + "/manual_time",
                    noise(t), bytes});
  }
}

TEST_CASE("collective fit: alpha-beta per size range, intra and inter node", "[calib]") {
  test::Noise noise(0.01, 3);
  const Regime small{2e-6, 40, 4 * kKiB, 512 * kKiB, 8};
  const Regime large{10e-6, 150, kMiB, kGiB, 11};
  const Regime inter{5e-6, 45, 64 * kKiB, kGiB, 12};
  std::vector<SyntheticRow> rows;
  add_alltoall(rows, small, 8, 1, noise);
  add_alltoall(rows, large, 8, 1, noise);
  add_alltoall(rows, inter, 16, 2, noise);
  const Calibration c = fit_rows(rows);
  const auto& fits = c.profile.collectives;
  REQUIRE(fits.size() == 3);
  const auto check = [](const CollectiveFit& f, const Regime& r) {
    // 1% noise over 8-12 sizes: beta from the large sizes, alpha from the small -> 3% / 5%.
    CHECK_THAT(f.bus_gbps, WithinRel(r.bus_gbps, 0.03));
    CHECK_THAT(f.alpha_seconds, WithinRel(r.alpha_s, 0.05));
  };
  check(fits.at("alltoall_intra"), large);
  check(fits.at("alltoall_intra@lt1048576"), small);
  check(fits.at("alltoall_inter"), inter);
  CHECK(find_collective_fit(c.profile, "alltoall_intra", 64 * kKiB) == &fits.at("alltoall_intra@lt1048576"));
  CHECK(find_collective_fit(c.profile, "alltoall_intra", 4 * kMiB) == &fits.at("alltoall_intra"));
  CHECK(find_collective_fit(c.profile, "allreduce_intra", kMiB) == nullptr);
  CHECK(error_stats(c.points).meets_target());
}

// GEMM rows generated by the cost model's shape model (cost/gemm_model.h) on H200 (catalog:
// 989 / 1979 TFLOP/s dense BF16 / FP8, 132 SMs, 4800 GB/s HBM) at a known plateau efficiency,
// with the rates calibrate prices them with: HBM and launch from the hbm_copy fit when the
// data has one, else the catalog HBM x kDefaultHbmEfficiency and kDefaultLaunchSeconds.
struct GemmCase {
  int64_t m, n, k;
};
// Large DeepSeek-V3 shapes (compute-bound) and small-M ones: M = 16 / 64 stream their weights
// (memory-bound at e = 0.7), M = 32 x K = 7168 is compute-bound on one partly filled wave.
const std::vector<GemmCase> kGemmShapes = {{4096, 7168, 2048},  {8192, 7168, 7168},  {2048, 2048, 2048},
                                           {4096, 24576, 1536}, {16384, 1536, 7168}, {32, 4096, 7168},
                                           {16, 7168, 7168},    {64, 7168, 2048}};

struct GemmTruth {
  double hbm_gb_per_s = 4800 * cost::kDefaultHbmEfficiency;
  double launch_s = cost::kDefaultLaunchSeconds;
};

double model_gemm_seconds(const GemmCase& g, bool fp8, double efficiency, const GemmTruth& truth) {
  cost::GemmShape shape{g.m, g.n, g.k, 1, fp8 ? DType::FP8 : DType::BF16, DType::BF16};
  cost::GemmRates rates{(fp8 ? 1979 : 989) * kTFLOP, efficiency, 132, truth.hbm_gb_per_s * kGB, truth.launch_s};
  return cost::gemm_time(shape, rates).seconds;
}

void add_gemms(std::vector<SyntheticRow>& rows, const std::vector<GemmCase>& shapes, bool fp8, double efficiency,
               const GemmTruth& truth = {}, test::Noise* noise = nullptr, int reps = 1) {
  for (const auto& g : shapes)
    for (int r = 0; r < reps; ++r) {
      const double t = model_gemm_seconds(g, fp8, efficiency, truth);
      rows.push_back({std::string(fp8 ? "BM_gemm_fp8" : "BM_gemm_bf16") + "/M:" + std::to_string(g.m) +
                          "/N:" + std::to_string(g.n) + "/K:" + std::to_string(g.k) + "/manual_time",
                      noise ? (*noise)(t) : t, 0});
    }
}

TEST_CASE("GEMM plateau efficiency recovered exactly from the shape model's own times", "[calib]") {
  constexpr double kEff = 0.70;
  std::vector<SyntheticRow> rows;
  GemmTruth truth;
  SECTION("catalog HBM, default launch") {}
  SECTION("HBM and launch from the hbm_copy fit") {
    truth = {4300, 4e-6};
    for (double bytes : test::geometric_sizes(kMiB, kGiB, 8))
      rows.push_back({"BM_hbm_copy/bytes:" + std::to_string(int64_t(bytes)) + "/manual_time",
                      truth.launch_s + bytes / (truth.hbm_gb_per_s * kGB), bytes});
  }
  const size_t first_gemm = rows.size();
  add_gemms(rows, kGemmShapes, false, kEff, truth);
  const Calibration c = fit_rows(rows);
  REQUIRE(c.profile.gemm_efficiency);
  CHECK_THAT(*c.profile.gemm_efficiency, WithinRel(kEff, 1e-6));
  REQUIRE(c.gemm);
  CHECK(c.gemm->points == int(kGemmShapes.size()));
  CHECK(c.gemm->max_error_pct < 1e-6);
  CHECK_THAT(c.gemm->source, Catch::Matchers::Contains("2 memory-bound not fitted, 0 outliers dropped"));
  REQUIRE(c.points.size() == rows.size());
  for (size_t i = first_gemm; i < rows.size(); ++i) {
    INFO(c.points[i].benchmark << ": " << c.points[i].detail);
    CHECK_FALSE(c.points[i].outlier);
    CHECK(std::abs(c.points[i].error_pct()) < 1e-6);
    const bool small_m = c.points[i].benchmark.starts_with("BM_gemm_bf16/M:16/") ||
                         c.points[i].benchmark.starts_with("BM_gemm_bf16/M:64/");
    CHECK(c.points[i].detail.starts_with("memory-bound") == small_m);
  }
}

TEST_CASE("GEMM plateau efficiency recovered from 2% noise", "[calib]") {
  test::Noise noise(0.02, 11);
  constexpr double kEff = 0.70;
  std::vector<SyntheticRow> rows;
  add_gemms(rows, kGemmShapes, false, kEff, {}, &noise, kReps);
  const Calibration c = fit_rows(rows);
  REQUIRE(c.profile.gemm_efficiency);
  CHECK_THAT(*c.profile.gemm_efficiency, WithinRel(kEff, 0.02));  // 18 compute-bound points, 2% noise
  CHECK(c.profile.catalog_gpu == "H200");
  REQUIRE(c.gemm);
  // The noise pushes one M = 64 row (memory-bound, its mainloop at 83% of its operand time)
  // 4% above its operand stream: it enters the fit as compute-bound and is the one rejected.
  CHECK(c.gemm->points == int(rows.size()) - 1);
  for (const auto& p : c.points)
    if (p.outlier) CHECK(p.benchmark.starts_with("BM_gemm_bf16/M:64/"));
  CHECK(error_stats(c.points).meets_target());
}

TEST_CASE("GEMM fit with BF16 and FP8 rows fits the more numerous precision", "[calib]") {
  std::vector<SyntheticRow> rows;
  const std::vector<GemmCase> big(kGemmShapes.begin(), kGemmShapes.begin() + 5);
  SECTION("more FP8 rows: fitted on FP8") {
    add_gemms(rows, {big.begin(), big.begin() + 3}, false, 0.85);
    add_gemms(rows, big, true, 0.65);
    const Calibration c = fit_rows(rows);
    CHECK_THAT(*c.profile.gemm_efficiency, WithinRel(0.65, 1e-6));
    CHECK(c.gemm->points == 5);
    CHECK_THAT(c.gemm->source, Catch::Matchers::Contains("gemm_fp8 (5 points") &&
                                   Catch::Matchers::Contains("3 gemm_bf16 points predicted with it"));
    REQUIRE(c.warnings.size() == 1);
    CHECK_THAT(c.warnings[0], Catch::Matchers::Contains("fitted on the fp8 rows (65.0%)") &&
                                  Catch::Matchers::Contains("the 3 bf16 rows predicted with it are off by median"));
    // BF16 rows predicted at 0.65 instead of 0.85: slower, by up to 0.85 / 0.65 - 1 = 31%.
    for (size_t i = 0; i < 3; ++i) {
      CHECK(c.points[i].error_pct() > 0);
      CHECK(c.points[i].error_pct() < 100 * (0.85 / 0.65 - 1) + 1e-9);
      CHECK(c.points[i].detail.starts_with("bf16, predicted with the fp8 fit"));
    }
  }
  SECTION("as many of each: fitted on BF16") {
    add_gemms(rows, big, false, 0.85);
    add_gemms(rows, big, true, 0.65);
    const Calibration c = fit_rows(rows);
    CHECK_THAT(*c.profile.gemm_efficiency, WithinRel(0.85, 1e-6));
    CHECK_THAT(c.warnings.at(0), Catch::Matchers::Contains("fitted on the bf16 rows"));
  }
}

TEST_CASE("GEMMs faster than the tensor-core peak are an error, not a fit", "[calib][errors]") {
  std::vector<SyntheticRow> rows;
  add_gemms(rows, kGemmShapes, false, 1.25);  // e.g. the FP8 peak's shapes named bf16
  try {
    fit_rows(rows);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("gemm") &&
                             Catch::Matchers::Contains("fitted plateau efficiency 1.250 is outside (0, 1]") &&
                             Catch::Matchers::Contains("faster than the tensor-core peak"));
  }
}

TEST_CASE("only memory-bound GEMMs cannot give the plateau efficiency", "[calib][errors]") {
  std::vector<SyntheticRow> rows;
  add_gemms(rows, {{16, 7168, 7168}, {64, 7168, 2048}}, false, 0.7);
  try {
    fit_rows(rows);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("no bf16 GEMM in synthetic.json is compute-bound"));
  }
}

}  // namespace
}  // namespace mhcsim::calib
