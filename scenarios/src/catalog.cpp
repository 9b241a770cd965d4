#include "mhcsim/scenarios/catalog.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>

#include "fields.h"
#include "mhcsim/input_file.h"
#include "mhcsim/units.h"
#include "parse.h"

namespace mhcsim::scenarios {

extern const char* const kCatalogToml;

namespace {

constexpr const char* kCatalogFile = "scenarios/hardware/catalog.toml";

std::vector<Field<CatalogEntry>> catalog_schema(const std::string& p) {
  using E = CatalogEntry;
  // hbm_gib / l2_mib are stored in bytes; the lambdas convert after validation.
  return {
      string_field<E>(
          p + ".name", [](E& e, std::string v) { e.gpu.name = std::move(v); }, true),
      string_field<E>(
          p + ".source", [](E& e, std::string v) { e.gpu.source = std::move(v); }, true),
      float_field<E>(
          p + ".hbm_gib", 1, 4096, [](E& e) -> double& { return e.gpu.hbm_bytes; }, true),
      float_field<E>(
          p + ".hbm_gb_per_s", 1, 1e5, [](E& e) -> double& { return e.gpu.hbm_gb_per_s; }, true),
      float_field<E>(
          p + ".bf16_tflops", 1, 1e5, [](E& e) -> double& { return e.gpu.bf16_tflops; }, true),
      float_field<E>(
          p + ".fp8_tflops", 0, 1e5, [](E& e) -> double& { return e.gpu.fp8_tflops; }, true),
      float_field<E>(p + ".fp4_tflops", 0, 1e5, [](E& e) -> double& { return e.gpu.fp4_tflops; }),
      float_field<E>(
          p + ".fp32_tflops", 0, 1e5, [](E& e) -> double& { return e.gpu.fp32_tflops; }, true),
      float_field<E>(
          p + ".nvlink_gb_per_s", 0.001, 1e5, [](E& e) -> double& { return e.gpu.nvlink_gb_per_s; }, true),
      int_field<E>(
          p + ".sm_count", 1, 1024, [](E& e) -> int& { return e.gpu.sm_count; }, true),
      float_field<E>(
          p + ".l2_mib", 0, 1e4, [](E& e) -> double& { return e.gpu.l2_bytes; }, true),
      float_field<E>(
          p + ".tdp_watts", 0, 1e5, [](E& e) -> double& { return e.gpu.tdp_watts; }, true),
      int_field<E>(
          p + ".gpus_per_node", 1, 1024, [](E& e) -> int& { return e.node.gpus_per_node; }, true),
      int_field<E>(p + ".nvlink_domain_gpus", 1, 1 << 20, [](E& e) -> int& { return e.node.nvlink_domain_gpus; }),
      float_field<E>(
          p + ".nic_gb_per_s_per_gpu", 0.001, 1e5, [](E& e) -> double& { return e.node.nic_gb_per_s_per_gpu; }, true),
      float_field<E>(
          p + ".nvlink_latency_us", 0, 1e4, [](E& e) -> double& { return e.node.nvlink_latency_us; }, true),
      float_field<E>(
          p + ".nic_latency_us", 0, 1e4, [](E& e) -> double& { return e.node.nic_latency_us; }, true),
      float_field<E>(p + ".price_per_gpu_hour", 0, 1e4, [](E& e) -> double& { return e.node.price_per_gpu_hour; }),
      string_field<E>(p + ".price_source", [](E& e, std::string v) { e.node.price_source = std::move(v); }),
  };
}

// [gpu.KEY] tables of a catalog-schema file: the shipped catalog or a user's hardware file.
std::vector<CatalogEntry> parse_catalog(const toml::table& root, const std::string& file) {
  const toml::table* gpus = root["gpu"].as_table();
  if (!gpus) throw InputError("gpu", "missing [gpu.*] tables (expected [gpu.NAME] with the catalog's keys)", {file, 1});
  for (const auto& [key, node] : root)
    if (key.str() != "gpu")
      throw InputError(std::string(key.str()), "unknown table (expected only [gpu.NAME] tables)",
                       location_of(node, file));
  std::vector<CatalogEntry> entries;
  for (const auto& [key, node] : *gpus) {
    const std::string prefix = "gpu." + std::string(key.str());
    const toml::table* t = node.as_table();
    if (!t) throw InputError(prefix, "expected a table", location_of(node, file));
    CatalogEntry e;
    try {
      apply_fields(e, *t, catalog_schema(prefix), file, prefix);
    } catch (const InputError& err) {  // a key missing from the table: point at the table
      if (err.where().line != 0) throw;
      throw InputError(err.key(), err.reason(), location_of(node, file));
    }
    if (e.node.price_per_gpu_hour > 0 && e.node.price_source.empty())
      throw InputError(prefix + ".price_source", "missing (a price needs its source, or says it is an assumption)",
                       location_of(node, file));
    if (e.node.nvlink_domain_gpus > 0 && e.node.nvlink_domain_gpus < e.node.gpus_per_node)
      throw InputError(prefix + ".nvlink_domain_gpus",
                       fmt::format("{} is smaller than gpus_per_node {} (a server's GPUs share its NVLink)",
                                   e.node.nvlink_domain_gpus, e.node.gpus_per_node),
                       location_of(*t->get("nvlink_domain_gpus"), file));
    e.gpu.hbm_bytes *= kGiB;
    e.gpu.l2_bytes *= kMiB;
    e.key = std::string(key.str());
    e.node.gpu = e.gpu;
    entries.push_back(std::move(e));
  }
  return entries;
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

const CatalogEntry* find_in(const std::vector<CatalogEntry>& entries, const std::string& lowered) {
  for (const auto& e : entries)
    if (lower(e.key) == lowered) return &e;
  return nullptr;
}

}  // namespace

const std::vector<CatalogEntry>& hardware_catalog() {
  static const std::vector<CatalogEntry> catalog =
      parse_catalog(parse_scenario_text(kCatalogToml, kCatalogFile), kCatalogFile);
  return catalog;
}

std::shared_ptr<const std::vector<CatalogEntry>> hardware_file(const std::filesystem::path& path) {
  // Read once per path and version of the file: a sweep re-applies hardware.catalog at every
  // point, and a long-lived process (a Python session) must see the file as it is now, not as
  // it was first read, so an entry is read again once the file's size or write time changed.
  struct Kept {
    std::filesystem::file_time_type written{};
    std::uintmax_t bytes = 0;
    std::shared_ptr<const std::vector<CatalogEntry>> entries;
  };
  static std::mutex mutex;
  static std::map<std::string, Kept> cache;
  const std::lock_guard<std::mutex> lock(mutex);
  std::error_code time_error, size_error;  // a file not there is read_input_file's to word
  const auto written = std::filesystem::last_write_time(path, time_error);
  const auto bytes = std::filesystem::file_size(path, size_error);
  Kept& kept = cache[path.string()];
  if (!kept.entries || time_error || size_error || kept.written != written || kept.bytes != bytes) {
    const std::string text = read_input_file(path, {.what = "hardware file", .max_bytes = kMaxHandWrittenInputBytes});
    kept = {written, bytes,
            std::make_shared<const std::vector<CatalogEntry>>(
                parse_catalog(parse_scenario_text(text, path.string()), path.string()))};
  }
  return kept.entries;
}

std::vector<CatalogEntry> catalog_entries(const std::string& hardware_path) {
  const auto file =
      hardware_path.empty() ? std::make_shared<const std::vector<CatalogEntry>>() : hardware_file(hardware_path);
  std::vector<CatalogEntry> entries(file->begin(), file->end());
  for (const auto& e : hardware_catalog())
    if (!find_in(*file, lower(e.key))) entries.push_back(e);
  return entries;
}

const CatalogEntry& find_gpu(const std::string& name, const std::string& key, const std::string& hardware_path) {
  const std::string wanted = lower(name);
  std::string known;
  if (!hardware_path.empty()) {
    const auto extra = hardware_file(hardware_path);
    if (const auto* e = find_in(*extra, wanted)) return *e;
    for (const auto& e : *extra) known += (known.empty() ? "" : ", ") + e.key;
  }
  if (const auto* e = find_in(hardware_catalog(), wanted)) return *e;
  for (const auto& e : hardware_catalog()) known += (known.empty() ? "" : ", ") + e.key;
  throw InputError(key, fmt::format("unknown GPU '{}' (expected one of {})", name, known));
}

}  // namespace mhcsim::scenarios
