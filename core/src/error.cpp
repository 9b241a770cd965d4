#include "mhcsim/error.h"

#include <fmt/format.h>

namespace mhcsim {
namespace {
std::string format_input_error(const std::string& key, const std::string& reason, const SourceLocation& where) {
  std::string prefix;
  if (!where.file.empty()) {
    prefix = where.line > 0 ? fmt::format("{}:{}: ", where.file, where.line) : fmt::format("{}: ", where.file);
  }
  return key.empty() ? prefix + reason : fmt::format("{}{}: {}", prefix, key, reason);
}
}  // namespace

InputError::InputError(std::string key, std::string reason, SourceLocation where)
    : std::runtime_error(format_input_error(key, reason, where)),
      key_(std::move(key)),
      reason_(std::move(reason)),
      where_(std::move(where)) {}

std::string json_syntax_error(std::string_view what) {
  if (what.starts_with("[json.exception.")) {
    if (const auto end = what.find("] "); end != std::string_view::npos) what.remove_prefix(end + 2);
  }
  if (const auto excerpt = what.find("; last read:"); excerpt != std::string_view::npos) what = what.substr(0, excerpt);
  return std::string(what);
}

void require(bool ok, const char* key, const std::string& reason) {
  if (!ok) throw SpecError(key, reason);
}

}  // namespace mhcsim
