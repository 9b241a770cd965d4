// Fits on SYNTHETIC measurements generated from known parameters plus seeded noise recover
// those parameters; injected outliers are the points rejected.
#include <catch2/catch.hpp>

#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calib/report.h"
#include "mhcsim/calib/robust_fit.h"
#include "mhcsim/units.h"
#include "synthetic.h"

namespace mhcsim::calib {
namespace {

using Catch::Matchers::WithinRel;
using test::SyntheticRow;

constexpr double kT0 = 5e-6;       // s
constexpr double kBwGbps = 4000;   // GB/s
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

void add_alltoall(std::vector<SyntheticRow>& rows, const Regime& r, int ranks, int nodes,
                  test::Noise& noise) {
  for (double bytes : test::geometric_sizes(r.lo_bytes, r.hi_bytes, r.sizes)) {
    const double t = r.alpha_s * (ranks - 1) + bytes * (ranks - 1) / ranks / (r.bus_gbps * kGB);
    rows.push_back({"BM_nccl_alltoall/bytes:" + std::to_string(int64_t(bytes)) + "/ranks:" +
                        std::to_string(ranks) + "/nodes:" + std::to_string(nodes) + "/manual_time",
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

TEST_CASE("GEMM efficiency recovered from shapes against the catalog peak", "[calib]") {
  test::Noise noise(0.02, 11);
  constexpr double kEff = 0.70;
  const double peak = 989 * kTFLOP;  // H200 dense BF16, scenarios/hardware/catalog.toml
  std::vector<SyntheticRow> rows;
  for (auto [m, n, k] : {std::array{4096, 7168, 2048}, {8192, 7168, 7168}, {2048, 2048, 2048},
                         {16384, 1536, 7168}, {4096, 18432, 7168}})
    for (int r = 0; r < kReps; ++r)
      rows.push_back({"BM_gemm_bf16/M:" + std::to_string(m) + "/N:" + std::to_string(n) + "/K:" +
                          std::to_string(k) + "/manual_time",
                      noise(2.0 * m * n * k / (kEff * peak)), 0});
  const Calibration c = fit_rows(rows);
  REQUIRE(c.profile.gemm_efficiency);
  CHECK_THAT(*c.profile.gemm_efficiency, WithinRel(kEff, 0.02));  // 15 points, 2% noise
  CHECK(c.profile.catalog_gpu == "H200");
  REQUIRE(c.gemm);
  CHECK(c.gemm->points == 15);
}

}  // namespace
}  // namespace mhcsim::calib
