// `mhcsim scenario`: validate a scenario file (with --set overrides) and show what it holds.
#include <fmt/format.h>

#include <memory>

#include "common.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/describe.h"
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
}  // namespace

void setup_scenario(CLI::App& app) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
    bool keys = false;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("scenario", "Validate a scenario file and print its configuration");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_flag("--keys", opts->keys, "List every key a scenario file may hold and what it expects");
  cmd->callback([opts] {
    if (opts->keys) return print_keys(opts->out.json);
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
         {"schedule", "schedule", fmt::format("{}, {} micro-batches, {} stages",
                                              to_string(p.schedule), p.micro_batches, p.stage_count()), ""},
         {"mode", "workload", std::string(to_string(s.workload.mode)), ""}});
  });
}

}  // namespace mhcsim::cli
