#include "mhcsim/scenarios/catalog.h"

#include "fields.h"
#include "mhcsim/units.h"

namespace mhcsim::scenarios {

extern const char* const kCatalogToml;

namespace {

constexpr const char* kCatalogFile = "scenarios/hardware/catalog.toml";

std::vector<Field<CatalogEntry>> catalog_schema(const std::string& p) {
  using E = CatalogEntry;
  // hbm_gib / l2_mib are stored in bytes; the lambdas convert after validation.
  return {
      string_field<E>(p + ".name", [](E& e, std::string v) { e.gpu.name = std::move(v); }, true),
      string_field<E>(p + ".source", [](E& e, std::string v) { e.gpu.source = std::move(v); }, true),
      float_field<E>(p + ".hbm_gib", 1, 4096, [](E& e) -> double& { return e.gpu.hbm_bytes; }, true),
      float_field<E>(p + ".hbm_gbps", 1, 1e5, [](E& e) -> double& { return e.gpu.hbm_gbps; }, true),
      float_field<E>(p + ".bf16_tflops", 1, 1e5, [](E& e) -> double& { return e.gpu.bf16_tflops; }, true),
      float_field<E>(p + ".fp8_tflops", 0, 1e5, [](E& e) -> double& { return e.gpu.fp8_tflops; }, true),
      float_field<E>(p + ".fp32_tflops", 0, 1e5, [](E& e) -> double& { return e.gpu.fp32_tflops; }, true),
      float_field<E>(p + ".nvlink_gbps", 0, 1e5, [](E& e) -> double& { return e.gpu.nvlink_gbps; }, true),
      int_field<E>(p + ".sm_count", 1, 1024, [](E& e) -> int& { return e.gpu.sm_count; }, true),
      float_field<E>(p + ".l2_mib", 0, 1e4, [](E& e) -> double& { return e.gpu.l2_bytes; }, true),
      float_field<E>(p + ".tdp_watts", 0, 1e5, [](E& e) -> double& { return e.gpu.tdp_watts; }, true),
      int_field<E>(p + ".gpus_per_node", 1, 1024, [](E& e) -> int& { return e.node.gpus_per_node; }, true),
      float_field<E>(p + ".nic_gbps_per_gpu", 0, 1e5, [](E& e) -> double& { return e.node.nic_gbps_per_gpu; }, true),
      float_field<E>(p + ".nvlink_latency_us", 0, 1e4, [](E& e) -> double& { return e.node.nvlink_latency_us; }, true),
      float_field<E>(p + ".nic_latency_us", 0, 1e4, [](E& e) -> double& { return e.node.nic_latency_us; }, true),
      float_field<E>(p + ".price_per_gpu_hour", 0, 1e4, [](E& e) -> double& { return e.node.price_per_gpu_hour; }),
  };
}

std::vector<CatalogEntry> parse_catalog() {
  const toml::table root = toml::parse(std::string_view(kCatalogToml), std::string_view(kCatalogFile));
  const toml::table* gpus = root["gpu"].as_table();
  if (!gpus) throw InputError("gpu", "missing [gpu.*] tables", {kCatalogFile, 1});
  std::vector<CatalogEntry> entries;
  for (const auto& [key, node] : *gpus) {
    const std::string prefix = "gpu." + std::string(key.str());
    const toml::table* t = node.as_table();
    if (!t) throw InputError(prefix, "expected a table", location_of(node, kCatalogFile));
    CatalogEntry e;
    apply_fields(e, *t, catalog_schema(prefix), kCatalogFile, prefix);
    e.gpu.hbm_bytes *= kGiB;
    e.gpu.l2_bytes *= kMiB;
    e.key = std::string(key.str());
    e.node.gpu = e.gpu;
    entries.push_back(std::move(e));
  }
  return entries;
}

}  // namespace

const std::vector<CatalogEntry>& hardware_catalog() {
  static const std::vector<CatalogEntry> catalog = parse_catalog();
  return catalog;
}

const CatalogEntry& find_gpu(const std::string& name, const std::string& key) {
  std::string known;
  for (const auto& e : hardware_catalog()) {
    if (e.key == name) return e;
    known += (known.empty() ? "" : ", ") + e.key;
  }
  throw InputError(key, fmt::format("unknown GPU '{}' (expected one of {})", name, known));
}

}  // namespace mhcsim::scenarios
