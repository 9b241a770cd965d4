#include "mhcsim/json_nesting.h"

#include <set>
#include <string>
#include <vector>

namespace mhcsim {

nlohmann::json parse_json_bounded(const std::string& text, const SourceLocation& where, const std::string& key,
                                  int max_levels) {
  // The keys of each object open, innermost last: a key given twice is refused (nlohmann keeps
  // the last silently), as toml++ refuses one in a TOML file.
  std::vector<std::set<std::string>> open_objects;
  using Event = nlohmann::json::parse_event_t;
  try {
    return nlohmann::json::parse(text, [&](int depth, Event event, nlohmann::json& parsed) {
      if (depth > max_levels)
        throw InputError(key, "nesting deeper than " + std::to_string(max_levels) + " levels", where);
      if (event == Event::object_start) open_objects.emplace_back();
      if (event == Event::object_end) open_objects.pop_back();
      if (event == Event::key && !open_objects.back().insert(parsed.get<std::string>()).second) {
        std::string name = parsed.dump();  // JSON-escaped: a newline in a key stays on one line
        if (name.size() > 64) name = name.substr(0, 60) + "...\"";
        throw InputError(key, "duplicate key " + name + " (each key once per object)", where);
      }
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(key, "malformed JSON: " + json_syntax_error(e.what()), where);
  } catch (const nlohmann::json::out_of_range&) {  // 406: number overflow
    throw InputError(key, "malformed JSON: a number overflows float64 (expected finite numbers)", where);
  }
}

}  // namespace mhcsim
