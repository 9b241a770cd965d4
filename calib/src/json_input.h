#pragma once
// nlohmann::json's DOM parse of a calibration input (benchmark output, profile) with its nesting
// bounded: these files are a few levels deep, and an adversarial one of millions of '[' (within
// the 16 MiB size limit) would otherwise build millions of nested values, hundreds of MiB,
// before failing. Syntax errors say where, without quoting the file (json_syntax_error).
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"

namespace mhcsim::calib {

inline constexpr int kMaxJsonNesting = 64;

inline nlohmann::json parse_json_input(const std::string& text, const std::string& file) {
  const auto bounded = [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > kMaxJsonNesting)
      throw InputError("", "nesting deeper than " + std::to_string(kMaxJsonNesting) + " levels", {file, 0});
    return true;
  };
  try {
    return nlohmann::json::parse(text, bounded);
  } catch (const nlohmann::json::parse_error& e) {
    throw InputError("", "malformed JSON: " + json_syntax_error(e.what()), {file, 0});
  }
}

}  // namespace mhcsim::calib
