#pragma once
// Output directories are filled beside the target under a temporary name and renamed into
// place, so a reader never sees half a report; an existing output is replaced only when asked.
#include <filesystem>
#include <functional>

namespace mhcsim::reports {

// Throws InputError(option, "... exists (use --force to replace it)") when `path` exists and
// !force. `option` names the flag that chose the path ("-o").
void require_writable(const std::filesystem::path& path, bool force, const char* option = "-o");

// Creates `dir`'s parent if needed and a fresh temporary directory next to `dir`, calls
// `fill` with it, then moves it onto `dir` (replacing an existing one only when `force`). On
// any error the temporary directory is removed and the old `dir` is left as it was.
void write_directory_atomically(const std::filesystem::path& dir, bool force,
                                const std::function<void(const std::filesystem::path&)>& fill);

}  // namespace mhcsim::reports
