#include "mhcsim/json_nesting.h"

namespace mhcsim {

nlohmann::json parse_json_bounded(const std::string& text, const SourceLocation& where, const std::string& key,
                                  int max_levels) {
  try {
    return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
      if (depth > max_levels)
        throw InputError(key, "nesting deeper than " + std::to_string(max_levels) + " levels", where);
      return true;
    });
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError(key, "malformed JSON: " + json_syntax_error(e.what()), where);
  } catch (const nlohmann::json::out_of_range&) {  // 406: number overflow
    throw InputError(key, "malformed JSON: a number overflows float64 (expected finite numbers)", where);
  }
}

}  // namespace mhcsim
