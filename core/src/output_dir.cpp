// Output directories (atomic_write.h): filled under a temporary name, marked as mhcsim's, and
// swapped into place, so that `--force` replaces only what mhcsim wrote and never leaves an
// instant without a complete report.
#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>  // renameat2

#include <cerrno>
#include <system_error>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/version.h"
#include "output_paths.h"

namespace mhcsim {
namespace fs = std::filesystem;

namespace {

bool empty_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_empty(dir, ec) && !ec;
}

bool written_by_mhcsim(const fs::path& dir, const OwnedFn& owned) {
  std::error_code ec;
  return fs::is_regular_file(dir / kOutputMarker, ec) || empty_directory(dir) || (owned && owned(dir));
}

// Swaps the complete new output `temp` with the old `target` in one step; `temp` then holds
// the old one. False where the file system cannot (then nothing has moved).
bool exchange(const fs::path& temp, const fs::path& target) {
#ifdef RENAME_EXCHANGE
  if (::renameat2(AT_FDCWD, temp.c_str(), AT_FDCWD, target.c_str(), RENAME_EXCHANGE) == 0) return true;
  if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) detail::path_error(target, "cannot replace", errno);
#endif
  return false;
}

// The fallback: the old output steps aside to .NAME.old.PID before the new one takes its name.
// Killed between the two renames, the next run puts the old one back (detail::clean_stale).
void replace_in_two_steps(const fs::path& temp, const fs::path& target) {
  const fs::path old = detail::sibling(target, "old");
  std::error_code ec;
  fs::rename(target, old, ec);
  if (ec) detail::path_error(target, "cannot replace", ec.value());
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::rename(old, target, ignored);
    detail::path_error(target, "cannot replace", ec.value());
  }
  fs::remove_all(old, ec);
}

void put_in_place(const fs::path& temp, const fs::path& target) {
  std::error_code ec;
  if (fs::symlink_status(target, ec).type() == fs::file_type::not_found) {
    fs::rename(temp, target, ec);
    if (ec) detail::path_error(target, "cannot create", ec.value());
  } else if (exchange(temp, target)) {
    fs::remove_all(temp, ec);
  } else {
    replace_in_two_steps(temp, target);
  }
  detail::sync_directory(detail::output_folder(target));
}

}  // namespace

void require_output_directory(const fs::path& dir, bool replace, const char* option, const OwnedFn& owned) {
  if (dir.empty()) throw InputError(option, "empty path (expected a directory name)");
  const fs::path target = detail::output_target(dir);
  if (!target.has_filename() || target.filename() == "." || target.filename() == "..")
    throw InputError(
        option, fmt::format("'{}' cannot be replaced (expected a new directory name, e.g. out/report)", dir.string()));
  detail::clean_stale(target);  // a replace killed half-way is undone before `target` is judged
  std::error_code ec;
  const auto type = fs::symlink_status(target, ec).type();
  if (type == fs::file_type::not_found || type == fs::file_type::none) return;
  if (type != fs::file_type::directory)
    throw InputError(option, fmt::format("'{}' is {} (expected a directory)", dir.string(), detail::type_name(type)));
  if (!replace)
    throw InputError(option,
                     fmt::format("'{}' exists (use {} to replace it)", dir.string(), detail::force_switch(option)));
  if (!written_by_mhcsim(target, owned))
    throw InputError(option, fmt::format("'{}' was not written by mhcsim (it holds no {}): not replacing it "
                                         "(choose another directory, or remove this one yourself)",
                                         dir.string(), kOutputMarker));
}

void write_directory_atomically(const fs::path& dir, bool replace, const std::function<void(const fs::path&)>& fill,
                                const OwnedFn& owned, const char* option) {
  require_output_directory(dir, replace, option, owned);
  const fs::path target = detail::output_target(dir);
  detail::make_folder(target);
  const fs::path temp = detail::sibling(target, "tmp");
  std::error_code ec;
  fs::remove_all(temp, ec);
  if (!fs::create_directory(temp, ec)) detail::path_error(target, "cannot create", ec ? ec.value() : EEXIST);
  try {
    fill(temp);
    write_file_atomically(temp / kOutputMarker,
                          fmt::format("written by mhcsim {}; `--force` replaces only directories holding this "
                                      "file\n",
                                      kVersion));
    detail::sync_directory(temp);
    detail::fault_point(target);
    put_in_place(temp, target);
  } catch (...) {
    fs::remove_all(temp, ec);
    throw;
  }
}

}  // namespace mhcsim
