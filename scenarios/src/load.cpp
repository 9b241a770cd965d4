#include "mhcsim/scenarios/load.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "check.h"
#include "mhcsim/input_file.h"
#include "parse.h"
#include "schema.h"

#ifndef MHCSIM_BUILTIN_DATA_DIR
#define MHCSIM_BUILTIN_DATA_DIR "scenarios"
#endif
#ifndef MHCSIM_INSTALLED_DATA_DIR
#define MHCSIM_INSTALLED_DATA_DIR "share/mhcsim/scenarios"
#endif

namespace mhcsim::scenarios {
namespace {

void apply_override(toml::table& root, const Override& o) {
  schema_index(o);  // unknown keys fail before any table is created
  toml::table* table = &root;
  std::string_view rest = o.key;
  std::string path;
  for (size_t dot; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) {
    const std::string part(rest.substr(0, dot));
    path += (path.empty() ? "" : ".") + part;
    auto [it, inserted] = table->emplace<toml::table>(part);
    table = it->second.as_table();
    if (!table) throw InputError(o.key, fmt::format("'{}' is a value, not a table", path), kSetLocation);
  }
  toml::table value = parse_override_value(o);
  table->insert_or_assign(std::string(rest), std::move(*value.get("v")));
}

Scenario build(toml::table root, const std::string& file, const std::vector<Override>& overrides) {
  for (const auto& o : overrides) apply_override(root, o);
  Scenario s;
  KeyLocations keys(file);
  apply_fields(s, root, scenario_schema(), file, "",
               [&](const std::string& key, const SourceLocation& where) { keys.add(key, where); });
  s.path = file;
  complete_and_check(s, keys);
  return s;
}

}  // namespace

SourceLocation key_location(const std::filesystem::path& path, const std::vector<Override>& overrides,
                            const std::string& key) {
  for (const auto& o : overrides)
    if (o.key == key) return kSetLocation;
  const toml::table root = parse_scenario_text(read_scenario_file(path), path.string());
  const toml::node* node = root.at_path(key).node();
  return {path.string(), node ? static_cast<int>(node->source().begin.line) : 0};
}

void require_distinct_overrides(const std::vector<Override>& overrides) {
  for (size_t i = 0; i < overrides.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (overrides[j].key == overrides[i].key)
        throw InputError("--set", fmt::format("{} is given twice ({}, then {}): give it once", overrides[i].key,
                                              overrides[j].value, overrides[i].value));
}

Override parse_override(const std::string& text) {
  // TOML would read the part after a line break as a second key and drop it unchecked.
  if (text.find_first_of("\r\n") != std::string::npos)
    throw InputError("--set", fmt::format("{:?} holds a line break (expected one key=value per --set)", text));
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set", fmt::format("'{}' is not key=value (e.g. parallel.pp=8)", text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Scenario load_scenario_from_string(const std::string& toml_text, const std::string& file_name,
                                   const std::vector<Override>& overrides) {
  return build(parse_scenario_text(toml_text, file_name), file_name, overrides);
}

std::string read_scenario_file(const std::filesystem::path& path) {
  return read_input_file(path, {.what = "scenario file", .max_bytes = kMaxHandWrittenInputBytes});
}

Scenario load_scenario(const std::filesystem::path& path, const std::vector<Override>& overrides) {
  return load_scenario_from_string(read_scenario_file(path), path.string(), overrides);
}

std::vector<KeyInfo> scenario_keys() {
  std::vector<KeyInfo> keys;
  for (const auto& f : scenario_schema()) keys.push_back({f.key, f.expected, f.required});
  return keys;
}

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("MHCSIM_DATA_DIR"); env && *env) return env;
  // An installed mhcsim (cmake --install) has its scenarios beside its executable's folder:
  // <prefix>/bin/mhcsim and <prefix>/share/mhcsim/scenarios. A build tree has the source's.
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = exe.parent_path().parent_path() / MHCSIM_INSTALLED_DATA_DIR;
    if (std::filesystem::is_regular_file(installed / "deepseek_v3_train.toml", ec)) return installed;
  }
  return MHCSIM_BUILTIN_DATA_DIR;
}

std::filesystem::path default_scenario_path() { return data_dir() / "deepseek_v3_train.toml"; }

}  // namespace mhcsim::scenarios
