// Scenario parsing and validation (issue 2): every shipped file parses; every class of bad
// input names the key and the line; --set overrides go through the same validation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/catalog.h"
#include "mhcsim/scenarios/describe.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/scenarios/template.h"

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

// The default scenario (or `text`) with one line replaced (matched by regex), so each
// bad-input case is a one-line edit of a real configuration.
std::string edited(const std::string& pattern, const std::string& replacement,
                   const std::string& text = read_text(kScenarios / "deepseek_v3_train.toml")) {
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

// A small dense GPT in the shape of Megatron-LM's runs, for the keys the DeepSeek-V3 file does
// not use: DP = 64 / (TP 2 x PP 2) = 16 when CP is 1.
const std::string kGpt = R"(name = "gpt"
[model]
layers = 8
hidden = 1024
vocab = 51200
attention = "mha"
heads = 16
head_dim = 64
ffn_hidden = 4096
[hardware]
gpu = "A100"
gpus = 64
[parallel]
tp = 2
pp = 2
[workload]
mode = "train"
seq_len = 2048
micro_batch_seqs = 2
)";

// kGpt with `lines` added at the end of `[table]`.
std::string gpt_with(const std::string& table, const std::string& lines) {
  return edited("\\[" + table + "\\]\n", "[" + table + "]\n" + lines + "\n", kGpt);
}

// kGpt with a [published] table holding `lines`.
std::string gpt_published(const std::string& lines) { return kGpt + "[published]\n" + lines + "\n"; }

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
  CHECK(s.hardware.gpu.nvlink_gb_per_s == 200);
  CHECK(s.hardware.price_per_gpu_hour == 2.0);
  CHECK(default_scenario_path().filename() == "deepseek_v3_train.toml");
}

TEST_CASE("hardware catalog holds the datasheet values") {
  const auto& h800 = find_gpu("H800").gpu;
  CHECK(h800.hbm_gb_per_s == 3350);
  CHECK(h800.bf16_tflops == 989);
  CHECK(find_gpu("H200").gpu.hbm_gb_per_s == 4800);
  CHECK(find_gpu("A100").gpu.fp8_tflops == 0);
  for (const auto& e : hardware_catalog()) {
    INFO(e.key);
    CHECK_FALSE(e.gpu.source.empty());
    CHECK(e.node.price_per_gpu_hour > 0);  // every shipped entry is priced, with where from
    CHECK_FALSE(e.node.price_source.empty());
    CHECK(e.node.nvlink_domain() >= e.node.gpus_per_node);
  }
  CHECK_THROWS_WITH(find_gpu("X100"), Catch::Contains("unknown GPU 'X100'"));
  // Names match in any case; the issue's `--set hardware.gpu=h100` was refused.
  CHECK(&find_gpu("h100") == &find_gpu("H100"));
  CHECK(&find_gpu("mi300x") == &find_gpu("MI300X"));
  // GB200 NVL72: 4-GPU trays in one 72-GPU NVLink domain (NVIDIA's NVL72 datasheet).
  const auto& gb200 = find_gpu("GB200").node;
  CHECK(gb200.gpus_per_node == 4);
  CHECK(gb200.nvlink_domain() == 72);
  CHECK(find_gpu("B300").gpu.fp4_tflops == 13500);
  CHECK(find_gpu("H800").node.nvlink_domain() == 8);  // no nvlink_domain_gpus: one server
}

namespace {
// A hardware file next to the test's scenario: one new GPU and an H800 with more HBM.
const char* kHardwareFile = R"([gpu.X9]
name = "X9 test accelerator"
source = "made up for the test"
hbm_gib = 96
hbm_gb_per_s = 4000
bf16_tflops = 500
fp8_tflops = 1000
fp32_tflops = 50
nvlink_gb_per_s = 450
sm_count = 100
l2_mib = 50
tdp_watts = 500
gpus_per_node = 4
nvlink_domain_gpus = 32
nic_gb_per_s_per_gpu = 50
nvlink_latency_us = 3
nic_latency_us = 4

[gpu.h800]
name = "H800 with 96 GiB"
source = "made up for the test"
hbm_gib = 96
hbm_gb_per_s = 3350
bf16_tflops = 989
fp8_tflops = 1979
fp32_tflops = 67
nvlink_gb_per_s = 200
sm_count = 132
l2_mib = 50
tdp_watts = 700
gpus_per_node = 8
nic_gb_per_s_per_gpu = 50
nvlink_latency_us = 3.33
nic_latency_us = 3.7
)";

