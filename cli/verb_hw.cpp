// `mhcsim hw`: the hardware catalog as a table or JSON.
#include <iostream>
#include <memory>

#include "common.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/catalog.h"
#include "mhcsim/units.h"
#include "verbs.h"

namespace mhcsim::cli {

namespace {
nlohmann::json entry_json(const scenarios::CatalogEntry& e) {
  const auto& g = e.gpu;
  return {{"key", e.key},
          {"name", g.name},
          {"hbm_bytes", g.hbm_bytes},
          {"hbm_gb_per_s", g.hbm_gb_per_s},
          {"bf16_tflops", g.bf16_tflops},
          {"fp8_tflops", g.fp8_tflops},
          {"fp4_tflops", g.fp4_tflops},
          {"fp32_tflops", g.fp32_tflops},
          {"nvlink_gb_per_s_per_direction", g.nvlink_gb_per_s},
          {"sm_count", g.sm_count},
          {"l2_bytes", g.l2_bytes},
          {"tdp_watts", g.tdp_watts},
          {"gpus_per_node", e.node.gpus_per_node},
          {"nvlink_domain_gpus", e.node.nvlink_domain()},
          {"nic_gb_per_s_per_gpu", e.node.nic_gb_per_s_per_gpu},
          {"nvlink_latency_us", e.node.nvlink_latency_us},
          {"nic_latency_us", e.node.nic_latency_us},
          {"price_per_gpu_hour", e.node.price_per_gpu_hour},
          {"price_source", e.node.price_source},
          {"source", g.source}};
}
}  // namespace

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
      nlohmann::json rows = nlohmann::json::array();
      for (const auto& e : catalog) rows.push_back(entry_json(e));
      const auto file = opts->hardware_path.empty() ? nlohmann::json() : nlohmann::json(opts->hardware_path);
      return Output{true, {"hw", "", "", {}}}.print_document({{"hardware_file", file}}, {{"rows", rows}});
    }
    reports::Table t("hardware catalog (dense peaks; NVLink and NIC per GPU per direction)",
                     {{"gpu", "gpu"},
                      {"hbm_bytes", "HBM (GiB)", 0, 1.0 / kGiB},
                      {"hbm_gb_per_s", "HBM (GB/s)", 0},
                      {"bf16_tflops", "BF16 (TFLOP/s)", 0},
                      {"fp8_tflops", "FP8 (TFLOP/s)", 0},
                      {"fp4_tflops", "FP4 (TFLOP/s)", 0},
                      {"nvlink_gb_per_s", "NVLink (GB/s)", 0},
                      {"nic_gb_per_s_per_gpu", "NIC (GB/s)", 0},
                      {"sm_count", "SMs"},
                      {"l2_bytes", "L2 (MiB)", 0, 1.0 / kMiB},
                      {"gpus_per_node", "GPUs/node"},
                      {"nvlink_domain_gpus", "NVLink domain (GPUs)"},
                      {"price_per_gpu_hour", "USD/GPU-h", 2}});
    for (const auto& e : catalog)
      t.add_row({e.key, e.gpu.hbm_bytes, e.gpu.hbm_gb_per_s, e.gpu.bf16_tflops, e.gpu.fp8_tflops, e.gpu.fp4_tflops,
                 e.gpu.nvlink_gb_per_s, e.node.nic_gb_per_s_per_gpu, int64_t{e.gpu.sm_count}, e.gpu.l2_bytes,
                 int64_t{e.node.gpus_per_node}, int64_t{e.node.nvlink_domain()}, e.node.price_per_gpu_hour});
    t.print_text(std::cout);
    std::cout << "# sources:\n";
    for (const auto& e : catalog) {
      std::cout << "#   " << e.key << ": " << e.gpu.source << "\n";
      if (!e.node.price_source.empty()) std::cout << "#   " << e.key << " price: " << e.node.price_source << "\n";
    }
  });
}

}  // namespace mhcsim::cli
