#pragma once
// Scenario files (TOML): parse, then validate every key before anything is evaluated
// (Timeloop's parse / check / evaluate split). Errors are InputError with file, line and key.
#include <filesystem>
#include <string>
#include <vector>

#include "mhcsim/error.h"
#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

// `key=value` from --set; key is dotted ("parallel.pp"), value is TOML syntax
// (numbers, true/false, strings with or without quotes).
struct Override {
  std::string key;
  std::string value;
};
Override parse_override(const std::string& text);  // throws InputError on "key" without '='
// Throws InputError("--set", ...) when two of a user's overrides name the same key: the last
// would win unseen (--set parallel.pp=8 --set parallel.pp=16 ran PP 16). Layers built in code
// (a sweep point over its base, Python's with_overrides) replace earlier values on purpose.
void require_distinct_overrides(const std::vector<Override>& overrides);

// Why `value` (TOML, as after --set key=) is not valid for scenario key `key`, or "" when it
// is. CLI flags that stand for a key (kv --context is workload.context_len) are checked with
// it, so they get the key's range and message. An unknown key is an InputError.
std::string key_value_problem(const std::string& key, const std::string& value);
// The same for values that are wrong whatever the rest of the scenario (numbers, booleans,
// enumerations: a sweep value of the wrong type or out of range); "" for strings, which may
// name a GPU of a catalog or a path only the whole scenario resolves.
std::string standalone_value_problem(const std::string& key, const std::string& value);

// The scenario file's text; InputError naming the file when it cannot be read.
std::string read_scenario_file(const std::filesystem::path& path);

// Reads, applies overrides, validates. Throws InputError `file:line: key: reason`.
Scenario load_scenario(const std::filesystem::path& path, const std::vector<Override>& overrides = {});
Scenario load_scenario_from_string(const std::string& toml_text, const std::string& file_name,
                                   const std::vector<Override>& overrides = {});

// Every key a scenario may hold, with what it expects ("integer in [1, 4096]"), in schema order.
struct KeyInfo {
  std::string key;
  std::string expected;
  bool required = false;
};
std::vector<KeyInfo> scenario_keys();

// Where a scenario's `key` was given, for an error the cost model raises about it: "--set" when
// one of `overrides` sets it, else the file with the line that writes it (line 0 when the file
// leaves it to its default).
SourceLocation key_location(const std::filesystem::path& path, const std::vector<Override>& overrides,
                            const std::string& key);

// The scenario the CLI uses when -s is not given.
std::filesystem::path default_scenario_path();
// Directory holding the shipped scenarios (MHCSIM_DATA_DIR env var overrides the built-in).
std::filesystem::path data_dir();

}  // namespace mhcsim::scenarios
