// `mhcsim traffic`: residual / HC / mHC memory traffic (mHC paper Table 2) per token and per
// step, fused and unfused, and the recompute scheme's activation memory (api/traffic.h).
#include <memory>

#include "common.h"
#include "mhcsim/api/traffic.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_traffic(CLI::App& app) {
  auto n_option = std::make_shared<int64_t>(0);
  auto* cmd = add_scenario_verb(app, "traffic", "mHC / HC / residual memory traffic per token and step (paper Table 2)",
                                [n_option](const Scenario& s, const Output& out) {
                                  const auto t = api::traffic(s, *n_option);
                                  auto inputs = api::scenario_inputs(s);
                                  inputs["n"] = *n_option > 0 ? *n_option : s.model.mhc_n;
                                  if (out.json) return out.print_document(std::move(inputs), api::to_json(t));
                                  t.rows.print_text(std::cout);
                                  reports::print_quantities(std::cout, "per step: " + s.name, t.summary);
                                });
  cmd->add_option("--n", *n_option, "Expansion rate n (default: model.mhc_n; n > 1 turns a residual model into mHC)")
      ->check(key_flag("model.mhc.n"));
}

}  // namespace mhcsim::cli
