// Hugging Face config.json -> scenario TOML. Field names are transformers' configuration
// classes' (DeepseekV3Config, LlamaConfig, MixtralConfig, Qwen2MoeConfig, Qwen3MoeConfig): one
// reader per scenario key, trying each family's name for it in turn.
#include "mhcsim/scenarios/from_hf.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/json_nesting.h"
#include "mhcsim/scenarios/load.h"

namespace mhcsim::scenarios {
namespace {

using nlohmann::json;

class Config {
 public:
  Config(const json& doc, std::string file) : doc_(doc), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& reason) const {
    throw InputError(key, reason, {file_, 0});
  }
  bool has(const char* key) const { return doc_.contains(key) && !doc_[key].is_null(); }
  // A positive integer (JSON integer, or a float with no fraction: some exporters write 7168.0).
  std::optional<int64_t> count(const char* key, int64_t min = 1) const {
    if (!has(key)) return std::nullopt;
    const json& v = doc_[key];
    if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= min) return v.get<int64_t>();
    if (v.is_number_unsigned() && v.get<uint64_t>() <= uint64_t{1} << 40)
      return static_cast<int64_t>(v.get<uint64_t>());
    if (v.is_number_float() && v.get<double>() >= static_cast<double>(min) && v.get<double>() <= 1e12 &&
        v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>())))
      return static_cast<int64_t>(v.get<double>());
    fail(key, fmt::format("expected an integer >= {}, got {}", min, v.dump()));
  }
  int64_t required(const char* key) const {
    if (auto v = count(key)) return *v;
    fail(key, "missing (a Hugging Face config.json of a decoder-only transformer has it)");
  }
  // The first of `keys` that is present (families name the same figure differently).
  std::optional<int64_t> first(std::initializer_list<const char*> keys, int64_t min = 1) const {
    for (const char* k : keys)
      if (auto v = count(k, min)) return v;
    return std::nullopt;
  }
  std::string text(const char* key) const {
    if (!has(key)) return "";
    if (!doc_[key].is_string()) fail(key, fmt::format("expected a string, got {}", doc_[key].dump()));
    return doc_[key].get<std::string>();
  }
  bool flag(const char* key) const {
    if (!has(key)) return false;
    if (!doc_[key].is_boolean()) fail(key, fmt::format("expected true or false, got {}", doc_[key].dump()));
    return doc_[key].get<bool>();
  }
  const json& at(const char* key) const { return doc_[key]; }

 private:
  const json& doc_;
  std::string file_;
};

// A TOML basic string: JSON's string escapes are TOML's.
std::string quoted(const std::string& s) { return json(s).dump(); }

// Gated (SwiGLU) for silu/swish; GPT-2-style models' plain GeLU MLP.
std::string mlp_kind(const Config& c) {
  const std::string act = c.text("hidden_act").empty() ? c.text("hidden_activation") : c.text("hidden_act");
  if (act.empty() || act == "silu" || act == "swish") return "swiglu";
  const std::string type = c.text("model_type");
  const bool plain_mlp = type == "gpt2" || type == "gpt_neox" || type == "gptj" || type == "gpt_bigcode" ||
                         type == "opt" || type == "bloom" || type == "falcon";
  if (act.rfind("gelu", 0) == 0 && plain_mlp) return "gelu";
  c.fail("hidden_act", fmt::format("{:?} with model_type {:?} is not modelled (expected silu/swish, a gated "
                                   "SwiGLU MLP, or gelu in a GPT-2-style model)",
                                   act, type));
}

struct ModelText {
  std::string toml;
  int64_t max_tokens = 0;  // max_position_embeddings, 0 when absent
  bool moe = false;        // a [model.moe] table was written
};

