// `mhcsim validate` (validate/): the difference arithmetic, the summary, the --check logic, the
// case folder rules, and Megatron's eq. 3 FLOP count against the papers' own arithmetic.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/validate/megatron_flops.h"
#include "mhcsim/validate/validate.h"

using namespace mhcsim;
using namespace mhcsim::validate;
using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace fs = std::filesystem;

namespace {
std::string shipped_path(const char* name) { return std::string(MHCSIM_SOURCE_DIR) + "/scenarios/" + name; }
Scenario shipped(const char* name) { return scenarios::load_scenario(shipped_path(name)); }

Row row_with_delta(double d) {
  Row r;
  r.delta_pct = d;
  return r;
}

// A scratch folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    static int counter = 0;
    path = fs::temp_directory_path() /
           ("mhcsim_validate_" + std::to_string(reinterpret_cast<uintptr_t>(this)) + "_" + std::to_string(++counter));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  void write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

std::string read(const std::string& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Narayanan et al. SC21, eq. 2: parameters of a GPT model, P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)).
double megatron_parameters(double l, double h, double V, double s) {
  return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}
}  // namespace

TEST_CASE("delta % = (predicted - published) / published x 100") {
  CHECK_THAT(delta_pct(110, 100), WithinAbs(10, 1e-12));
  CHECK_THAT(delta_pct(90, 100), WithinAbs(-10, 1e-12));
  CHECK_THAT(delta_pct(19.926, 19.926), WithinAbs(0, 1e-12));
  CHECK_THAT(delta_pct(1.0, 1.067), WithinRel(-6.279287, 1e-6));
  CHECK_THROWS_AS(delta_pct(1, 0), InputError);
  CHECK_THROWS_AS(delta_pct(1, -3), InputError);
}

TEST_CASE("summary: median and max of the absolute deltas") {
  SECTION("odd count: the middle value") {
    const auto s = summarize({row_with_delta(-30), row_with_delta(10), row_with_delta(5)});
    CHECK(s.count == 3);
    CHECK_THAT(s.median_abs_delta_pct, WithinAbs(10, 1e-12));
    CHECK_THAT(s.max_abs_delta_pct, WithinAbs(30, 1e-12));
  }
  SECTION("even count: the mean of the two middle values") {
    const auto s = summarize({row_with_delta(1), row_with_delta(-3), row_with_delta(2), row_with_delta(-10)});
    CHECK(s.count == 4);
    CHECK_THAT(s.median_abs_delta_pct, WithinAbs(2.5, 1e-12));
    CHECK_THAT(s.max_abs_delta_pct, WithinAbs(10, 1e-12));
  }
  SECTION("no rows") {
    const auto s = summarize({});
    CHECK(s.count == 0);
    CHECK(s.median_abs_delta_pct == 0);
    CHECK(s.max_abs_delta_pct == 0);
  }
}

TEST_CASE("check thresholds (MEDIAN and MAX): parsing and the threshold logic") {
  const auto t = parse_thresholds("10,25");
  CHECK(t.median_pct == 10);
  CHECK(t.max_pct == 25);
  CHECK(parse_thresholds("7.5,1e2").max_pct == 100);
  for (const char* bad : {"", "10", "10,", ",25", "a,b", "-1,5", "5,-1", "10,25,3", "10;25", "nan,5", "inf,5"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_thresholds(bad), InputError);
  }
  try {
    parse_thresholds("ten,25");
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(e.key() == "--check");
    CHECK_THAT(std::string(e.what()), Contains("MEDIAN,MAX"));
  }

  Summary s;
  s.count = 3;
  s.median_abs_delta_pct = 10;
  s.max_abs_delta_pct = 30;
  CHECK(check(s, {10, 30}).passed());  // at the threshold passes: the check is "exceeds"
  CHECK(check(s, {20, 40}).passed());
  const auto median_fails = check(s, {9.9, 30});
  CHECK_FALSE(median_fails.median_ok);
  CHECK(median_fails.max_ok);
  CHECK_FALSE(median_fails.passed());
  const auto max_fails = check(s, {10, 29.9});
  CHECK(max_fails.median_ok);
  CHECK_FALSE(max_fails.max_ok);
  CHECK_FALSE(max_fails.passed());
}

TEST_CASE(
    "case folder: toml files in file-name order, and errors for a missing folder, no case or no published table") {
  TempDir dir;
  SECTION("sorted, other files ignored") {
    dir.write("b_case.toml", "");
    dir.write("a_case.toml", "");
    dir.write("notes.txt", "");
    const auto files = case_files(dir.path);
    REQUIRE(files.size() == 2);
    CHECK(files[0].filename() == "a_case.toml");
    CHECK(files[1].filename() == "b_case.toml");
  }
  SECTION("no case file") {
    dir.write("notes.txt", "");
    CHECK_THROWS_AS(case_files(dir.path), InputError);
  }
  SECTION("not a directory") {
    CHECK_THROWS_AS(case_files(dir.path / "missing"), InputError);
    CHECK_THROWS_AS(validate_suite(dir.path / "missing"), InputError);
  }
  SECTION("a valid scenario without [published] is an error naming its file") {
    dir.write("plain.toml", read(shipped_path("llama3_70b_gqa.toml")));
    try {
      validate_suite(dir.path);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.where().file.find("plain.toml") != std::string::npos);
      CHECK_THAT(std::string(e.what()), Contains("plain.toml") && Contains("[published]"));
    }
  }
}

