// Kernel classification, timeline metrics and the comparison rows (issue 8): a synthetic trace
// with hand-computed busy times gives exactly those numbers, plain and gzipped.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mhcsim/error.h"
#include "mhcsim/traces/compare.h"
#include "trace_helpers.h"

using namespace mhcsim;
using namespace mhcsim::traces;
using namespace mhcsim::traces::test;
using Catch::Matchers::WithinRel;

namespace {

constexpr double kUsec = 1e-6;

}  // namespace

TEST_CASE("classifier: default patterns on real kernel names and on mhcsim's own trace") {
  Classifier c(default_patterns());
  using K = OpClass;
  const std::vector<std::pair<std::string, K>> cases = {
      {"void flash_fwd_splitkv_mla_kernel<Flash_fwd_kernel_traits_mla<576>>(Flash_fwd_mla_params)", K::Attention},
      {"void flash_fwd_splitkv_mla_combine_kernel<cutlass::bfloat16_t, 512>(Flash_fwd_mla_params)", K::Attention},
      {"fmha_cutlassF_bf16_aligned_64x64_rf_sm80", K::Attention},
      {"void deep_ep::internode::dispatch<true, 8, 768>(int4*)", K::Dispatch},
      {"void deep_ep::internode_ll::combine<false>(void*)", K::Combine},
      {"m_grouped_gemm_fp8_fp8_bf16_nt_contiguous", K::Mlp},
      {"ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", K::PpComm},
      {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", K::OtherComm},
      {"Memcpy DtoD (Device -> Device)", K::OtherComm},
      {"mhc_post_res_fused_kernel", K::Mhc},
      {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64", K::OtherCompute},
      // mhcsim's trace: "<unit> <piece>", the PP link ops are "send", unsplit units bare.
      {"F attn", K::Attention}, {"B(input) mlp", K::Mlp}, {"F dispatch", K::Dispatch},
      {"B combine", K::Combine}, {"F mhc_post", K::Mhc}, {"send", K::PpComm}, {"W", K::OtherCompute},
  };
  for (const auto& [name, want] : cases) {
    INFO(name);
    CHECK(c.classify(name, "kernel") == want);
    CHECK(c.classify(name, "kernel") == want);  // the cached answer is the same
  }
  CHECK_FALSE(c.classify("aten::mm", "cpu_op"));
  CHECK_FALSE(c.classify("## forward ##", "gpu_user_annotation"));
}

TEST_CASE("classifier: a bad regex is an InputError naming the class") {
  auto p = default_patterns();
  p.pattern[static_cast<size_t>(OpClass::Mlp)] = "gemm(";
  CHECK_THROWS_WITH(Classifier(p), Catch::Matchers::Contains("patterns.mlp: 'gemm(' is not a valid regex"));
}

TEST_CASE("patterns file: TOML and JSON override the defaults, bad files name file and key") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_patterns";
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  const auto toml = load_patterns(write("p.toml", "ignore_categories = [\"cpu_op\"]\n[patterns]\nmlp = \"nvjet|xmma_gemm\"\n"));
  const auto json = load_patterns(write("p.json", R"({"patterns": {"mlp": "nvjet|xmma_gemm"}, "ignore_categories": ["cpu_op"]})"));
  for (const auto* p : {&toml, &json}) {
    Classifier c(*p);
    CHECK(c.classify("sm90_xmma_gemm_bf16bf16", "kernel") == OpClass::Mlp);
    CHECK(c.classify("flash_fwd_kernel", "kernel") == OpClass::Attention);  // default kept
    CHECK(c.classify("## fwd ##", "gpu_user_annotation") == OpClass::OtherCompute);  // list replaced
  }
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(load_patterns(write("u.toml", "[patterns]\nattn = \"x\"\n")),
                    Contains("u.toml:2: patterns.attn: unknown op class"));
  CHECK_THROWS_WITH(load_patterns(write("t.toml", "[patterns]\nmlp = 3\n")), Contains("patterns.mlp: expected a regex string"));
  CHECK_THROWS_WITH(load_patterns(write("r.json", R"({"patterns": {"mlp": "(("}})")),
                    Contains("r.json: patterns.mlp: '((' is not a valid regex"));
  CHECK_THROWS_WITH(load_patterns(write("k.json", R"({"pattern": {}})")), Contains("k.json: pattern: unknown key"));
  CHECK_THROWS_WITH(load_patterns(dir / "none.toml"), Contains("cannot open patterns file"));
  fs::remove_all(dir);
}

TEST_CASE("metrics: a synthetic trace gives its hand-computed busy times") {
  const auto t = timeline_of(small_trace_text());
  REQUIRE(t.ranks == 2);
  CHECK(t.ignored_events == 2);
  const auto m = measure(t, 0, t.ranks);
  CHECK_THAT(m.step_seconds, WithinRel(70 * kUsec, 1e-12));
  // rank 0: compute [0,30)+[40,60) = 50, comm [5,15)+[25,45) = 30, overlap 10+5+5 = 20.
  // rank 1: compute [0,5)+[20,50) = 35, comm [45,70) = 25, overlap 5. Means over the 2 ranks:
  CHECK_THAT(m.compute_busy_seconds, WithinRel(42.5 * kUsec, 1e-12));
  CHECK_THAT(m.comm_busy_seconds, WithinRel(27.5 * kUsec, 1e-12));
  CHECK_THAT(m.overlap_seconds, WithinRel(12.5 * kUsec, 1e-12));
  CHECK_THAT(m.exposed_comm_seconds, WithinRel(15 * kUsec, 1e-12));
  CHECK_THAT(m.mean_bubble_seconds, WithinRel(27.5 * kUsec, 1e-12));  // (20 + 35) / 2
  CHECK_THAT(m.max_bubble_seconds, WithinRel(35 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::Attention), WithinRel(15 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::Mlp), WithinRel(10 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::Dispatch), WithinRel(5 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::Combine), WithinRel(10 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::Mhc), WithinRel(2.5 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::PpComm), WithinRel(12.5 * kUsec, 1e-12));
  CHECK_THAT(class_busy(m, OpClass::OtherCompute), WithinRel(15 * kUsec, 1e-12));
  CHECK(class_busy(m, OpClass::OtherComm) == 0);
  CHECK_THAT(role_busy(m, 0, StreamRole::Compute), WithinRel(50 * kUsec, 1e-12));
  CHECK_THAT(role_busy(m, 0, StreamRole::AllToAll), WithinRel(30 * kUsec, 1e-12));
  CHECK_THAT(role_busy(m, 1, StreamRole::Compute), WithinRel(35 * kUsec, 1e-12));
  CHECK_THAT(role_busy(m, 1, StreamRole::PpP2p), WithinRel(25 * kUsec, 1e-12));
  CHECK(m.streams.size() == 4);

  SECTION("one rank of the two, and a trace of two steps") {
    const auto r1 = measure(t, 1, 1);
    CHECK(r1.ranks == 1);
    CHECK_THAT(r1.compute_busy_seconds, WithinRel(35 * kUsec, 1e-12));
    CHECK_THAT(r1.step_seconds, WithinRel(70 * kUsec, 1e-12));  // the step spans every rank
    const auto two = measure(t, 0, 2, 2);
    CHECK_THAT(two.step_seconds, WithinRel(35 * kUsec, 1e-12));
    CHECK_THAT(two.compute_busy_seconds, WithinRel(21.25 * kUsec, 1e-12));
  }
  SECTION("the gzipped copy gives the same answer") {
    const auto gz = measure(timeline_of(gzip(small_trace_text())), 0, 2);
    const auto c = compare(m, gz);
    CHECK(c.max_abs_error_pct == 0);
    CHECK(c.rows.size() == compare(m, m).rows.size());
  }
}

TEST_CASE("compare: error per row, mean and max, zero rows left out") {
  TimelineMetrics meas, simu;
  meas.ranks = simu.ranks = 1;
  meas.step_seconds = 1.0;
  simu.step_seconds = 1.1;
  meas.compute_busy_seconds = 0.8;
  simu.compute_busy_seconds = 0.6;
  simu.comm_busy_seconds = 0.1;  // measured none: a row without an error
  const auto c = compare(meas, simu);
  REQUIRE(c.rows.size() == 3);
  CHECK(c.rows[0].metric == "step time");
  CHECK_THAT(*c.rows[0].error_pct, WithinRel(10.0, 1e-9));
  CHECK_THAT(*c.rows[1].error_pct, WithinRel(-25.0, 1e-9));
  CHECK_FALSE(c.rows[2].error_pct);
  CHECK_THAT(c.mean_abs_error_pct, WithinRel(17.5, 1e-9));
  CHECK_THAT(c.max_abs_error_pct, WithinRel(25.0, 1e-9));
}

TEST_CASE("metrics: Kineto's epoch-sized timestamps keep microsecond kernels exact") {
  // ts ~1.7e15 us: as seconds a double is spaced ~0.24 us there, which would blur these kernels.
  const auto t = timeline_of(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 1701234567890123.5, "dur": 1.5},
    {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 1701234567890126.0, "dur": 2.25}]})");
  const auto m = measure(t, 0, 1);
  CHECK_THAT(m.compute_busy_seconds, WithinRel(3.75 * kUsec, 1e-12));
  CHECK_THAT(m.step_seconds, WithinRel(4.75 * kUsec, 1e-12));
}

