#include "mhcsim/scenarios/load.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "check.h"
#include "schema.h"

#ifndef MHCSIM_BUILTIN_DATA_DIR
#define MHCSIM_BUILTIN_DATA_DIR "scenarios"
#endif

namespace mhcsim::scenarios {
namespace {

constexpr std::string_view kOverrideFile = "--set";

// The value of --set is TOML ("8", "0.5", "true", "\"fp8\""); a bare word is taken as a string
// so `--set parallel.schedule=dualpipe` works without shell quoting. Parsed with a source path
// of "--set" so errors point at the override rather than at a file line.
toml::table parse_override_value(const Override& o) {
  try {
    return toml::parse("v = " + o.value, kOverrideFile);
  } catch (const toml::parse_error&) {
    std::string quoted = "\"";
    for (char ch : o.value) quoted += (ch == '"' || ch == '\\') ? std::string{'\\', ch} : std::string{ch};
    try {
      return toml::parse("v = " + quoted + "\"", kOverrideFile);
    } catch (const toml::parse_error& e) {
      throw InputError(o.key, fmt::format("cannot read value '{}': {}", o.value, e.description()),
                       {std::string(kOverrideFile), 0});
    }
  }
}

void apply_override(toml::table& root, const Override& o) {
  std::vector<std::string> known;
  for (const auto& f : scenario_schema()) known.push_back(f.key);
  if (std::find(known.begin(), known.end(), o.key) == known.end())
    throw InputError(o.key, "unknown key" + closest_key(o.key, known), {std::string(kOverrideFile), 0});
  toml::table* table = &root;
  std::string_view rest = o.key;
  std::string path;
  for (size_t dot; (dot = rest.find('.')) != std::string_view::npos; rest.remove_prefix(dot + 1)) {
    const std::string part(rest.substr(0, dot));
    path += (path.empty() ? "" : ".") + part;
    auto [it, inserted] = table->emplace<toml::table>(part);
    table = it->second.as_table();
    if (!table)
      throw InputError(o.key, fmt::format("'{}' is a value, not a table", path), {std::string(kOverrideFile), 0});
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

Override parse_override(const std::string& text) {
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--set", fmt::format("'{}' is not key=value (e.g. parallel.pp=8)", text));
  return {text.substr(0, eq), text.substr(eq + 1)};
}

Scenario load_scenario_from_string(const std::string& toml_text, const std::string& file_name,
                                   const std::vector<Override>& overrides) {
  toml::table root;
  try {
    root = toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& e) {
    throw InputError("", fmt::format("TOML syntax error: {}", e.description()),
                     {file_name, static_cast<int>(e.source().begin.line)});
  }
  return build(std::move(root), file_name, overrides);
}

Scenario load_scenario(const std::filesystem::path& path, const std::vector<Override>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in || std::filesystem::is_directory(path))
    throw InputError("", "cannot open scenario file (no such file or not readable)", {path.string(), 0});
  std::ostringstream text;
  text << in.rdbuf();
  return load_scenario_from_string(text.str(), path.string(), overrides);
}

std::vector<KeyInfo> scenario_keys() {
  std::vector<KeyInfo> keys;
  for (const auto& f : scenario_schema()) keys.push_back({f.key, f.expected, f.required});
  return keys;
}

std::filesystem::path data_dir() {
  if (const char* env = std::getenv("MHCSIM_DATA_DIR"); env && *env) return env;
  return MHCSIM_BUILTIN_DATA_DIR;
}

std::filesystem::path default_scenario_path() { return data_dir() / "deepseek_v3_train.toml"; }

}  // namespace mhcsim::scenarios
