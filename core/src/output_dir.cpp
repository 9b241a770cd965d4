// Output directories (atomic_write.h): filled under a temporary name, marked as mhcsim's, and
// swapped into place, so that `--force` replaces only what mhcsim wrote and never leaves an
// instant without a complete report.
#include <fcntl.h>
#include <fmt/format.h>
#include <stdio.h>  // renameat2

#include <cerrno>
#include <fstream>
#include <set>
#include <string>
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

// Every entry under `dir` (files, folders, links: not followed), relative and '/'-separated.
std::set<std::string> entries(const fs::path& dir) {
  std::set<std::string> out;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    out.insert(it->path().lexically_relative(dir).generic_string());
  if (ec) detail::path_error(dir, "cannot read", ec.value());
  return out;
}

// The marker's first line says who wrote the directory; each line after it names an entry
// mhcsim put there, so that a file added since (notes beside a report) is seen and kept.
std::string marker_text(const fs::path& dir) {
  std::string text = fmt::format(
      "written by mhcsim {}; `--force` replaces only directories holding this file, "
      "and only while they hold nothing but the entries below\n",
      kVersion);
  for (const auto& e : entries(dir)) text += e + "\n";
  return text;
}

// Why `dir` may not be replaced; empty when it may.
std::string refusal(const fs::path& dir, const OwnedFn& owned) {
  std::error_code ec;
  if (empty_directory(dir)) return {};
  if (fs::is_regular_file(dir / kOutputMarker, ec)) {
    std::ifstream marker(dir / kOutputMarker);
    std::set<std::string> listed;
    std::string line;
    std::getline(marker, line);  // who wrote it
    while (std::getline(marker, line)) listed.insert(line);
    // A marker from before the listing says only that mhcsim wrote the directory once: the
    // caller's test of its layout decides (a report: its files and figures, nothing else).
    if (listed.empty())
      return owned && owned(dir) ? std::string()
                                 : std::string(
                                       "it was marked by an earlier mhcsim, which did not list what it "
                                       "wrote, and holds more than a report: not replacing it (remove it "
                                       "yourself)");
    for (const auto& e : entries(dir))
      if (e != kOutputMarker && !listed.count(e))
        return fmt::format(
            "it holds '{}', which mhcsim did not write: not replacing it (move that out of it, or "
            "choose another directory)",
            e);
    return {};
  }
  if (owned && owned(dir)) return {};
  return fmt::format("it holds no {}: not replacing it (choose another directory, or remove this one yourself)",
                     kOutputMarker);
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

// Says why the old output, moved aside at `old`, may not be deleted after all; empty when it may.
// It was judged before the new one was written, and a user may have put a file in it since.
using Recheck = std::function<std::string(const fs::path& old)>;

// The fallback: the old output steps aside to .NAME.old.PID before the new one takes its name.
// Killed between the two renames, the next run puts the old one back (detail::clean_stale).
void replace_in_two_steps(const fs::path& temp, const fs::path& target, const Recheck& recheck, const char* option) {
  const fs::path old = detail::sibling(target, "old");
  std::error_code ec;
  fs::rename(target, old, ec);
  if (ec) detail::path_error(target, "cannot replace", ec.value());
  if (const auto why = recheck(old); !why.empty()) {
    fs::rename(old, target, ec);
    throw InputError(option, why);
  }
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::rename(old, target, ignored);
    detail::path_error(target, "cannot replace", ec.value());
  }
  fs::remove_all(old, ec);
}

void put_in_place(const fs::path& temp, const fs::path& target, const Recheck& recheck, const char* option) {
  std::error_code ec;
  if (fs::symlink_status(target, ec).type() == fs::file_type::not_found) {
    fs::rename(temp, target, ec);
    if (ec) detail::path_error(target, "cannot create", ec.value());
  } else if (exchange(temp, target)) {
    if (const auto why = recheck(temp); !why.empty()) {  // swapped back; the caller removes temp
      exchange(temp, target);
      throw InputError(option, why);
    }
    fs::remove_all(temp, ec);
  } else {
    replace_in_two_steps(temp, target, recheck, option);
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
  if (const auto why = refusal(target, owned); !why.empty())
    throw InputError(option, fmt::format("'{}' was not written by mhcsim whole ({})", dir.string(), why));
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
    write_file_atomically(temp / kOutputMarker, marker_text(temp));
    detail::sync_directory(temp);
    detail::fault_point(target);
    put_in_place(
        temp, target,
        [&](const fs::path& old) {
          const auto why = refusal(old, owned);
          return why.empty() ? why
                             : fmt::format("'{}' changed while mhcsim wrote its replacement ({})", dir.string(), why);
        },
        option);
  } catch (...) {
    fs::remove_all(temp, ec);
    throw;
  }
}

}  // namespace mhcsim