TEST_CASE("classifier: RE2 is linear in the name and the pattern, whatever their length") {
  Classifier c(default_patterns());
  // 30,000 characters crashed std::regex (recursion); any length is one pass now.
  CHECK(c.classify(std::string(1 << 20, 'a') + "flash", "kernel") == OpClass::Attention);
  CHECK(c.classify(std::string(30000, '('), "kernel") == OpClass::OtherCompute);
  auto p = default_patterns();
  p.pattern[static_cast<size_t>(OpClass::Mlp)] = "(a+)+$";  // exponential for a backtracking engine
  Classifier redos(p);
  CHECK(redos.classify(std::string(31, 'a') + "b", "kernel") == OpClass::OtherCompute);
  CHECK(redos.classify(std::string(100000, 'a'), "kernel") == OpClass::Mlp);
}

TEST_CASE("classifier: exclude patterns keep FlashMLA's combine out of the MoE combine") {
  Classifier c(default_patterns());
  CHECK(c.classify("void flash_fwd_splitkv_mla_combine_kernel<cutlass::bfloat16_t, 512>", "kernel") == OpClass::Attention);
  CHECK(c.classify("void deep_ep::internode_ll::combine<false>(void*)", "kernel") == OpClass::Combine);
  auto p = default_patterns();
  p.exclude[static_cast<size_t>(OpClass::Combine)] = "";
  Classifier no_exclude(p);
  CHECK(no_exclude.classify("flash_fwd_splitkv_mla_combine_kernel", "kernel") == OpClass::Combine);
}

