#pragma once
// Names a GPU goes by: the driver's ("NVIDIA H100 80GB HBM3"), the catalog's long name
// ("H100 SXM5 80GB") and the catalog key ("H100"). Matching goes through the key.
#include <string>

namespace mhcsim::calib {

// Catalog key whose name appears as a whole word in `gpu_name` (case-insensitive); "" if none.
std::string catalog_key_for(const std::string& gpu_name);

}  // namespace mhcsim::calib
