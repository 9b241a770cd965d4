#pragma once
// A scenario from a Hugging Face `config.json` (issue 17 item 6): the model section comes from
// the file (DeepSeek-V2/V3 MLA + MoE, Llama / Mistral / Qwen dense GQA, Mixtral and Qwen-MoE
// experts); what a model card cannot say (the GPU, how many, the parallel layout, the
// workload) comes from the caller, who is asked for it by name when it is missing.
#include <cstdint>
#include <string>

namespace mhcsim::scenarios {

struct HfAnswers {
  std::string name;  // scenario name; empty: from the config's architecture
  std::string gpu;   // catalog GPU name (required)
  int64_t gpus = 0;  // total GPUs (required)
  int64_t tp = 1, pp = 1, ep = 1;
  int64_t extra_stage_layers = 0;  // parallel.extra_stage_layers: embedding / head / MTP as layers
  std::string mode = "train";      // train | serve
  int64_t seq_len = 0;             // tokens per training sequence / serving context; 0: min(4096, the model's maximum)
};

// The first line of every scenario written from a config: `scenario --from-hf -o FILE --force`
// replaces only a file that starts with it.
inline constexpr const char* kFromHfMarker = "# Written by mhcsim scenario --from-hf";

// The scenario's TOML text, validated by loading it (so the answers are checked against the
// model: TP dividing the heads, EP the experts...). Throws InputError naming `file_name` and
// the config key (`config.json: num_attention_heads: expected a positive integer, got "x"`)
// or the flag that is missing or out of range.
std::string scenario_from_hf(const std::string& json_text, const std::string& file_name, const HfAnswers& answers);

}  // namespace mhcsim::scenarios