ModelText model_section(const Config& c, const std::string& display_name) {
  std::vector<std::pair<std::string, std::string>> kv;
  const auto put = [&](const std::string& key, const std::string& value) { kv.emplace_back(key, value); };
  const auto num = [&](const std::string& key, int64_t v) { put(key, std::to_string(v)); };

  const int64_t hidden = c.required("hidden_size");
  const int64_t heads = c.required("num_attention_heads");
  put("name", quoted(display_name));
  num("layers", c.required("num_hidden_layers"));
  num("hidden", hidden);
  num("vocab", c.required("vocab_size"));
  num("heads", heads);
  if (c.has("kv_lora_rank")) {  // DeepSeek-V2/V3: multi-head latent attention
    put("attention", quoted("mla"));
    num("q_lora_rank", c.count("q_lora_rank").value_or(0));  // V2-Lite: null (no Q compression)
    num("kv_lora_rank", c.required("kv_lora_rank"));
    num("qk_nope_head_dim", c.required("qk_nope_head_dim"));
    num("qk_rope_head_dim", c.required("qk_rope_head_dim"));
    num("v_head_dim", c.required("v_head_dim"));
  } else {
    const int64_t kv_heads = c.count("num_key_value_heads").value_or(heads);
    if (heads % kv_heads != 0)
      c.fail("num_key_value_heads", fmt::format("{} does not divide num_attention_heads {}", kv_heads, heads));
    put("attention", quoted(kv_heads == heads ? "mha" : kv_heads == 1 ? "mqa" : "gqa"));
    num("kv_heads", kv_heads);
    std::optional<int64_t> head_dim = c.count("head_dim");
    if (!head_dim) {
      if (hidden % heads != 0)
        c.fail("head_dim",
               fmt::format("missing, and hidden_size {} is not a multiple of num_attention_heads {}", hidden, heads));
      head_dim = hidden / heads;
    }
    num("head_dim", *head_dim);
  }

  put("mlp", quoted(mlp_kind(c)));
  put("tied_embeddings", c.flag("tie_word_embeddings") ? "true" : "false");
  if (const auto mtp = c.count("num_nextn_predict_layers", 0); mtp && *mtp > 0) num("mtp_depth", *mtp);

  const auto experts = c.first({"n_routed_experts", "num_local_experts", "num_experts"});
  if (!experts || *experts <= 1) {  // dense
    num("ffn_hidden", c.required("intermediate_size"));
  } else {
    // Qwen-MoE: MoE on every decoder_sparse_step-th layer except mlp_only_layers. mhcsim's
    // layout is dense layers first, then MoE, which holds for step 1 and no exceptions.
    if (c.count("decoder_sparse_step").value_or(1) != 1)
      c.fail("decoder_sparse_step", "MoE on every k-th layer only is not modelled (expected 1)");
    if (c.has("mlp_only_layers") && !(c.at("mlp_only_layers").is_array() && c.at("mlp_only_layers").empty()))
      c.fail("mlp_only_layers", "dense layers between MoE layers are not modelled (expected [])");
    if (c.count("moe_layer_freq").value_or(1) != 1)
      c.fail("moe_layer_freq", "MoE on every k-th layer only is not modelled (expected 1)");
    const int64_t dense_layers = c.count("first_k_dense_replace", 0).value_or(0);
    // Mixtral has no moe_intermediate_size: its intermediate_size is each expert's.
    const int64_t expert_ffn =
        c.has("moe_intermediate_size") ? c.required("moe_intermediate_size") : c.required("intermediate_size");
    num("dense_layers", dense_layers);
    if (dense_layers > 0) num("ffn_hidden", c.required("intermediate_size"));
    int64_t shared = c.count("n_shared_experts", 0).value_or(0);
    if (const auto shared_ffn = c.count("shared_expert_intermediate_size", 0); shared_ffn && *shared_ffn > 0) {
      // Qwen2-MoE: one shared expert of 4 x 1408 is priced as 4 shared experts of 1408.
      if (*shared_ffn % expert_ffn != 0)
        c.fail("shared_expert_intermediate_size",
               fmt::format("{} is not a multiple of the routed experts' {} (mhcsim sizes shared experts "
                           "in routed-expert units)",
                           *shared_ffn, expert_ffn));
      shared = *shared_ffn / expert_ffn;
    }
    kv.emplace_back("\n[model.moe]", "");
    num("routed_experts", *experts);
    num("shared_experts", shared);
    num("top_k", c.required("num_experts_per_tok"));
    num("expert_ffn_hidden", expert_ffn);
    if (const auto groups = c.count("n_group"); groups && *groups > 1) {  // DeepSeek's node-limited routing
      num("groups", *groups);
      num("max_groups_per_token", c.required("topk_group"));
    }
  }

  std::string out = "[model]\n";
  for (const auto& [k, v] : kv) out += v.empty() ? k + "\n" : fmt::format("{} = {}\n", k, v);
  return {out, c.count("max_position_embeddings").value_or(0), experts && *experts > 1};
}

// DeepSeek-V3's checkpoint is FP8 (quantization_config.fmt e4m3): it was trained with FP8
// GEMMs, and its scenario plans with them; every other config is priced in BF16.
std::string gemm_precision(const Config& c) {
  if (!c.has("quantization_config") || !c.at("quantization_config").is_object()) return "bf16";
  const json& q = c.at("quantization_config");
  const bool fp8 = (q.contains("quant_method") && q["quant_method"] == "fp8") ||
                   (q.contains("fmt") && q["fmt"].is_string() && q["fmt"].get<std::string>().rfind("e4m3", 0) == 0);
  return fp8 ? "fp8" : "bf16";
}

