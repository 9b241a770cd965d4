// Bad input gives a clear error naming the file and what is wrong, never a silent fit:
// malformed JSON, unknown kernel classes, profiles from a newer schema or another GPU.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "mhcsim/calib/attach.h"
#include "mhcsim/calib/gpu_match.h"
#include "mhcsim/calib/plausibility.h"
#include "mhcsim/calib/profile_json.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/catalog.h"
#include "synthetic.h"

namespace mhcsim::calib {
namespace {

using Catch::Matchers::Contains;
namespace fs = std::filesystem;

std::vector<test::SyntheticRow> copy_rows(int sizes) {
  std::vector<test::SyntheticRow> rows;
  for (int i = 1; i <= sizes; ++i) {
    const double bytes = i * 1e8;
    rows.push_back(
        {"BM_hbm_copy/bytes:" + std::to_string(int64_t(bytes)) + "/manual_time", 5e-6 + bytes / 4e12, bytes});
  }
  return rows;
}

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

fs::path temp_file(const std::string& name, const std::string& text) {
  const fs::path p = fs::temp_directory_path() / ("mhcsim_calib_test_" + name);
  std::ofstream(p) << text;
  return p;
}

TEST_CASE("malformed benchmark JSON names the file", "[calib][errors]") {
  const auto msg = message_of([] { parse_benchmark_json("{\"context\": {", "bench.json"); });
  CHECK_THAT(msg, Contains("bench.json") && Contains("malformed JSON"));
  // nlohmann reports a number past float64 as out_of_range, not as a parse error: it was not
  // caught and ended the process (found by fuzz_calibration).
  CHECK_THAT(message_of([] { parse_benchmark_json("{\"context\": {\"x\": 1e400}}", "big.json"); }),
             Contains("big.json: malformed JSON: a number overflows float64"));
  CHECK_THAT(message_of([] { parse_benchmark_json("[1, 2]", "b.json"); }), Contains("expected a JSON object"));
  CHECK_THAT(message_of([] { parse_benchmark_json("{\"benchmarks\": []}", "b.json"); }), Contains("b.json: context"));
}

TEST_CASE("a benchmark from an unknown kernel names the file and the benchmark", "[calib][errors]") {
  auto rows = copy_rows(4);
  rows.push_back({"BM_flash_attn_fwd/seq:4096/manual_time", 1e-3, 1e9});
  const auto msg = message_of([&] { parse_benchmark_json(test::synthetic_doc(rows).dump(), "kern.json"); });
  CHECK_THAT(msg, Contains("kern.json: BM_flash_attn_fwd/seq:4096/manual_time: unknown kernel class "
                           "'BM_flash_attn_fwd'") &&
                      Contains("hbm_copy"));
}

TEST_CASE("missing GPU name, bytes or ranks are errors, not guesses", "[calib][errors]") {
  auto doc = test::synthetic_doc(copy_rows(4));
  doc["context"].erase("gpu_name");
  CHECK_THAT(message_of([&] { parse_benchmark_json(doc.dump(), "x.json"); }), Contains("context.gpu_name"));

  auto no_bytes = copy_rows(4);
  no_bytes[2].bytes = 0;
  CHECK_THAT(message_of([&] { calibrate({parse_benchmark_json(test::synthetic_doc(no_bytes).dump(), "z.json")}); }),
             Contains("z.json") && Contains("bytes_per_second"));

  std::vector<test::SyntheticRow> no_ranks = {{"BM_nccl_alltoall/bytes:1000/manual_time", 1e-5, 1e3}};
  CHECK_THAT(message_of([&] { calibrate({parse_benchmark_json(test::synthetic_doc(no_ranks).dump(), "c.json")}); }),
             Contains("needs 'ranks'"));
}

TEST_CASE("one measured size: bandwidth only, overhead 0, and a warning says so", "[calib]") {
  auto one_size = copy_rows(1);
  one_size.push_back(one_size.front());
  const Calibration c = calibrate({parse_benchmark_json(test::synthetic_doc(one_size).dump(), "y.json")});
  const BandwidthFit& f = c.profile.kernels.at("hbm_copy");
  CHECK(f.overhead_seconds == 0);
  CHECK_THAT(f.bandwidth_gbps, Catch::Matchers::WithinRel(1e8 / (5e-6 + 1e8 / 4e12) / 1e9, 1e-9));
  REQUIRE(c.warnings.size() == 1);
  CHECK_THAT(c.warnings[0], Contains("hbm_copy: one size measured") && Contains("fitted as 0"));
}

TEST_CASE("kernels/bench output: its context keys, model_bytes and the NCCL probe's JSON", "[calib]") {
  auto doc = test::synthetic_doc(copy_rows(3));
  auto& ctx = doc["context"];
  ctx.erase("gpu_name");
  ctx.erase("driver_version");
  ctx.erase("cuda_version");
  ctx["gpu"] = "NVIDIA H200";  // kernels/bench/bench_util.cpp add_gpu_context
  ctx["cuda_driver"] = "13.0";
  ctx["cuda_runtime"] = "13.0";
  doc["benchmarks"][0]["model_bytes"] = 123.0;
  const BenchFile kb = parse_benchmark_json(doc.dump(), "kernels_bench.json");
  CHECK(kb.context.gpu_name == "NVIDIA H200");
  CHECK(kb.context.driver_version == "13.0");
  CHECK(kb.measurements[0].bytes == 123.0);

  // kernels/bench/nccl_table.cpp rows_json; the second row failed its correctness check.
  const nlohmann::json nccl = {
      {"context", {{"nranks", 8}, {"devices", "NVIDIA H200, NCCL 22703"}, {"nccl", 22703}}},
      {"rows",
       {{{"name", "NCCL_alltoall/bytes:1048576/ranks:8"}, {"size_bytes", 1048576}, {"time_us", 90.0}, {"wrong", 0}},
        {{"name", "NCCL_alltoall/bytes:4194304/ranks:8"}, {"size_bytes", 4194304}, {"time_us", 110.0}, {"wrong", 3}}}}};
  const BenchFile nb = parse_benchmark_json(nccl.dump(), "nccl_bench.json");
  CHECK(nb.context.gpu_name == "NVIDIA H200");
  REQUIRE(nb.measurements.size() == 1);
  CHECK(nb.measurements[0].kernel->name == "nccl_alltoall");
  CHECK(nb.measurements[0].args.at("ranks") == 8);
  CHECK(nb.measurements[0].bytes == 1048576);
  REQUIRE(nb.skipped.size() == 1);
  CHECK_THAT(nb.skipped[0], Contains("3 wrong elements"));
  const Calibration c = calibrate({kb, nb});  // one GPU across both files; the probe has no driver
  CHECK(c.profile.driver_version == "13.0");
}

TEST_CASE("files from two GPUs cannot make one profile", "[calib][errors]") {
  const auto a = parse_benchmark_json(test::synthetic_doc(copy_rows(4)).dump(), "a.json");
  const auto b = parse_benchmark_json(test::synthetic_doc(copy_rows(4), "NVIDIA H100 80GB HBM3").dump(), "b.json");
  CHECK_THAT(message_of([&] { calibrate({a, b}); }), Contains("b.json") && Contains("one GPU"));
}

TEST_CASE("benchmark rows that errored are skipped and reported", "[calib]") {
  auto doc = test::synthetic_doc(copy_rows(4));
  doc["benchmarks"].push_back({{"name", "BM_nccl_alltoall/ranks:8/manual_time"},
                               {"run_type", "iteration"},
                               {"error_occurred", true},
                               {"error_message", "needs 8 GPUs"}});
  const Calibration c = calibrate({parse_benchmark_json(doc.dump(), "e.json")});
  REQUIRE(c.warnings.size() == 1);
  CHECK_THAT(c.warnings[0], Contains("e.json: skipped BM_nccl_alltoall/ranks:8/manual_time: needs 8 GPUs"));
  CHECK(c.profile.collectives.empty());
}

TEST_CASE("profile round-trips through JSON and refuses newer schemas", "[calib][profile]") {
  const Calibration c = calibrate({parse_benchmark_json(test::synthetic_doc(copy_rows(5)).dump(), "r.json")});
  const fs::path path = fs::temp_directory_path() / "mhcsim_calib_test_profile.json";
  write_calibration(path, c);
  const CalibrationProfile back = read_profile(path);
  CHECK(back.gpu_name == "NVIDIA H200");
  CHECK(back.catalog_gpu == "H200");
  CHECK(back.date == "2026-12-02T00:00:00+00:00");
  CHECK(back.path == path.string());
  REQUIRE(back.kernels.count("hbm_copy"));
  CHECK(back.kernels.at("hbm_copy").bandwidth_gbps == c.profile.kernels.at("hbm_copy").bandwidth_gbps);
  CHECK(back.kernels.at("hbm_copy").source == c.profile.kernels.at("hbm_copy").source);

  auto doc = calibration_to_json(c);
  CHECK(doc["residuals"].size() == 5);
  doc["schema_version"] = kSchemaVersion + 1;
  CHECK_THAT(message_of([&] { profile_from_json(doc, "new.json"); }),
             Contains("new.json: schema_version: 2 is not supported") && Contains("newer mhcsim"));
  doc["schema_version"] = kSchemaVersion;
  doc["kernels"]["hbm_copy"].erase("bandwidth_gbps");
  CHECK_THAT(message_of([&] { profile_from_json(doc, "p.json"); }),
             Contains("p.json: kernels.hbm_copy.bandwidth_gbps: missing or not a number"));
  const fs::path broken = temp_file("broken.json", "{\"schema\": ");
  CHECK_THAT(message_of([&] { read_profile(broken); }), Contains("malformed JSON"));
  CHECK_THAT(message_of([&] { profile_from_json(test::synthetic_doc(copy_rows(2)), "bench.json"); }),
             Contains("bench.json: schema: missing"));
}

Scenario scenario_on(const std::string& catalog_key, const fs::path& profile) {
  Scenario s;
  s.hardware.gpu = scenarios::find_gpu(catalog_key).gpu;
  s.calibration_path = profile.string();
  return s;
}

TEST_CASE("attaching a profile: same GPU silent, other GPU warns", "[calib][profile]") {
  const Calibration c = calibrate({parse_benchmark_json(test::synthetic_doc(copy_rows(5)).dump(), "r.json")});
  const fs::path path = fs::temp_directory_path() / "mhcsim_calib_test_attach.json";
  write_profile(path, c.profile);

  Scenario same = scenario_on("H200", path);
  CHECK(attach_calibration(same).empty());
  REQUIRE(same.calibration);
  CHECK(same.calibration->kernels.count("hbm_copy") == 1);
  CHECK_THAT(describe_calibration(*same.calibration), Contains("calibrated: ") && Contains("NVIDIA H200"));

  Scenario other = scenario_on("H800", path);
  const auto warnings = attach_calibration(other);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains("NVIDIA H200") && Contains("H800") && Contains("another GPU"));
  CHECK(other.calibration);  // still attached: the user asked for it; the warning says why it may be off

