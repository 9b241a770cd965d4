#pragma once
// What the file and directory writers of atomic_write.h share: temporary names, the removal of
// what killed runs left, fsync of a directory, the fault-injection hook and the errors that
// name the user's path and the OS reason.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace mhcsim::detail {

// The target as the user wrote it, minus a trailing '/': "out/report/" is out/report.
std::filesystem::path output_target(const std::filesystem::path& path);
// The folder the target is in ("." for a bare name).
std::filesystem::path output_folder(const std::filesystem::path& target);

// .NAME.KIND.PID beside the target; KIND is "tmp" or "old".
std::filesystem::path sibling(const std::filesystem::path& target, const char* kind);

// .NAME.KIND.PID beside the target whose process is gone: what a killed run left.
std::vector<std::filesystem::path> leftovers(const std::filesystem::path& target, const char* kind);

// Removes .NAME.tmp.PID whose process is gone; and restores .NAME.old.PID when NAME is missing
// (a two-step directory replace killed between its renames), removing it otherwise.
void clean_stale(const std::filesystem::path& target);

// Makes the target's folder; InputError naming it when that fails.
void make_folder(const std::filesystem::path& target);

// fsync of a directory, so that a rename in it survives a crash. Best effort: some file
// systems refuse to sync directories, and the data itself is already on disk.
void sync_directory(const std::filesystem::path& dir);

// The MHCSIM_FAULT_AFTER_TEMP_WRITE hook (atomic_write.h).
void fault_point(const std::filesystem::path& target);

// The switch that replaces outputs, named as `option` is: "--force" beside a CLI flag ("-o",
// "--trace"), "force=True" beside a Python keyword ("output", "trace").
std::string force_switch(std::string_view option);

// "a regular file", "a directory", "a character device", ... for messages.
std::string type_name(std::filesystem::file_type type);

// InputError("", "<what> (<strerror(err)>)", {path, 0}): `path: cannot create (Permission denied)`.
[[noreturn]] void path_error(const std::filesystem::path& path, const std::string& what, int err);

}  // namespace mhcsim::detail
