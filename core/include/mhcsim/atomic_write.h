#pragma once
// Output files are written to a temporary file beside the target and renamed into place, so
// a crash or a full disk never leaves a half-written file behind.
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string_view>

namespace mhcsim {

// Calls `write` with a stream on a temp file in the same directory, then renames it onto
// `path`. Throws std::runtime_error naming the path if anything fails (temp file removed).
void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace mhcsim
