#include "fields.h"

#include <utility>

namespace mhcsim::scenarios {

SourceLocation location_of(const toml::node& node, const std::string& fallback_file) {
  const auto& src = node.source();
  std::string file = src.path ? *src.path : fallback_file;
  // Values injected by --set carry no file line worth printing.
  const int line = file == "--set" ? 0 : static_cast<int>(src.begin.line);
  return {std::move(file), line};
}

std::string_view type_name(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    default:
      return "a date/time";
  }
}

namespace {
size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string closest_key(std::string_view key, const std::vector<std::string>& known) {
  // Keys renamed so that their unit reads unambiguously ("gbps" read as gigabits per second).
  static constexpr std::pair<std::string_view, std::string_view> kRenamed[] = {
      {"hbm_gbps", "hbm_gb_per_s"}, {"nvlink_gbps", "nvlink_gb_per_s"}, {"nic_gbps_per_gpu", "nic_gb_per_s_per_gpu"}};
  const auto dot = key.rfind('.');
  const std::string_view leaf = dot == std::string_view::npos ? key : key.substr(dot + 1);
  for (const auto& [old_name, new_name] : kRenamed)
    if (leaf == old_name)
      return fmt::format(" (renamed '{}{}': the same GB/s, named so it cannot read as gigabits)",
                         key.substr(0, key.size() - leaf.size()), new_name);
  const std::string* best = nullptr;
  size_t best_d = 4;  // suggest only near misses
  for (const auto& k : known) {
    // A key written without its unit suffix (`tflops` for `tflops_per_gpu`) is a near miss too.
    const bool unit_dropped = k.size() > key.size() && k.compare(0, key.size(), key) == 0 && k[key.size()] == '_';
    const size_t d = unit_dropped ? 1 : edit_distance(key, k);
    if (d < best_d) best_d = d, best = &k;
  }
  return best ? fmt::format(" (did you mean '{}'?)", *best) : std::string();
}

}  // namespace mhcsim::scenarios