  Scenario none;
  CHECK(attach_calibration(none).empty());
  CHECK_FALSE(none.calibration);
}

TEST_CASE("fits no working GPU gives are warned about, at calibrate and when attached", "[calib][profile]") {
  // 4 GB/s of "HBM" on an H200 (4800 GB/s): a benchmark that counted bytes wrong.
  std::vector<test::SyntheticRow> slow;
  for (int i = 1; i <= 4; ++i)
    slow.push_back({"BM_hbm_copy/bytes:" + std::to_string(i * 1000000) + "/manual_time", i * 1e6 / 4e9, i * 1e6});
  const Calibration c = calibrate({parse_benchmark_json(test::synthetic_doc(slow).dump(), "slow.json")});
  REQUIRE(c.warnings.size() == 1);
  CHECK_THAT(c.warnings[0], Contains("kernels.hbm_copy: 4 GB/s") && Contains("0.0833% of the H200"));
  const fs::path path = fs::temp_directory_path() / "mhcsim_calib_test_slow.json";
  write_profile(path, c.profile);
  Scenario s = scenario_on("H200", path);
  const auto warnings = attach_calibration(s);
  REQUIRE(warnings.size() == 1);
  CHECK_THAT(warnings[0], Contains(path.string()) && Contains("kernels.hbm_copy"));
  // Within the band: silent (the other tests' 4 TB/s on an H200 is 83%).
  CalibrationProfile fine;
  fine.kernels["hbm_copy"].bandwidth_gbps = 4000;
  fine.collectives["alltoall_intra"].bus_gbps = 300;
  CHECK(implausible_fits(fine, s.hardware.gpu).empty());
  fine.collectives["alltoall_intra"].bus_gbps = 2000;  // over 2x the H200's 450 GB/s NVLink
  CHECK(implausible_fits(fine, s.hardware.gpu).size() == 1);
}

TEST_CASE("calibrate: --gpu cannot rename a GPU the catalog recognised", "[calib][errors]") {
  const auto doc = parse_benchmark_json(test::synthetic_doc(copy_rows(3)).dump(), "g.json");  // NVIDIA H200
  CalibrateOptions o;
  o.catalog_gpu = "H800";
  CHECK_THAT(message_of([&] { calibrate({doc}, o); }),
             Contains("--gpu: 'H800'") && Contains("which is the catalog's H200"));
  o.catalog_gpu = "h200";  // any case, as hardware.gpu
  CHECK(calibrate({doc}, o).profile.catalog_gpu == "H200");
}

TEST_CASE("driver GPU names map to catalog keys", "[calib]") {
  CHECK(catalog_key_for("NVIDIA H100 80GB HBM3") == "H100");
  CHECK(catalog_key_for("NVIDIA H800") == "H800");
  CHECK(catalog_key_for("NVIDIA A100-SXM4-80GB") == "A100");
  CHECK(catalog_key_for("H200 SXM 141GB") == "H200");
  CHECK(catalog_key_for("NVIDIA GeForce RTX 4090").empty());
  CHECK(catalog_key_for("NVIDIA H1000").empty());
}

}  // namespace
}  // namespace mhcsim::calib