std::string default_name(const Config& c, const std::string& file_name) {
  if (c.has("architectures") && c.at("architectures").is_array() && !c.at("architectures").empty() &&
      c.at("architectures")[0].is_string()) {
    std::string arch = c.at("architectures")[0].get<std::string>();
    for (const char* suffix : {"ForCausalLM", "ForConditionalGeneration"})
      if (const auto at = arch.rfind(suffix); at != std::string::npos && at > 0) arch.erase(at);
    return arch;
  }
  if (!c.text("model_type").empty()) return c.text("model_type");
  c.fail("architectures", fmt::format("{} names no architecture or model_type (give --name)", file_name));
}

std::string scenario_name(const std::string& s) {
  std::string out;
  for (const char ch : s) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '.' || ch == '_';
    out += keep ? ch : (ch >= 'A' && ch <= 'Z') ? static_cast<char>(ch - 'A' + 'a') : '-';
  }
  return out;
}

}  // namespace

std::string scenario_from_hf(const std::string& json_text, const std::string& file_name, const HfAnswers& a) {
  const json doc = parse_json_bounded(json_text, {file_name, 0});
  if (!doc.is_object())
    throw InputError("", fmt::format("expected a JSON object (a Hugging Face config.json), got {}", doc.type_name()),
                     {file_name, 0});
  const Config c(doc, file_name);
  // What a model card cannot say: asked for by flag, all at once.
  std::vector<std::string> missing;
  if (a.gpu.empty()) missing.push_back("--gpu NAME (mhcsim hw lists them)");
  if (a.gpus <= 0) missing.push_back("--gpus N");
  if (!missing.empty())
    throw InputError("--from-hf", fmt::format("{} says the model, not the hardware: give {}", file_name,
                                              fmt::join(missing, " and ")));
  if (a.mode != "train" && a.mode != "serve")
    throw InputError("--mode", fmt::format("{:?} is not a workload mode (expected train|serve)", a.mode));

  const std::string display = a.name.empty() ? default_name(c, file_name) : a.name;
  const ModelText model = model_section(c, display);
  const int64_t tokens = a.seq_len > 0          ? a.seq_len
                         : model.max_tokens > 0 ? std::min<int64_t>(4096, model.max_tokens)
                                                : 4096;

  std::string out = fmt::format("{} {}\n", kFromHfMarker, file_name);
  out +=
      "# The model section is the config's; hardware, parallel and workload are the answers given\n"
      "# on the command line (or mhcsim's defaults): check them before planning with it.\n";
  out += fmt::format("name = {}\nsource = {}\n\n", quoted(scenario_name(display)),
                     quoted("Hugging Face config.json (" + file_name + "); hardware and parallelism given, not read"));
  out += model.toml;
  out += fmt::format("\n[hardware]\ngpu = {}\ngpus = {}\n", quoted(a.gpu), a.gpus);
  out += fmt::format("\n[precision]\ngemm = {}\n", quoted(gemm_precision(c)));
  out += fmt::format("\n[parallel]\ntp = {}\npp = {}\n", a.tp, a.pp);
  if (a.extra_stage_layers > 0) out += fmt::format("extra_stage_layers = {}\n", a.extra_stage_layers);
  if (model.moe || a.ep != 1) out += fmt::format("ep = {}\n", a.ep);
  if (a.mode == "train")
    out += fmt::format("\n[workload]\nmode = \"train\"\nseq_len = {}\nmicro_batch_seqs = 1\n", tokens);
  else
    out += fmt::format("\n[workload]\nmode = \"serve\"\nphase = \"decode\"\ncontext_len = {}\n", tokens);
  // The answers are checked against the model here (TP dividing the heads, EP the experts, the
  // GPU in the catalog), with the key's own message.
  // The generated file's line numbers would point into text nobody has seen: the key and the
  // reason say which answer to change.
  try {
    (void)load_scenario_from_string(out, "");
  } catch (const InputError& e) {
    // Layers that do not split over the stages: say which answer evens them out.
    const std::string hint =
        e.key() == "parallel.pp" && e.reason().find("extra_stage_layers") != std::string::npos
            ? "; --extra-stage-layers N counts the embedding, output head and MTP modules as N more layers"
            : "";
    throw InputError(e.key(),
                     e.reason() + " (the scenario from the config and the answers given" + hint + "; nothing written)",
                     {file_name, 0});
  }
  return out;
}

}  // namespace mhcsim::scenarios
