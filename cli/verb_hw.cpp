// `mhcsim hw`: the hardware catalog as a table or JSON.
#include <iostream>
#include <memory>

#include "common.h"
#include "mhcsim/api/hw.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_hw(CLI::App& app) {
  struct Options {
    OutputOptions out;
    std::string hardware_path;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("hw", "List the hardware catalog (GPUs, their servers and NVLink domains, prices)");
  add_output_options(*cmd, opts->out);
  add_hardware_option(*cmd, opts->hardware_path);
  cmd->callback([opts] {
    const auto catalog = scenarios::catalog_entries(opts->hardware_path);
    if (opts->out.json) {
      const auto file = opts->hardware_path.empty() ? nlohmann::json() : nlohmann::json(opts->hardware_path);
      return Output{true, {"hw", "", "", {}}}.print_document({{"hardware_file", file}},
                                                             {{"rows", api::catalog_rows(catalog)}});
    }
    api::catalog_table(catalog).print_text(std::cout);
    std::cout << "# sources:\n";
    for (const auto& e : catalog) {
      std::cout << "#   " << e.key << ": " << e.gpu.source << "\n";
      if (!e.node.price_source.empty()) std::cout << "#   " << e.key << " price: " << e.node.price_source << "\n";
    }
  });
}

}  // namespace mhcsim::cli
