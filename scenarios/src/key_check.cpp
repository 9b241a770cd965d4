// One key's value checked alone, for CLI flags that stand for a scenario key: the same range,
// type check and message as the key gets in a file or after --set.
#include <stdexcept>

#include "mhcsim/scenarios/load.h"
#include "parse.h"
#include "schema.h"

namespace mhcsim::scenarios {

namespace {
std::string problem(const Field<Scenario>& field, const Override& o) {
  try {
    const toml::table parsed = parse_override_value(o);
    Scenario scratch;  // the value lands here and is dropped: only the check matters
    field.store(scratch, *parsed.get("v"), kSetLocation);
    return "";
  } catch (const InputError& e) {
    return e.reason();
  }
}
}  // namespace

std::string key_value_problem(const std::string& key, const std::string& value) {
  const Override o{key, value};
  return problem(scenario_schema()[schema_index(o)], o);
}

std::string standalone_value_problem(const std::string& key, const std::string& value) {
  const Override o{key, value};
  const auto& field = scenario_schema()[schema_index(o)];
  return field.standalone ? problem(field, o) : "";
}

}  // namespace mhcsim::scenarios
