// `scenario --from-hf` (issue 17 item 6): Hugging Face configs of four families give the model
// sections the shipped scenarios hold by hand, and what a config cannot say is asked for.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/describe.h"
#include "mhcsim/scenarios/from_hf.h"
#include "mhcsim/scenarios/load.h"

using namespace mhcsim;
using namespace mhcsim::scenarios;
namespace fs = std::filesystem;

namespace {

const fs::path kSource(MHCSIM_SOURCE_DIR);

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string config(const std::string& name) { return read_text(kSource / "tests/scenarios/data/hf" / name); }

Scenario from(const std::string& json_text, const HfAnswers& a) {
  return load_scenario_from_string(scenario_from_hf(json_text, "config.json", a), "generated.toml");
}

// The model section as `scenario --json` shows it, without the display name.
nlohmann::json model_of(const Scenario& s) {
  auto m = to_json(s)["model"];
  m.erase("name");
  return m;
}

HfAnswers on(std::string gpu, int64_t gpus, int64_t tp = 1, int64_t pp = 1, int64_t ep = 1) {
  HfAnswers a;
  a.gpu = std::move(gpu);
  a.gpus = gpus;
  a.tp = tp;
  a.pp = pp;
  a.ep = ep;
  return a;
}

std::string error_of(const std::string& json_text, const HfAnswers& a) {
  try {
    (void)scenario_from_hf(json_text, "config.json", a);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("from-hf: DeepSeek-V3's config gives the shipped DeepSeek-V3 model, FP8 GEMMs") {
  // PP 16 needs the shipped file's extra_stage_layers (61 layers): refused with why and the
  // answer that evens it out, which then gives the shipped layout.
  const std::string uneven = error_of(config("deepseek_v3.json"), on("H800", 2048, 1, 16, 64));
  CHECK(uneven.find("parallel.pp: model.layers 61") != std::string::npos);
  CHECK(uneven.find("--extra-stage-layers N") != std::string::npos);
  auto pp16 = on("H800", 2048, 1, 16, 64);
  pp16.extra_stage_layers = 3;
  const Scenario staged = from(config("deepseek_v3.json"), pp16);
  CHECK(staged.parallel.pp == 16);
  CHECK(staged.parallel.extra_stage_layers == 3);
  const Scenario s = from(config("deepseek_v3.json"), on("H800", 2048, 1, 1, 64));
  const Scenario shipped = load_scenario(kSource / "scenarios/deepseek_v3_train.toml");
  CHECK(model_of(s) == model_of(shipped));
  CHECK(s.model.name == "DeepseekV3");
  CHECK(s.precision.gemm == shipped.precision.gemm);
  CHECK(s.parallel.ep == 64);
  CHECK(s.workload.seq_len == 4096);  // min(4096, max_position_embeddings 163840)
}

TEST_CASE("from-hf: Llama-3-70B's config gives the shipped GQA model") {
  HfAnswers a = on("H100", 512, 8, 4);
  a.name = "Llama-3-70B";
  a.seq_len = 8192;
  const Scenario s = from(config("llama3_70b.json"), a);
  const Scenario shipped = load_scenario(kSource / "scenarios/llama3_70b_gqa.toml");
  CHECK(model_of(s) == model_of(shipped));
  CHECK(s.model.name == "Llama-3-70B");
  CHECK(s.name == "llama-3-70b");
  CHECK(s.workload.seq_len == 8192);
}

TEST_CASE("from-hf: Mixtral's experts and Qwen-MoE's shared expert") {
  const Scenario mixtral = from(config("mixtral_8x7b.json"), on("H100", 64, 1, 1, 8));
  CHECK(mixtral.model.routed_experts == 8);
  CHECK(mixtral.model.top_k == 2);
  CHECK(mixtral.model.expert_ffn_hidden == 14336);  // intermediate_size is each expert's
  CHECK(mixtral.model.dense_layers == 0);
  CHECK(mixtral.model.shared_experts == 0);
  CHECK(mixtral.model.kv_heads == 8);
  CHECK(mixtral.model.head_dim == 128);

  HfAnswers serve = on("A100", 8, 1, 1, 4);
  serve.mode = "serve";
  const Scenario qwen = from(config("qwen15_moe_a27b.json"), serve);
  CHECK(qwen.model.routed_experts == 60);
  CHECK(qwen.model.expert_ffn_hidden == 1408);
  CHECK(qwen.model.shared_experts == 4);  // one 5632-wide shared expert = 4 x 1408
  CHECK(qwen.model.attention == AttentionKind::MHA);
  CHECK(qwen.workload.mode == WorkloadMode::Serve);
}

TEST_CASE("from-hf: what the config cannot say is asked for; bad fields are named") {
  const std::string llama = config("llama3_70b.json");
  const std::string none = error_of(llama, HfAnswers{});
  CHECK(none.find("--gpu") != std::string::npos);
  CHECK(none.find("--gpus") != std::string::npos);

  auto bad = nlohmann::json::parse(llama);
  bad["hidden_size"] = "8192";
  CHECK(error_of(bad.dump(), on("H100", 8)).find("config.json: hidden_size: expected an integer") == 0);
  bad = nlohmann::json::parse(llama);
  bad.erase("num_hidden_layers");
  CHECK(error_of(bad.dump(), on("H100", 8)).find("num_hidden_layers: missing") != std::string::npos);
  bad = nlohmann::json::parse(config("qwen15_moe_a27b.json"));
  bad["decoder_sparse_step"] = 2;
  CHECK(error_of(bad.dump(), on("H100", 8)).find("decoder_sparse_step") != std::string::npos);
  bad = nlohmann::json::parse(llama);
  bad["hidden_act"] = "relu";
  CHECK(error_of(bad.dump(), on("H100", 8)).find("hidden_act") != std::string::npos);

  // The answers meet the model's rules: TP 3 does not divide 64 heads; no such GPU.
  CHECK(error_of(llama, on("H100", 24, 3)).find("parallel.tp") != std::string::npos);
  CHECK(error_of(llama, on("H9000", 8)).find("hardware.gpu") != std::string::npos);
  CHECK(error_of("{\"hidden_size\": ", on("H100", 8)).find("config.json") == 0);
  CHECK(error_of("[1, 2]", on("H100", 8)).find("expected a JSON object") != std::string::npos);
}
