#include "output_paths.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <system_error>
#include <vector>

#include "mhcsim/error.h"

namespace mhcsim::detail {
namespace fs = std::filesystem;

namespace {

// A leftover's process id, or 0 when `entry` is not .NAME.KIND.PID.
pid_t leftover_pid(const std::string& entry, const std::string& prefix) {
  if (entry.size() <= prefix.size() || entry.compare(0, prefix.size(), prefix) != 0) return 0;
  pid_t pid = 0;
  for (size_t i = prefix.size(); i < entry.size(); ++i) {
    if (entry[i] < '0' || entry[i] > '9' || pid > 100'000'000) return 0;
    pid = pid * 10 + (entry[i] - '0');
  }
  return pid;
}

// Our own id counts as gone: a temporary with it is from an earlier process that had the same
// id, since this one starts each output afresh.
bool process_gone(pid_t pid) { return pid == ::getpid() || (::kill(pid, 0) != 0 && errno == ESRCH); }

}  // namespace

fs::path output_target(const fs::path& path) {
  fs::path p = path;
  while (!p.has_filename() && p.has_relative_path()) p = p.parent_path();
  return p;
}

fs::path output_folder(const fs::path& target) {
  return target.has_parent_path() ? target.parent_path() : fs::path(".");
}

fs::path sibling(const fs::path& target, const char* kind) {
  return output_folder(target) / fmt::format(".{}.{}.{}", target.filename().string(), kind, ::getpid());
}

std::vector<fs::path> leftovers(const fs::path& target, const char* kind) {
  const std::string prefix = fmt::format(".{}.{}.", target.filename().string(), kind);
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(output_folder(target), ec), end; !ec && it != end; it.increment(ec))
    if (const pid_t pid = leftover_pid(it->path().filename().string(), prefix); pid > 0 && process_gone(pid))
      found.push_back(it->path());
  return found;
}

void clean_stale(const fs::path& target) {
  std::error_code ec;
  for (const auto& t : leftovers(target, "tmp")) fs::remove_all(t, ec);
  for (const auto& o : leftovers(target, "old")) {
    if (fs::symlink_status(target, ec).type() == fs::file_type::not_found)
      fs::rename(o, target, ec);
    else
      fs::remove_all(o, ec);
  }
}

void make_folder(const fs::path& target) {
  const fs::path folder = output_folder(target);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) path_error(folder, "cannot create the output directory", ec.value());
  if (!fs::is_directory(folder, ec)) path_error(folder, "cannot create the output directory", ENOTDIR);
}

void sync_directory(const fs::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void fault_point(const fs::path& target) {
  const char* name = std::getenv("MHCSIM_FAULT_AFTER_TEMP_WRITE");
  if (name && *name && target.filename() == name) ::raise(SIGKILL);
}

std::string force_switch(std::string_view option) {
  return option.empty() || option.front() == '-' ? "--force" : "force=True";
}

std::string type_name(fs::file_type type) {
  switch (type) {
    case fs::file_type::regular:
      return "a regular file";
    case fs::file_type::directory:
      return "a directory";
    case fs::file_type::symlink:
      return "a symbolic link";
    case fs::file_type::character:
      return "a character device";
    case fs::file_type::block:
      return "a block device";
    case fs::file_type::fifo:
      return "a FIFO";
    case fs::file_type::socket:
      return "a socket";
    default:
      return "not a regular file";
  }
}

void path_error(const fs::path& path, const std::string& what, int err) {
  throw InputError("", fmt::format("{} ({})", what, std::generic_category().message(err)), {path.string(), 0});
}

}  // namespace mhcsim::detail
