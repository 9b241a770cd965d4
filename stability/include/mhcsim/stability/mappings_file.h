#pragma once
// Per-layer raw residual matrices dumped from a checkpoint, L x n x n, as
//   - JSON: an array of L matrices, each an array of n rows of n numbers;
//   - .npy (NumPy format 1.0-3.0): shape (L, n, n), '<f4' or '<f8', C order.
// The file is told by its first bytes (the .npy magic "\x93NUMPY"), not its name. Every
// problem is an InputError `file: element [l][i][j]: what is wrong` (or `file: header: ...`),
// which the CLI prints as one line and exits 2 on.
#include <cstdint>
#include <filesystem>
#include <string>

#include "mhcsim/input_file.h"
#include "mhcsim/stability/gain.h"

namespace mhcsim::stability {

inline constexpr int64_t kMaxMappingsN = 64;  // expansion rates in the papers: 2-8
inline constexpr int64_t kMaxMappingsLayers = 100000;
// Read through core's InputFile: regular files only, at most this size (2M fp64 elements).
inline constexpr uint64_t kMaxMappingsFileBytes = kMaxJsonDocumentBytes;

MappingStack read_mappings_file(const std::filesystem::path& path);
// The parsers behind it, on the file's bytes; `file_name` is used in the messages.
MappingStack parse_mappings_json(const std::string& text, const std::string& file_name);
MappingStack parse_mappings_npy(const std::string& bytes, const std::string& file_name);

}  // namespace mhcsim::stability
