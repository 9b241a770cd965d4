// Scenario parsing and validation (issue 2): every shipped file parses; every class of bad
// input names the key and the line; --set overrides go through the same validation.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/catalog.h"
#include "mhcsim/scenarios/load.h"

using namespace mhcsim;
using namespace mhcsim::scenarios;
namespace fs = std::filesystem;

namespace {

const fs::path kScenarios = fs::path(MHCSIM_SOURCE_DIR) / "scenarios";

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The default scenario with one line replaced (matched by regex), so each bad-input case is a
// one-line edit of a real configuration.
std::string edited(const std::string& pattern, const std::string& replacement) {
  const std::string text = read_text(kScenarios / "deepseek_v3_train.toml");
  const std::string out = std::regex_replace(text, std::regex(pattern), replacement);
  REQUIRE(out != text);
  return out;
}

int line_of(const std::string& text, const std::string& needle) {
  const auto pos = text.find(needle);
  REQUIRE(pos != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

// Loads `text` and returns the InputError it must raise.
InputError error_of(const std::string& text, const std::vector<Override>& overrides = {}) {
  try {
    load_scenario_from_string(text, "bad.toml", overrides);
  } catch (const InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  throw;  // unreachable
}

}  // namespace

TEST_CASE("every shipped scenario parses and validates") {
  int count = 0;
  for (const auto& entry : fs::directory_iterator(kScenarios)) {
    if (entry.path().extension() != ".toml") continue;
    INFO(entry.path());
    const Scenario s = load_scenario(entry.path());
    CHECK_FALSE(s.name.empty());
    CHECK_FALSE(s.source.empty());
    CHECK(s.hardware.gpus == s.parallel.world_size());
    CHECK((s.model.layers + s.parallel.extra_stage_layers) % s.parallel.stage_count() == 0);
    ++count;
  }
  CHECK(count >= 4);
}

TEST_CASE("the DeepSeek-V3 training scenario holds the report's configuration") {
  const Scenario s = load_scenario(kScenarios / "deepseek_v3_train.toml");
  CHECK(s.model.layers == 61);
  CHECK(s.model.attention == AttentionKind::MLA);
  CHECK(s.model.kv_heads == 1);
  CHECK(s.model.routed_experts == 256);
  CHECK(s.parallel.pp == 16);
  CHECK(s.parallel.dp == 128);  // derived: 2048 / (TP 1 x PP 16)
  CHECK(s.parallel.ep == 64);
  CHECK(s.parallel.schedule == Schedule::DualPipe);
  CHECK(s.precision.gemm == DType::FP8);
  CHECK(s.hardware.gpu.name == "H800 SXM5 80GB");
  CHECK(s.hardware.gpu.nvlink_gbps == 200);
  CHECK(s.hardware.price_per_gpu_hour == 2.0);
  CHECK(default_scenario_path().filename() == "deepseek_v3_train.toml");
}

TEST_CASE("hardware catalog holds the datasheet values") {
  const auto& h800 = find_gpu("H800").gpu;
  CHECK(h800.hbm_gbps == 3350);
  CHECK(h800.bf16_tflops == 989);
  CHECK(find_gpu("H200").gpu.hbm_gbps == 4800);
  CHECK(find_gpu("A100").gpu.fp8_tflops == 0);
  for (const auto& e : hardware_catalog()) CHECK_FALSE(e.gpu.source.empty());
  CHECK_THROWS_WITH(find_gpu("X100"), Catch::Contains("unknown GPU 'X100'"));
}

TEST_CASE("bad input names the file, line and key") {
  struct Case {
    const char* what;
    std::string pattern, replacement, key, message, line_needle;
  };
  const std::vector<Case> cases{
      {"unknown key", "\nlayers = 61", "\nlayrs = 61", "model.layrs", "did you mean 'model.layers'", "layrs"},
      {"wrong type", "pp = 16", "pp = \"16\"", "parallel.pp", "expected integer", "pp = \"16\""},
      {"float for integer", "pp = 16", "pp = 16.0", "parallel.pp", "got a float", "pp = 16.0"},
      {"out of range", "zero_stage = 1", "zero_stage = 4", "parallel.zero_stage", "out of range", "zero_stage = 4"},
      {"negative size", "hidden = 7168", "hidden = -7168", "model.hidden", "out of range", "hidden = -7168"},
      {"NaN", "overlap|extra_stage_layers = 3", "extra_stage_layers = 3\noverlap = nan",
       "parallel.overlap", "not a finite number", "overlap = nan"},
      {"bad enum", "schedule = \"dualpipe\"", "schedule = \"dual-pipe\"", "parallel.schedule",
       "expected one of 1f1b", "dual-pipe"},
      {"layers not divisible by PP", "layers = 61", "layers = 60", "parallel.pp", "not divisible", "pp = 16"},
      {"EP larger than experts", "ep = 64", "ep = 512", "parallel.ep", "larger than the 256 routed experts", "ep = 512"},
      {"DualPipe with odd PP", "pp = 16\n", "pp = 15\n", "parallel.pp", "even number of ranks", "pp = 15"},
      {"too few micro-batches", "micro_batches = 120", "micro_batches = 30", "parallel.micro_batches",
       ">= 2 x PP = 32", "micro_batches = 30"},
      {"top-k > experts", "top_k = 8", "top_k = 300", "model.moe.top_k", "exceeds routed experts", "top_k = 300"},
      {"GPU count mismatch", "gpus = 2048", "gpus = 2040", "hardware.gpus", "do not split", "gpus = 2040"},
      {"unknown GPU", "gpu = \"H800\"", "gpu = \"H900\"", "hardware.gpu", "unknown GPU", "H900"},
      {"missing calibration file", "\\[workload\\]", "[calibration]\nprofile = \"nope.json\"\n[workload]",
       "calibration.profile", "file not found", "nope.json"},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      const std::string text = edited(c.pattern, c.replacement);
      const InputError e = error_of(text);
      CHECK(e.key() == c.key);
      CHECK_THAT(e.reason(), Catch::Contains(c.message));
      CHECK(e.where().file == "bad.toml");
      CHECK(e.where().line == line_of(text, c.line_needle));
      CHECK_THAT(std::string(e.what()),
                 Catch::StartsWith("bad.toml:" + std::to_string(e.where().line) + ": " + c.key + ": "));
    }
  }
}

TEST_CASE("missing required keys and TOML syntax errors point at a line") {
  const InputError missing = error_of(edited("\nlayers = 61\n", "\n"));
  CHECK(missing.key() == "model.layers");
  CHECK_THAT(missing.reason(), Catch::StartsWith("missing"));
  CHECK(missing.where().line > 0);

  const std::string broken = edited("hidden = 7168", "hidden = = 7168");
  const InputError syntax = error_of(broken);
  CHECK_THAT(syntax.reason(), Catch::Contains("TOML syntax error"));
  CHECK(syntax.where().line == line_of(broken, "hidden = = 7168"));

  CHECK_THROWS_WITH(load_scenario("/no/such/scenario.toml"), Catch::Contains("cannot open scenario file"));
}

TEST_CASE("overrides from --set go through the same validation") {
  const std::string text = read_text(kScenarios / "deepseek_v3_train.toml");
  SECTION("valid overrides change the value") {
    const Scenario s = load_scenario_from_string(
        text, "x.toml",
        {parse_override("parallel.pp=8"), parse_override("parallel.schedule=1f1b"),
         parse_override("parallel.overlap=0.5"), parse_override("precision.gemm=\"bf16\""),
         parse_override("model.mhc.n=4")});
    CHECK(s.parallel.pp == 8);
    CHECK(s.parallel.dp == 256);
    CHECK(s.parallel.schedule == Schedule::OneF1B);
    CHECK(s.parallel.overlap == 0.5);
    CHECK(s.precision.gemm == DType::BF16);
    CHECK(s.model.mhc_n == 4);
    CHECK(s.model.residual == ResidualKind::MHC);  // n > 1 without an explicit kind
  }
  SECTION("invalid overrides are reported against --set") {
    const InputError e = error_of(text, {parse_override("parallel.pp=abc")});
    CHECK(e.key() == "parallel.pp");
    CHECK(e.where().file == "--set");
    CHECK(std::string(e.what()) == "--set: parallel.pp: expected integer in [1, 4096] (got a string)");
    CHECK(error_of(text, {parse_override("parallel.pp=15")}).reason().find("even") != std::string::npos);
    CHECK(error_of(text, {parse_override("parallel.ppp=8")}).reason() ==
          "unknown key (did you mean 'parallel.pp'?)");
  }
  SECTION("malformed --set text") {
    CHECK_THROWS_AS(parse_override("parallel.pp"), InputError);
    CHECK_THROWS_AS(parse_override("=3"), InputError);
  }
}

TEST_CASE("FP8 GEMMs are rejected on a GPU without FP8") {
  const std::string text = read_text(kScenarios / "deepseek_v3_train.toml");
  const InputError e = error_of(text, {parse_override("hardware.gpu=A100")});
  CHECK(e.key() == "precision.gemm");
  CHECK_THAT(e.reason(), Catch::Contains("no FP8"));
}
