#pragma once
// Hardware catalog: scenarios/hardware/catalog.toml, embedded in the binary at build time so
// the data stays a file (with its datasheet sources) but the tool works from any directory.
#include <string>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

struct CatalogEntry {
  std::string key;    // "H800": what scenarios write in hardware.gpu
  GpuSpec gpu;
  HardwareSpec node;  // default node: this GPU, gpus_per_node, NICs, latencies, price
};

const std::vector<CatalogEntry>& hardware_catalog();
// Throws InputError(key, "unknown GPU 'X' (expected one of ...)") when absent.
const CatalogEntry& find_gpu(const std::string& name, const std::string& key = "hardware.gpu");

}  // namespace mhcsim::scenarios
