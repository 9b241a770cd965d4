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
          {"hbm_gbps", g.hbm_gbps},
          {"bf16_tflops", g.bf16_tflops},
          {"fp8_tflops", g.fp8_tflops},
          {"fp32_tflops", g.fp32_tflops},
          {"nvlink_gbps_per_direction", g.nvlink_gbps},
          {"sm_count", g.sm_count},
          {"l2_bytes", g.l2_bytes},
          {"tdp_watts", g.tdp_watts},
          {"gpus_per_node", e.node.gpus_per_node},
          {"nic_gbps_per_gpu", e.node.nic_gbps_per_gpu},
          {"nvlink_latency_us", e.node.nvlink_latency_us},
          {"nic_latency_us", e.node.nic_latency_us},
          {"price_per_gpu_hour", e.node.price_per_gpu_hour},
          {"source", g.source}};
}
}  // namespace

void setup_hw(CLI::App& app) {
  auto opts = std::make_shared<OutputOptions>();
  auto* cmd = app.add_subcommand("hw", "List the hardware catalog (GPUs and their 8-GPU nodes)");
  add_output_options(*cmd, *opts);
  cmd->callback([opts] {
    const auto& catalog = scenarios::hardware_catalog();
    if (opts->json) {
      nlohmann::json doc = nlohmann::json::array();
      for (const auto& e : catalog) doc.push_back(entry_json(e));
      print_json(doc);
      return;
    }
    reports::Table t("hardware catalog (dense peaks; NVLink and NIC per GPU per direction)",
                     {{"gpu", "gpu"},
                      {"hbm_bytes", "HBM (GiB)", 0, 1.0 / kGiB},
                      {"hbm_gbps", "HBM (GB/s)", 0},
                      {"bf16_tflops", "BF16 (TFLOP/s)", 0},
                      {"fp8_tflops", "FP8 (TFLOP/s)", 0},
                      {"nvlink_gbps", "NVLink (GB/s)", 0},
                      {"nic_gbps_per_gpu", "NIC (GB/s)", 0},
                      {"sm_count", "SMs"},
                      {"l2_bytes", "L2 (MiB)", 0, 1.0 / kMiB},
                      {"gpus_per_node", "GPUs/node"}});
    for (const auto& e : catalog)
      t.add_row({e.key, e.gpu.hbm_bytes, e.gpu.hbm_gbps, e.gpu.bf16_tflops, e.gpu.fp8_tflops,
                 e.gpu.nvlink_gbps, e.node.nic_gbps_per_gpu, int64_t{e.gpu.sm_count},
                 e.gpu.l2_bytes, int64_t{e.node.gpus_per_node}});
    t.print_text(std::cout);
    std::cout << "# sources:\n";
    for (const auto& e : catalog) std::cout << "#   " << e.key << ": " << e.gpu.source << "\n";
  });
}

}  // namespace mhcsim::cli
