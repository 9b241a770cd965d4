// `mhcsim scenario`: validate a scenario file (with --set overrides) and show what it holds;
// `--keys` lists the keys a file may hold; `--from-hf config.json` writes a scenario from a
// Hugging Face model config and the hardware and layout given as flags.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include <memory>

#include "common.h"
#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/input_file.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/describe.h"
#include "mhcsim/scenarios/from_hf.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/units.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {
void print_keys(bool json) {
  const auto keys = scenarios::scenario_keys();
  if (json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& k : keys) rows.push_back({{"key", k.key}, {"expected", k.expected}, {"required", k.required}});
    return Output{true, {"scenario", "", "", {}}}.print_document({{"keys", true}}, {{"rows", rows}});
  }
  reports::Table t("scenario keys", {{"key", "key"}, {"expected", "expected"}, {"required", "required"}});
  for (const auto& k : keys) t.add_row({k.key, k.expected, std::string(k.required ? "yes" : "")});
  t.print_text(std::cout);
}
struct FromHf {
  std::string config_path;
  scenarios::HfAnswers answers;
  std::string output;  // -o FILE.toml; empty: stdout
  bool force = false;
};

// --force replaces a file only when mhcsim wrote it (its first line is the marker).
bool written_by_from_hf(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string first;
  return std::getline(in, first) && first.rfind(scenarios::kFromHfMarker, 0) == 0;
}

void from_hf(const FromHf& o) {
  if (!o.output.empty()) {
    // The TOML says who wrote it in its first line, not in a JSON written_by key.
    require_output_file(std::filesystem::path(o.output), o.force, "-o", written_by_from_hf,
                        "mhcsim scenario --from-hf");
  }
  const std::string text = read_input_file(o.config_path, {"Hugging Face config", kMaxHandWrittenInputBytes});
  const std::string toml =
      scenarios::scenario_from_hf(text, std::filesystem::path(o.config_path).filename().string(), o.answers);
  if (o.output.empty()) {
    std::cout << toml;
    return;
  }
  write_file_atomically(o.output, toml);
  std::cerr << fmt::format("mhcsim: wrote {} (check it: mhcsim scenario -s {})\n", o.output, o.output);
}

}  // namespace

void setup_scenario(CLI::App& app) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
    bool keys = false;
    FromHf hf;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("scenario", "Validate a scenario file and print its configuration");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_flag("--keys", opts->keys, "List every key a scenario file may hold and what it expects");
  auto& hf = opts->hf;
  auto* from = cmd->add_option("--from-hf", hf.config_path,
                               "Write a scenario from a Hugging Face config.json (DeepSeek-V2/V3, Llama, Mistral, "
                               "Qwen, Mixtral, Qwen-MoE); needs --gpu and --gpus")
                   ->check(path_flag("a config.json"));
  from->excludes(cmd->get_option("--scenario"))
      ->excludes(cmd->get_option("--set"))
      ->excludes(cmd->get_option("--json"));
  const auto needs_config = [&](CLI::Option* o) { o->needs(from); };
  needs_config(
      cmd->add_option("--name", hf.answers.name, "With --from-hf: the model's name (default: its architecture)"));
  needs_config(
      cmd->add_option("--gpu", hf.answers.gpu, "With --from-hf: the GPU (a catalog name; mhcsim hw lists them)"));
  needs_config(
      cmd->add_option("--gpus", hf.answers.gpus, "With --from-hf: GPUs in all")->check(key_flag("hardware.gpus")));
  needs_config(cmd->add_option("--tp", hf.answers.tp, "With --from-hf: tensor parallel size")
                   ->check(key_flag("parallel.tp"))
                   ->capture_default_str());
  needs_config(cmd->add_option("--pp", hf.answers.pp, "With --from-hf: pipeline stages")
                   ->check(key_flag("parallel.pp"))
                   ->capture_default_str());
  needs_config(cmd->add_option("--extra-stage-layers", hf.answers.extra_stage_layers,
                               "With --from-hf: layer-equivalents for the embedding, output head and MTP modules, so "
                               "that the layers split evenly over --pp (parallel.extra_stage_layers)")
                   ->check(key_flag("parallel.extra_stage_layers"))
                   ->capture_default_str());
  needs_config(cmd->add_option("--ep", hf.answers.ep, "With --from-hf: expert parallel size (MoE)")
                   ->check(key_flag("parallel.ep"))
                   ->capture_default_str());
  needs_config(cmd->add_option("--mode", hf.answers.mode, "With --from-hf: workload, train or serve (decode)")
                   ->check(CLI::IsMember({"train", "serve"}))
                   ->capture_default_str());
  needs_config(cmd->add_option("--seq-len", hf.answers.seq_len,
                               "With --from-hf: tokens per sequence (train) or context (serve); default "
                               "min(4096, the model's maximum)")
                   ->check(key_flag("workload.seq_len")));
  needs_config(
      cmd->add_option("-o,--output", hf.output, "With --from-hf: write the scenario to FILE.toml (default: stdout)")
          ->check(path_flag()));
  needs_config(cmd->add_flag("--force", hf.force, "With --from-hf -o: replace a file an earlier --from-hf wrote"));
  cmd->callback([opts] {
    if (opts->keys) return print_keys(opts->out.json);
    if (!opts->hf.config_path.empty()) return from_hf(opts->hf);
    const Scenario s = load_scenario(opts->scn);
    if (opts->out.json)
      return Output{true, {"scenario", s.name, s.path, opts->scn.overrides}}.print_document({{"keys", false}},
                                                                                            scenarios::to_json(s));
    const auto& m = s.model;
    const auto& p = s.parallel;
    using reports::Quantity;
    reports::print_quantities(
        std::cout, fmt::format("scenario {} ({}): valid", s.name, s.path),
        {{"model", "model", m.name, ""},
         {"layers", "layers", m.layers, ""},
         {"hidden", "hidden size", m.hidden, ""},
         {"attention", "attention", std::string(to_string(m.attention)), ""},
         {"experts", "routed experts (top-k)", fmt::format("{} ({})", m.routed_experts, m.top_k), ""},
         {"residual", "residual stream", fmt::format("{} n={}", to_string(m.residual), m.mhc_n), ""},
         {"gpu", "GPU", s.hardware.gpu.name, ""},
         {"gpus", "GPUs", s.hardware.gpus, ""},
         {"hbm", "HBM per GPU", s.hardware.gpu.hbm_bytes, "GiB", 1.0 / kGiB, 1},
         {"parallel", "TP x PP x DP (EP)", fmt::format("{} x {} x {} ({})", p.tp, p.pp, p.dp, p.ep), ""},
         {"schedule", "schedule",
          fmt::format("{}{}, {} micro-batches, {} stages", to_string(p.schedule),
                      p.combined_1f1b ? " (combined 1F1B)" : "", p.micro_batches, p.stage_count()),
          ""},
         {"mode", "workload", std::string(to_string(s.workload.mode)), ""}});
  });
}

}  // namespace mhcsim::cli