fs::path write_file(const fs::path& dir, const std::string& name, const std::string& text) {
  fs::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}
}  // namespace

TEST_CASE("a hardware file adds and overrides GPUs at run time, relative to its scenario") {
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_hardware_file";
  write_file(dir, "hw.toml", kHardwareFile);
  const std::string base = read_text(kScenarios / "deepseek_v3_train.toml");
  // [hardware] catalog = "hw.toml" is read next to the scenario; hardware.gpu finds X9 in it.
  const auto scn = write_file(dir, "x9.toml", edited("gpu = \"H800\"", "gpu = \"x9\"\ncatalog = \"hw.toml\"", base));
  const Scenario s = load_scenario(scn);
  CHECK(s.hardware.gpu.name == "X9 test accelerator");
  CHECK(s.hardware.gpu.bf16_tflops == 500);
  CHECK(s.hardware.gpus_per_node == 4);
  CHECK(s.hardware.nvlink_domain() == 32);
  // The file's h800 overrides the shipped H800 (names match in any case).
  const Scenario h =
      load_scenario(kScenarios / "deepseek_v3_train.toml", {{"hardware.catalog", (dir / "hw.toml").string()}});
  CHECK(h.hardware.gpu.hbm_bytes == 96.0 * (1 << 30));
  // `hw --hardware` lists the file's two entries first, then the shipped ones but the H800.
  const auto listed = catalog_entries((dir / "hw.toml").string());
  REQUIRE(listed.size() == hardware_catalog().size() + 1);
  CHECK(listed[0].key == "X9");
  CHECK(listed[1].gpu.name == "H800 with 96 GiB");
  CHECK(std::count_if(listed.begin(), listed.end(), [](const auto& e) { return e.gpu.name.starts_with("H800"); }) == 1);
  CHECK(catalog_entries("").size() == hardware_catalog().size());
  // Without the file the shipped H800 stands.
  CHECK(load_scenario(kScenarios / "deepseek_v3_train.toml").hardware.gpu.hbm_bytes == 80.0 * (1 << 30));
  fs::remove_all(dir);
}

TEST_CASE("a hardware file edited while the process runs is read again (a Python session edits it)") {
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_hardware_edit";
  const auto file = write_file(dir, "hw.toml", kHardwareFile);
  const Scenario before = load_scenario(kScenarios / "deepseek_v3_train.toml",
                                        {{"hardware.catalog", file.string()}, {"hardware.gpu", "x9"}});
  CHECK(before.hardware.gpu.bf16_tflops == 500);
  // Same size, so only the write time tells (set a second on, past any clock's granularity).
  const auto written = fs::last_write_time(file);
  std::string edited_text = kHardwareFile;
  edited_text.replace(edited_text.find("bf16_tflops = 500"), 17, "bf16_tflops = 700");
  write_file(dir, "hw.toml", edited_text);
  fs::last_write_time(file, written + std::chrono::seconds(1));
  const Scenario after = load_scenario(kScenarios / "deepseek_v3_train.toml",
                                       {{"hardware.catalog", file.string()}, {"hardware.gpu", "x9"}});
  CHECK(after.hardware.gpu.bf16_tflops == 700);
  // An unchanged file is not read again: its entries are the very same object.
  CHECK(hardware_file(file) == hardware_file(file));
  // Broken after it was read: the error, not the entries kept from before.
  write_file(dir, "hw.toml", "[gpu.X9]\nname = 1\n");
  CHECK_THROWS_AS(hardware_file(file), InputError);
  fs::remove_all(dir);
}

