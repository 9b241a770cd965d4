#pragma once
// A scenario parsed once and instantiated many times with different overrides (what-if
// sweeps). The TOML is read and checked for unknown keys once; each instance stores the
// scenario's fields in schema order with the overridden values swapped in, and re-runs the
// same consistency checks as load_scenario. It never touches the text again, so a point
// costs microseconds. instantiate(o) equals load_scenario_from_string(text, file, base + o).
#include <memory>
#include <string>
#include <vector>

#include "mhcsim/scenarios/load.h"
#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

class ScenarioTemplate {
 public:
  // Throws InputError like load_scenario_from_string (syntax, unknown keys, bad base
  // overrides); the base itself need not be consistent — each instance is checked.
  ScenarioTemplate(const std::string& toml_text, const std::string& file_name,
                   const std::vector<Override>& base_overrides = {});
  ~ScenarioTemplate();
  ScenarioTemplate(ScenarioTemplate&&) noexcept;
  ScenarioTemplate& operator=(ScenarioTemplate&&) noexcept;

  // An override whose key is resolved and whose value is parsed, ready to apply many times.
  // Throws InputError for an unknown key or an unreadable value. The handle stays valid as
  // long as the template.
  int prepare(const Override& o);

  // Applies prepared overrides (later ones win on the same key) and validates. Thread-safe:
  // instances may be built concurrently once every prepare() has returned. Throws
  // InputError (type, range or consistency), anchored at "--set" for overridden keys.
  Scenario instantiate(const std::vector<int>& prepared) const;
  Scenario instantiate(const std::vector<Override>& overrides);  // prepare + instantiate

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace mhcsim::scenarios
