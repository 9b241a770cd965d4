#pragma once
// The parsing steps load_scenario and ScenarioTemplate share, so both read a file and a --set
// value the same way and fail with the same messages.
#include <toml++/toml.h>

#include <string>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"

namespace mhcsim::scenarios {

// Where errors about a --set value point: at the override rather than at a file line.
inline const SourceLocation kSetLocation{"--set", 0};

// The whole file as TOML; a syntax error is an InputError at its line.
toml::table parse_scenario_text(const std::string& toml_text, const std::string& file_name);

// Index of the override's key in scenario_schema(); InputError "unknown key (did you mean ...)".
size_t schema_index(const Override& o);

// The value of --set is TOML ("8", "0.5", "true", "\"fp8\""); a bare word is taken as a string
// so `--set parallel.schedule=dualpipe` works without shell quoting. Returns a table whose
// key "v" holds the value.
toml::table parse_override_value(const Override& o);

}  // namespace mhcsim::scenarios