TEST_CASE("overrides: a case they make invalid is skipped with its reason; a broken case stays an error") {
  TempDir dir;
  dir.write("dense.toml", read(shipped_path("validation/korthikanti22_22b_full.toml")));
  dir.write("moe.toml", read(shipped_path("validation/deepseek_v3_isca25.toml")));
  const std::vector<scenarios::Override> ep8{scenarios::parse_override("parallel.ep=8")};
  const auto suite = validate_suite(dir.path, ep8);
  REQUIRE(suite.cases == 1);
  CHECK(suite.report.rows.size() == 1);
  CHECK(suite.report.rows[0].file.find("moe.toml") != std::string::npos);
  REQUIRE(suite.skipped.size() == 1);
  CHECK_THAT(suite.skipped[0].file, Contains("dense.toml"));
  CHECK_THAT(suite.skipped[0].reason, Contains("parallel.ep") && Contains("routed experts"));

  SECTION("a figure the override makes unpredictable skips its case too") {
    dir.write("decode.toml", read(shipped_path("validation/deepseek_v3_profile_decode.toml")));
    dir.write("prefill.toml", read(shipped_path("validation/deepseek_v3_profile_prefill.toml")));
    const std::vector<scenarios::Override> prefill{scenarios::parse_override("workload.phase=\"prefill\"")};
    const auto s = validate_suite(dir.path, prefill);
    // The training cases take no phase (skipped at load), the decode case's figure needs decode.
    CHECK(s.cases == 1);
    REQUIRE(s.skipped.size() == 3);
    CHECK_THAT(s.skipped[0].file + s.skipped[0].reason, Contains("decode.toml") && Contains("decode phase"));
  }
  SECTION("refused by every case: the first case's error") {
    const std::vector<scenarios::Override> zero{scenarios::parse_override("model.layers=0")};
    CHECK_THROWS_WITH(validate_suite(dir.path, zero), Contains("model.layers") && Contains("out of range"));
  }
  SECTION("without overrides nothing is skipped: a case that does not load is the error") {
    dir.write("broken.toml", "[model\n");
    CHECK_THROWS_WITH(validate_suite(dir.path), Contains("broken.toml"));
    CHECK_THROWS_WITH(validate_suite(dir.path, ep8), Contains("broken.toml"));
  }
}

TEST_CASE("a case's rows: one per figure, predicted through the cost model") {
  Scenario s = shipped("llama3_70b_gqa.toml");
  SECTION("without [published]: an error naming the file") {
    s.published.reset();
    try {
      validate_case(s);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.where().file == s.path);
    }
  }
  SECTION("step time, MFU and the ratio to a plain residual") {
    const double step = cost::step_estimate(s).step_seconds;
    REQUIRE(step > 0);
    s.published = PublishedResults{"made up",
                                   true,
                                   {{"step_time_s", step * 1.25, 40},
                                    {"mfu_pct", cost::step_estimate(s).mfu * 100, 41},
                                    {"step_time_ratio_vs_residual", 1.0, 42}}};
    const auto rows = validate_case(s);
    REQUIRE(rows.size() == 3);
    CHECK(rows[0].case_name == s.name);
    CHECK(rows[0].file == s.path);
    CHECK(rows[0].metric == "step_time_s");
    CHECK(rows[0].held_out);
    CHECK(rows[0].source == "made up");
    CHECK_THAT(rows[0].predicted, WithinRel(step, 1e-12));
    CHECK_THAT(rows[0].delta_pct, WithinRel(-20.0, 1e-9));  // 1 / 1.25 - 1
    CHECK_THAT(rows[1].delta_pct, WithinAbs(0, 1e-9));
    CHECK_THAT(rows[2].predicted, WithinAbs(1.0, 1e-12));  // already a plain residual
    auto twice = rows;
    twice.insert(twice.end(), rows.begin(), rows.end());
    const auto summary = summarize(twice);
    CHECK(summary.count == 6);
    CHECK_THAT(summary.max_abs_delta_pct, WithinRel(20.0, 1e-9));
  }
  SECTION("an unknown metric or a zero figure names the file and line") {
    s.published = PublishedResults{"made up", false, {{"tokens_per_hour", 1.0, 7}}};
    try {
      validate_case(s);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.where().file == s.path);
      CHECK(e.where().line == 7);
    }
    s.published = PublishedResults{"made up", false, {{"step_time_s", 0.0, 9}}};
    CHECK_THROWS_AS(validate_case(s), InputError);
  }
  SECTION("tflops_per_gpu counts dense GPT models only") {
    Scenario v3 = shipped("deepseek_v3_train.toml");
    CHECK_THROWS_AS(predict(v3, "tflops_per_gpu"), InputError);
  }
}

