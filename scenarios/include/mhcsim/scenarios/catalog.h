#pragma once
// Hardware catalog: scenarios/hardware/catalog.toml, embedded in the binary at build time so
// the data stays a file (with its datasheet sources) but the tool works from any directory.
// Hardware files with the same schema add or override GPUs at run time (`--hardware FILE`,
// `[hardware] catalog = "FILE"`), validated like the shipped catalog.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

struct CatalogEntry {
  std::string key;  // "H800": what scenarios write in hardware.gpu (any case)
  GpuSpec gpu;
  HardwareSpec node;  // default node: this GPU, gpus_per_node, NVLink domain, NICs, latencies, price
};

const std::vector<CatalogEntry>& hardware_catalog();
// The [gpu.NAME] entries of a hardware file, read and checked once per path and kept until the
// file's size or write time changes. Throws InputError naming file:line: key.
std::shared_ptr<const std::vector<CatalogEntry>> hardware_file(const std::filesystem::path& path);
// What hardware.gpu can name with that hardware file ("" = none): the file's entries, then the
// shipped ones it does not override (names compared in any case).
std::vector<CatalogEntry> catalog_entries(const std::string& hardware_path);
// Case-insensitive. Entries of the hardware file at `hardware_path` ("" = none) come first, so
// a file can override a shipped GPU. Throws InputError(key, "unknown GPU 'X' (expected one of
// ...)") when absent.
const CatalogEntry& find_gpu(const std::string& name, const std::string& key = "hardware.gpu",
                             const std::string& hardware_path = "");

}  // namespace mhcsim::scenarios
