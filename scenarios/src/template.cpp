// ScenarioTemplate: the sweep's fast path over the scenario schema. The file is parsed and
// checked (unknown keys, types, ranges, required keys) once by apply_fields; an instance
// replays the schema's store functions over the already-parsed nodes with overridden nodes
// swapped in, then runs complete_and_check, the same consistency checks load_scenario runs.
#include "mhcsim/scenarios/template.h"

#include <deque>

#include "check.h"
#include "parse.h"
#include "schema.h"

namespace mhcsim::scenarios {

struct ScenarioTemplate::Impl {
  std::string file;
  toml::table root;
  std::vector<const toml::node*> base_nodes;  // per schema field; nullptr when absent
  KeyLocations keys;
  std::deque<toml::table> values;                              // prepared values (stable addresses)
  std::vector<std::pair<size_t, const toml::node*>> prepared;  // schema index, value node

  explicit Impl(std::string f) : file(std::move(f)), keys(file) {}
};

ScenarioTemplate::ScenarioTemplate(const std::string& toml_text, const std::string& file_name,
                                   const std::vector<Override>& base_overrides)
    : impl_(std::make_unique<Impl>(file_name)) {
  impl_->root = parse_scenario_text(toml_text, file_name);
  Scenario checked;  // types, ranges, unknown and required keys of the file, once
  apply_fields(checked, impl_->root, scenario_schema(), file_name, "",
               [&](const std::string& key, const SourceLocation& where) { impl_->keys.add(key, where); });
  for (const auto& f : scenario_schema()) impl_->base_nodes.push_back(impl_->root.at_path(f.key).node());
  for (const auto& o : base_overrides) {
    const auto& [field, node] = impl_->prepared[static_cast<size_t>(prepare(o))];
    impl_->base_nodes[field] = node;
    impl_->keys.add(o.key, kSetLocation);
  }
}

ScenarioTemplate::~ScenarioTemplate() = default;
ScenarioTemplate::ScenarioTemplate(ScenarioTemplate&&) noexcept = default;
ScenarioTemplate& ScenarioTemplate::operator=(ScenarioTemplate&&) noexcept = default;

int ScenarioTemplate::prepare(const Override& o) {
  const size_t field = schema_index(o);
  impl_->values.push_back(parse_override_value(o));
  impl_->prepared.emplace_back(field, impl_->values.back().get("v"));
  return static_cast<int>(impl_->prepared.size() - 1);
}

Scenario ScenarioTemplate::instantiate(const std::vector<int>& prepared) const {
  const auto& schema = scenario_schema();
  std::vector<const toml::node*> nodes = impl_->base_nodes;
  auto keys = KeyLocations::over(impl_->keys);
  for (int h : prepared) {
    const auto& [field, node] = impl_->prepared.at(static_cast<size_t>(h));
    nodes[field] = node;
    keys.add(schema[field].key, kSetLocation);
  }
  Scenario s;
  // Schema order matters: hardware.gpu seeds the hardware spec before single values override it.
  for (size_t i = 0; i < schema.size(); ++i)
    if (nodes[i]) schema[i].store(s, *nodes[i], location_of(*nodes[i], impl_->file));
  s.path = impl_->file;
  complete_and_check(s, keys);
  return s;
}

Scenario ScenarioTemplate::instantiate(const std::vector<Override>& overrides) {
  std::vector<int> handles;
  for (const auto& o : overrides) handles.push_back(prepare(o));
  return instantiate(handles);
}

}  // namespace mhcsim::scenarios
