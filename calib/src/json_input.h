#pragma once
// A calibration input (benchmark output, profile) parsed with its nesting bounded
// (parse_json_bounded); syntax errors say where, without quoting the file (json_syntax_error).
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/json_nesting.h"

namespace mhcsim::calib {

inline nlohmann::json parse_json_input(const std::string& text, const std::string& file) {
  try {
    return parse_json_bounded(text, file);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("", "malformed JSON: " + json_syntax_error(e.what()), {file, 0});
  }
}

}  // namespace mhcsim::calib
