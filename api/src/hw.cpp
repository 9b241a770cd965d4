#include "mhcsim/api/hw.h"

#include "mhcsim/units.h"

namespace mhcsim::api {

nlohmann::json catalog_rows(const std::vector<scenarios::CatalogEntry>& catalog) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& e : catalog) {
    const auto& g = e.gpu;
    rows.push_back({{"key", e.key},
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
                    {"source", g.source}});
  }
  return rows;
}

reports::Table catalog_table(const std::vector<scenarios::CatalogEntry>& catalog) {
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
  return t;
}

}  // namespace mhcsim::api