TEST_CASE("bad hardware files name their own file, line and key") {
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_bad_hardware";
  struct Case {
    const char* what;
    std::string text, key, message, line_needle;
  };
  const std::string good = kHardwareFile;
  const auto with = [&](const std::string& from, const std::string& to) {
    const auto pos = good.find(from);
    REQUIRE(pos != std::string::npos);
    return std::string(good).replace(pos, from.size(), to);
  };
  const std::vector<Case> cases{
      {"old key name", with("hbm_gb_per_s = 4000", "hbm_gbps = 4000"), "gpu.X9.hbm_gbps",
       "unknown key (renamed 'gpu.X9.hbm_gb_per_s'", "hbm_gbps"},
      {"wrong type", with("sm_count = 100", "sm_count = \"many\""), "gpu.X9.sm_count", "expected integer in [1, 1024]",
       "sm_count = \"many\""},
      {"missing key", with("bf16_tflops = 500\n", ""), "gpu.X9.bf16_tflops", "missing", "[gpu.X9]"},
      {"price without source", with("nic_latency_us = 4\n", "nic_latency_us = 4\nprice_per_gpu_hour = 3\n"),
       "gpu.X9.price_source", "a price needs its source", "[gpu.X9]"},
      {"NVLink domain smaller than a server", with("nvlink_domain_gpus = 32", "nvlink_domain_gpus = 2"),
       "gpu.X9.nvlink_domain_gpus", "smaller than gpus_per_node 4", "nvlink_domain_gpus = 2"},
      {"other table", "[node]\n" + good, "node", "unknown table", "[node]"},
      // A link of 0 B/s passed `hw` and failed `step` without a file or line.
      {"no NVLink bandwidth", with("nvlink_gb_per_s = 450", "nvlink_gb_per_s = 0"), "gpu.X9.nvlink_gb_per_s",
       "out of range", "nvlink_gb_per_s = 0"},
      {"no gpu tables", "x = 1\n", "gpu", "missing [gpu.*] tables", "x = 1"},
  };
  int n = 0;
  for (const auto& c : cases) {
    INFO(c.what);
    const auto file = write_file(dir, "bad" + std::to_string(n++) + ".toml", c.text);
    try {
      load_scenario(kScenarios / "deepseek_v3_train.toml", {{"hardware.catalog", file.string()}});
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(e.key() == c.key);
      CHECK_THAT(e.reason(), Catch::Contains(c.message));
      CHECK(e.where().file == file.string());
      CHECK(e.where().line == line_of(c.text, c.line_needle));
    }
  }
  // A file that is not there is named at the key that asked for it.
  CHECK_THROWS_WITH(
      load_scenario(kScenarios / "deepseek_v3_train.toml", {{"hardware.catalog", (dir / "none.toml").string()}}),
      Catch::Contains("none.toml"));
  // A scenario's NVLink domain smaller than its servers.
  CHECK_THROWS_WITH(load_scenario(kScenarios / "deepseek_v3_train.toml", {{"hardware.nvlink_domain_gpus", "4"}}),
                    Catch::Contains("smaller than a server of 8"));
  fs::remove_all(dir);
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
      {"MTP depth out of range", "mtp_depth = 1", "mtp_depth = -1", "model.mtp_depth", "out of range",
       "mtp_depth = -1"},
      {"NaN", "\\boverlap = [0-9.]+|extra_stage_layers = 3", "extra_stage_layers = 3\noverlap = nan",
       "parallel.overlap", "not a finite number", "overlap = nan"},
      {"bad enum", "schedule = \"dualpipe\"", "schedule = \"dual-pipe\"", "parallel.schedule", "expected one of 1f1b",
       "dual-pipe"},
      {"layers not divisible by PP", "layers = 61", "layers = 60", "parallel.pp", "not divisible", "pp = 16"},
      {"EP larger than experts", "ep = 64", "ep = 512", "parallel.ep", "larger than the 256 routed experts",
       "ep = 512"},
      {"DualPipe with odd PP", "pp = 16\n", "pp = 15\n", "parallel.pp", "even number of ranks", "pp = 15"},
      {"too few micro-batches", "micro_batches = 120", "micro_batches = 30", "parallel.micro_batches", ">= 2 x PP = 32",
       "micro_batches = 30"},
      {"ZB-H1 with fewer micro-batches than PP", "schedule = \"dualpipe\"\n([^\n]*)\nmicro_batches = 120",
       "schedule = \"zb1p\"\n$1\nmicro_batches = 8", "parallel.micro_batches",
       "ZB-H1 needs micro_batches >= PP = 16 (got 8)", "micro_batches = 8"},
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
    const Scenario s =
        load_scenario_from_string(text, "x.toml",
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
    CHECK(error_of(text, {parse_override("name=\"\"")}).reason().starts_with("empty"));
    CHECK(error_of(text, {parse_override("parallel.ppp=8")}).reason() == "unknown key (did you mean 'parallel.pp'?)");
    // Digits past 64 bits on an integer key are out of range, not "a string"; what is no TOML
    // decimal integer (08, 1__6) is still a string, and a string key takes digits as its text.
    CHECK(error_of(text, {parse_override("parallel.pp=1180591620717411303424")}).reason() ==
          "1180591620717411303424 is out of range (an integer past 64 bits)");
    CHECK(error_of(text, {parse_override("parallel.overlap=1e400")}).reason() ==
          "1e400 is out of range (past a double)");
    CHECK(error_of(text, {parse_override("parallel.pp=08")}).reason().find("got a string") != std::string::npos);
    CHECK(error_of(text, {parse_override("parallel.pp=1__6")}).reason().find("got a string") != std::string::npos);
    CHECK(
        load_scenario_from_string(text, "x.toml", {parse_override("model.name=99999999999999999999999")}).model.name ==
        "99999999999999999999999");
  }
  SECTION("a --set only the other mode reads is refused; the same key in a file is not") {
    const InputError serving = error_of(text, {parse_override("workload.phase=\"prefill\"")});
    CHECK(serving.key() == "workload.phase");
    CHECK(serving.where().file == "--set");
    CHECK_THAT(serving.reason(), Catch::Contains("only for mode = serve"));
    const std::string serve_text = read_text(kScenarios / "deepseek_v3_serve.toml");
    CHECK_THAT(error_of(serve_text, {parse_override("workload.global_batch_seqs=64")}).reason(),
               Catch::Contains("only for mode = train"));
    // Serving splits its iterations itself: --set parallel.micro_batches=8 changed nothing.
    CHECK(error_of(serve_text, {parse_override("parallel.micro_batches=8")}).key() == "parallel.micro_batches");
    // A training file run as a service keeps its batch keys: a template, not overrides.
    const Scenario as_service = load_scenario_from_string(
        read_text(kScenarios / "llama3_70b_gqa.toml"), "llama.toml",
        {parse_override("workload.mode=\"serve\""), parse_override("parallel.pp=1"),
         parse_override("parallel.schedule=\"1f1b\""), parse_override("parallel.virtual_stages=1")});
    CHECK(as_service.workload.mode == WorkloadMode::Serve);
    const Scenario batch_file = load_scenario_from_string(
        read_text(kScenarios / "validation" / "korthikanti22_175b_full.toml"), "k.toml",
        {parse_override("workload.mode=\"serve\""), parse_override("parallel.pp=1"),
         parse_override("parallel.schedule=\"1f1b\""), parse_override("parallel.virtual_stages=1")});
    CHECK(batch_file.workload.global_batch_seqs > 0);  // in the file, read by training only
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

TEST_CASE("the op-level keys parse and default to the previous behaviour") {
  SECTION("defaults: SwiGLU, no CP or SP, FlashAttention, micro-batches as given, no [published]") {
    const Scenario s = load_scenario_from_string(kGpt, "gpt.toml");
    CHECK(s.model.mlp == MlpKind::SwiGLU);
    CHECK(s.parallel.cp == 1);
    CHECK_FALSE(s.parallel.sequence_parallel);
    CHECK(s.parallel.flash_attention);
    CHECK(s.parallel.dp == 16);
    CHECK(s.parallel.micro_batches == 1);
    CHECK(s.workload.global_batch_seqs == 0);
    CHECK_FALSE(s.published.has_value());
  }
  SECTION("every key set") {
    const std::string text = gpt_with("model", "mlp = \"gelu\"");
    const Scenario s = load_scenario_from_string(
        gpt_with("workload", "global_batch_seqs = 256"), "gpt.toml",
        {parse_override("model.mlp=gelu"), parse_override("parallel.cp=2"),
         parse_override("parallel.sequence_parallel=true"), parse_override("parallel.flash_attention=false"),
         parse_override("parallel.activation_recompute=attention")});
    CHECK(load_scenario_from_string(text, "gpt.toml").model.mlp == MlpKind::GeLU);
    CHECK(s.model.mlp == MlpKind::GeLU);
    CHECK(s.parallel.cp == 2);
    CHECK(s.parallel.dp == 8);  // 64 GPUs / (TP 2 x CP 2 x PP 2)
    CHECK(s.parallel.world_size() == 64);
    CHECK(s.parallel.sequence_parallel);
    CHECK_FALSE(s.parallel.flash_attention);
    CHECK(s.parallel.activation_recompute == ActivationRecompute::Attention);
    CHECK(s.workload.global_batch_seqs == 256);
    CHECK(s.parallel.micro_batches == 16);  // 256 / (DP 8 x 2 sequences)

    const nlohmann::json j = to_json(s);
    CHECK(j["model"]["mlp"] == "gelu");
    CHECK(j["parallel"]["cp"] == 2);
    CHECK(j["parallel"]["sequence_parallel"] == true);
    CHECK(j["parallel"]["flash_attention"] == false);
    CHECK(j["parallel"]["activation_recompute"] == "attention");
    CHECK(j["parallel"]["micro_batches"] == 16);
    CHECK(j["workload"]["global_batch_seqs"] == 256);
    CHECK(j["published"].is_null());
  }
}

TEST_CASE("workload.global_batch_seqs derives the micro-batches before the schedule checks") {
  SECTION("global = DP x micro_batch_seqs x micro_batches") {
    const Scenario s = load_scenario_from_string(gpt_with("workload", "global_batch_seqs = 1024"), "gpt.toml");
    CHECK(s.parallel.micro_batches == 32);  // 1024 / (DP 16 x 2)
  }
  SECTION("an explicit micro_batches that agrees is accepted") {
    const std::string text = gpt_with("parallel", "micro_batches = 32");
    CHECK(load_scenario_from_string(edited("seq_len = 2048", "seq_len = 2048\nglobal_batch_seqs = 1024", text),
                                    "gpt.toml")
              .parallel.micro_batches == 32);
  }
  SECTION("the interleaved schedule sees the derived count") {
    // 96 / (DP 16 x 2) = 3 micro-batches, not divisible by PP 2; nothing in the file says 3.
    const std::string text = gpt_with("parallel", "schedule = \"interleaved\"\nvirtual_stages = 2");
    const InputError e = error_of(edited("seq_len = 2048", "seq_len = 2048\nglobal_batch_seqs = 96", text));
    CHECK(e.key() == "parallel.micro_batches");
    CHECK_THAT(e.reason(), Catch::Contains("divisible by PP 2 (got 3)"));
    // A count the schedule accepts: 128 / 32 = 4.
    CHECK(
        load_scenario_from_string(edited("seq_len = 2048", "seq_len = 2048\nglobal_batch_seqs = 128", text), "gpt.toml")
            .parallel.micro_batches == 4);
  }
}

TEST_CASE("bad op-level and [published] keys name the key and the line") {
  struct Case {
    const char* what;
    std::string text, key, message, line_needle;
  };
  const std::vector<Case> cases{
      {"unknown MLP", gpt_with("model", "mlp = \"relu\""), "model.mlp", "expected one of swiglu|gelu", "mlp ="},
      {"unknown FP8 GEMM library", edited("\\[precision\\]", "[precision]\nfp8_gemm_kernels = \"cublas\""),
       "precision.fp8_gemm_kernels", "expected one of deepgemm|cutlass-3.6", "fp8_gemm_kernels"},
      {"CP out of range", gpt_with("parallel", "cp = 0"), "parallel.cp", "out of range (expected integer in [1, 1024])",
       "cp = 0"},
      {"CP dividing seq_len but not into 2 x CP chunks",
       edited("seq_len = 2048", "seq_len = 2052", gpt_with("parallel", "cp = 4")), "parallel.cp",
       "2052 does not split into 2 x CP = 8 chunks", "cp = 4"},
      {"GPUs not split over CP", edited("seq_len = 2048", "seq_len = 6144", gpt_with("parallel", "cp = 3")),
       "hardware.gpus", "64 GPUs do not split into TP 2 x CP 3 x PP 2", "gpus = 64"},
      {"explicit DP ignoring CP", gpt_with("parallel", "cp = 2\ndp = 16"), "hardware.gpus",
       "64 GPUs != TP 2 x CP 2 x PP 2 x DP 16 = 128", "gpus = 64"},
      {"SP without TP", edited("tp = 2", "tp = 1", gpt_with("parallel", "sequence_parallel = true")),
       "parallel.sequence_parallel", "needs parallel.tp > 1", "sequence_parallel"},
      {"flash_attention not a bool", gpt_with("parallel", "flash_attention = \"yes\""), "parallel.flash_attention",
       "expected true or false", "flash_attention"},
      {"unknown recompute", gpt_with("parallel", "activation_recompute = \"attn\""), "parallel.activation_recompute",
       "expected one of none|selective|full|attention", "activation_recompute"},
      {"global batch not divisible", gpt_with("workload", "global_batch_seqs = 100"), "workload.global_batch_seqs",
       "100 sequences do not split into DP 16 x micro_batch_seqs 2 = 32", "global_batch_seqs"},
      {"global batch out of range", gpt_with("workload", "global_batch_seqs = -1"), "workload.global_batch_seqs",
       "out of range", "global_batch_seqs"},
      {"global batch and micro_batches disagree",
       edited("seq_len = 2048", "seq_len = 2048\nglobal_batch_seqs = 256", gpt_with("parallel", "micro_batches = 4")),
       "parallel.micro_batches", "both parallel.micro_batches = 4 and workload.global_batch_seqs = 256 are given",
       "micro_batches = 4"},
      {"unknown published metric", gpt_published("source = \"x\"\ntflops = 100"), "published.tflops",
       "did you mean 'published.tflops_per_gpu'", "tflops ="},
      {"zero figure", gpt_published("source = \"x\"\nstep_time_s = 0"), "published.step_time_s", "0 is not > 0",
       "step_time_s"},
      {"negative figure", gpt_published("source = \"x\"\nmfu_pct = -40"), "published.mfu_pct", "is not > 0", "mfu_pct"},
      {"NaN figure", gpt_published("source = \"x\"\nmfu_pct = nan"), "published.mfu_pct", "not a finite number",
       "mfu_pct"},
      {"figure as a string", gpt_published("source = \"x\"\nmfu_pct = \"40\""), "published.mfu_pct",
       "expected a finite number > 0 (got a string)", "mfu_pct"},
      {"held_out not a bool", gpt_published("source = \"x\"\nheld_out = 1\nmfu_pct = 40"), "published.held_out",
       "expected true or false", "held_out"},
      {"published without source", gpt_published("tflops_per_gpu = 148"), "published.source", "missing", "[published]"},
      {"empty published table", gpt_published(""), "published.source", "missing", "[published]"},
      {"published without figure", gpt_published("source = \"x\"\nheld_out = true"), "published",
       "no figure (expected at least one of step_time_s, tflops_per_gpu", "[published]"},
  };
  for (const auto& c : cases) {
    SECTION(c.what) {
      const InputError e = error_of(c.text);
      CHECK(e.key() == c.key);
      CHECK_THAT(e.reason(), Catch::Contains(c.message));
      CHECK(e.where().file == "bad.toml");
      CHECK(e.where().line == line_of(c.text, c.line_needle));
    }
  }
}

TEST_CASE("a [published] table round-trips into Scenario::published and the JSON") {
  const std::string text =
      gpt_published("source = \"SC21 Table 1\"\nheld_out = true\ntflops_per_gpu = 148\nstep_time_s = 12.5");
  const Scenario s = load_scenario_from_string(text, "case.toml");
  REQUIRE(s.published.has_value());
  CHECK(s.published->source == "SC21 Table 1");
  CHECK(s.published->held_out);
  REQUIRE(s.published->figures.size() == 2);
  // Schema order: published_metric_names() lists step_time_s before tflops_per_gpu.
  CHECK(s.published->figures[0].metric == "step_time_s");
  CHECK(s.published->figures[0].value == 12.5);
  CHECK(s.published->figures[0].line == line_of(text, "step_time_s"));
  CHECK(s.published->figures[1].metric == "tflops_per_gpu");
  CHECK(s.published->figures[1].value == 148);
  CHECK(s.published->figures[1].line == line_of(text, "tflops_per_gpu"));

  const nlohmann::json j = to_json(s)["published"];
  CHECK(j["source"] == "SC21 Table 1");
  CHECK(j["held_out"] == true);
  CHECK(j["figures"] == nlohmann::json{{"step_time_s", 12.5}, {"tflops_per_gpu", 148.0}});

  SECTION("held_out defaults to false") {
    const Scenario d = load_scenario_from_string(gpt_published("source = \"x\"\nmfu_pct = 40"), "case.toml");
    REQUIRE(d.published.has_value());
    CHECK_FALSE(d.published->held_out);
  }
  SECTION("--set adds or replaces a figure, through the same schema") {
    const Scenario o = load_scenario_from_string(
        text, "case.toml", {parse_override("published.mfu_pct=52"), parse_override("published.step_time_s=10")});
    REQUIRE(o.published->figures.size() == 3);
    CHECK(o.published->figures[0].value == 10);
    CHECK(o.published->figures[0].line == 0);  // from --set, not from the file
    CHECK(o.published->figures[2].metric == "mfu_pct");
    CHECK(o.published->figures[2].value == 52);
    CHECK(error_of(text, {parse_override("published.mfu=52")}).reason() ==
          "unknown key (did you mean 'published.mfu_pct'?)");
  }
  SECTION("the sweep's template reads the same table") {
    ScenarioTemplate t(text, "case.toml");
    const Scenario i = t.instantiate(std::vector<Override>{parse_override("published.mfu_pct=52")});
    REQUIRE(i.published.has_value());
    CHECK(to_json(i)["published"]["figures"]["mfu_pct"] == 52.0);
    CHECK(i.published->figures.size() == 3);
    CHECK(ScenarioTemplate(kGpt, "gpt.toml").instantiate(std::vector<int>{}).published == std::nullopt);
  }
}

TEST_CASE("the key listing has the new keys, one per published metric") {
  std::vector<std::string> keys;
  for (const auto& k : scenario_keys()) keys.push_back(k.key);
  auto has = [&](const std::string& key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  for (const char* key : {"model.mlp", "parallel.cp", "parallel.sequence_parallel", "parallel.flash_attention",
                          "workload.global_batch_seqs", "published.source", "published.held_out"})
    CHECK(has(key));
  for (const auto& metric : published_metric_names()) CHECK(has("published." + metric));
}

TEST_CASE("nesting past 64 levels is refused before toml++ recurses (40,000 parts overflowed its stack)") {
  using Catch::Contains;
  const std::string text = read_text(kScenarios / "deepseek_v3_train.toml");
  const int line = static_cast<int>(std::count(text.begin(), text.end(), '\n')) + 2;
  std::string key = "a";
  for (int part = 1; part < 40000; ++part) key += ".a";
  for (const std::string& deep : {key + " = 1", "[" + key + "]", "x = " + std::string(40000, '[')}) {
    const InputError e = error_of(text + "\n" + deep + "\n");
    CHECK_THAT(e.reason(), Contains("nesting deeper than 64 levels"));
    CHECK(e.where().line == line);
  }
  CHECK_THROWS_WITH(load_scenario_from_string(text, "x.toml", {{"model.layers", std::string(100, '[')}}),
                    Contains("--set: model.layers: nesting deeper than 64 levels"));
  CHECK_THROWS_WITH(ScenarioTemplate(text + "\n" + key + " = 1\n", "t.toml", {}), Contains("nesting deeper than 64"));
  CHECK_THROWS_WITH(load_scenario("/dev/zero"), Contains("/dev/zero: cannot open scenario file (a character device"));
  CHECK_THROWS_WITH(load_scenario(kScenarios), Contains("cannot open scenario file (a directory"));
}
