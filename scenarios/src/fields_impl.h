#pragma once
// Template definitions for fields.h.
#include <algorithm>
#include <set>

namespace mhcsim::scenarios {
namespace detail {

template <class T>
void check_unknown_keys(const toml::table& table, const std::string& path, const std::vector<Field<T>>& schema,
                        const std::vector<std::string>& keys, const std::set<std::string>& tables,
                        const std::string& file,
                        const std::function<void(const std::string&, const SourceLocation&)>& seen) {
  for (const auto& [k, node] : table) {
    const std::string key = path.empty() ? std::string(k.str()) : path + "." + std::string(k.str());
    const auto where = location_of(node, file);
    if (const auto* sub = node.as_table()) {
      if (!tables.count(key)) {
        const bool is_field = std::find(keys.begin(), keys.end(), key) != keys.end();
        throw InputError(
            key, is_field ? "expected a value, not a table" : fmt::format("unknown table{}", closest_key(key, keys)),
            where);
      }
      if (seen) seen(key, where);
      check_unknown_keys(*sub, key, schema, keys, tables, file, seen);
    } else if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      throw InputError(
          key, tables.count(key) ? "expected a table" : fmt::format("unknown key{}", closest_key(key, keys)), where);
    } else if (seen) {
      seen(key, where);
    }
  }
}

}  // namespace detail

template <class T>
void apply_fields(T& target, const toml::table& root, const std::vector<Field<T>>& schema, const std::string& file,
                  const std::string& prefix, std::function<void(const std::string&, const SourceLocation&)> seen) {
  std::vector<std::string> keys;
  std::set<std::string> tables;
  for (const auto& f : schema) {
    keys.push_back(f.key);
    for (size_t dot = f.key.find('.'); dot != std::string::npos; dot = f.key.find('.', dot + 1))
      tables.insert(f.key.substr(0, dot));
  }
  detail::check_unknown_keys(root, prefix, schema, keys, tables, file, seen);
  for (const auto& f : schema) {
    const std::string_view rel =
        prefix.empty() ? std::string_view(f.key) : std::string_view(f.key).substr(prefix.size() + 1);
    const toml::node* node = root.at_path(rel).node();
    if (node) {
      f.store(target, *node, location_of(*node, file));
      continue;
    }
    if (!f.required) continue;
    const auto parent_dot = rel.rfind('.');
    const toml::node* parent =
        parent_dot == std::string_view::npos ? nullptr : root.at_path(rel.substr(0, parent_dot)).node();
    throw InputError(f.key, fmt::format("missing (expected {})", f.expected),
                     parent ? location_of(*parent, file) : SourceLocation{file, 0});
  }
}

}  // namespace mhcsim::scenarios