TEST_CASE("mHC n = 4: the step is longer than with a plain residual") {
  const auto s = shipped("mhc_27b_h100.toml");
  CHECK(predict(s, "step_time_ratio_vs_residual") > 1.0);
}

TEST_CASE("Megatron eq. 3: the SC21 and MLSys 2023 papers' own arithmetic") {
  const double s = 2048, V = 51200;
  SECTION("eq. 2 parameter counts give Table 1's row names (145.6B ... 1008B)") {
    CHECK_THAT(megatron_parameters(80, 12288, V, s), WithinRel(145.6e9, 0.001));
    CHECK_THAT(megatron_parameters(96, 16384, V, s), WithinRel(310.1e9, 0.001));
    CHECK_THAT(megatron_parameters(105, 20480, V, s), WithinRel(529.6e9, 0.001));
    CHECK_THAT(megatron_parameters(128, 25600, V, s), WithinRel(1008e9, 0.001));
  }
  SECTION("Table 1, 1008B: 163 TFLOP/s x 3072 GPUs ~ 502 PFLOP/s; eq. 3 at that rate") {
    const MegatronFlopsInputs t1{3072, 2048, 128, 25600, 51200, true};
    const double flops = megatron_flops_per_iteration(t1);
    // 96 B s l h^2 (1 + s/6h + V/16lh), evaluated by hand: 5.1393e19 FLOPs per iteration.
    CHECK_THAT(flops, WithinRel(96.0 * 3072 * 2048 * 128 * 25600.0 * 25600 * (1 + 2048 / 153600.0 + 51200 / 52428800.0),
                                1e-12));
    CHECK_THAT(flops, WithinRel(5.1393e19, 1e-4));
    CHECK_THAT(163e12 * 3072, WithinRel(502e15, 0.005));  // the table rounds the per-GPU figure
    const double iteration_s = flops / 502e15;            // ~102 s per iteration at the aggregate rate
    CHECK_THAT(flops / (iteration_s * 3072) / 1e12, WithinRel(163.0, 0.005));
    // Without recompute, Korthikanti et al.'s model FLOPs (appendix): 72 B s l h^2 (1 + s/6h +
    // V/12lh), the logits not recomputed.
    CHECK_THAT(
        megatron_flops_per_iteration({3072, 2048, 128, 25600, 51200, false}),
        WithinRel(72.0 * 3072 * 2048 * 128 * 25600.0 * 25600 * (1 + 2048 / 153600.0 + 51200 / 39321600.0), 1e-12));
  }
  SECTION("the paper's training-time estimate: GPT-3 175B on 300B tokens, 1024 A100 at 140 TFLOP/s, ~34 days") {
    // The paper's eq. 4 (8TP/nX) drops eq. 3's s/6h and V/16lh terms; with them: 34.7 days.
    const double flops_per_token = megatron_flops_per_iteration({1, 2048, 96, 12288, 51200, true}) / 2048;
    const double days = 300e9 * flops_per_token / (1024 * 140e12) / 86400;
    CHECK_THAT(days, WithinRel(34.0, 0.03));
  }
  SECTION("Korthikanti et al. Table 5: eq. 3 MFU at the iteration times vs the abstract's 530B MFUs") {
    // Table 5 runs the 530B on 280 GPUs (batch 280); the abstract quotes 54.2% (SP + selective)
    // and 42.1% (full recompute) for a 2240-GPU run (8x the data parallelism), so within 4%.
    const double flops = megatron_flops_per_iteration({280, 2048, 105, 20480, 51200, false});
    const double peak = 280 * 312e12;
    CHECK_THAT(flops / (37.83 * peak) * 100, WithinRel(54.2, 0.04));
    CHECK_THAT(flops / (49.05 * peak) * 100, WithinRel(42.1, 0.04));
    CHECK_THAT(49.05 / 37.83, WithinAbs(54.2 / 42.1, 0.01));  // "29% faster"
  }
  SECTION("inputs from a scenario: the global batch is micro-batches x micro-batch x DP") {
    const auto llama = shipped("llama3_70b_gqa.toml");
    const auto in = megatron_flops_inputs(llama);
    CHECK(in.batch_seqs == llama.parallel.micro_batches * llama.workload.micro_batch_seqs * llama.parallel.dp);
    CHECK(in.layers == 80);
    CHECK(in.hidden == 8192);
    CHECK_FALSE(in.full_recompute);
    CHECK_THROWS_AS(megatron_flops_per_iteration({0, 2048, 1, 1, 1, false}), InputError);
  }
}