TEST_CASE("patterns file: RE2 errors name file:line and key; exclude tables; regular files only") {
  using Catch::Matchers::Contains;
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_patterns_re2";
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return dir / name;
  };
  CHECK_THROWS_WITH(load_patterns(write("la.toml", "[patterns]\nmlp = \"gemm\"\ndispatch = \"^(?!.*flash).*dispatch\"\n")),
                    Contains("la.toml:3: patterns.dispatch: '^(?!.*flash).*dispatch' is not a valid regex (RE2: "));
  CHECK_THROWS_WITH(load_patterns(write("ex.toml", "[exclude]\nmlp = \"(x\"\n")),
                    Contains("ex.toml:2: exclude.mlp: '(x' is not a valid regex (RE2: missing ): (x)"));
  const auto p = load_patterns(write("ex.json", R"({"exclude": {"mlp": "nvjet"}})"));
  CHECK(p.exclude[static_cast<size_t>(OpClass::Mlp)] == "nvjet");
  CHECK(p.exclude[static_cast<size_t>(OpClass::Dispatch)] == "flash|splitkv|mla");  // defaults kept
  CHECK_THROWS_WITH(load_patterns(write("deep.toml", "[patterns]\nmlp" + std::string(200, '.') + "a = \"x\"\n")),
                    Contains("deep.toml:2: ") && Contains("nesting deeper than 64 levels"));
  CHECK_THROWS_WITH(load_patterns("/dev/urandom"), Contains("cannot open patterns file (a character device"));
  CHECK_THROWS_WITH(load_patterns(dir), Contains("cannot open patterns file (a directory"));
  fs::remove_all(dir);
}
