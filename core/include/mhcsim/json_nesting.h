#pragma once
// nlohmann::json's DOM parse of an input file with its nesting bounded (the TOML twin is
// toml_nesting.h): the files mhcsim reads this way (benchmark output, calibration profiles,
// mappings) are a few levels deep, and an adversarial one of millions of '[' within its size
// limit would otherwise build millions of nested values, hundreds of MiB, before failing.
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"

namespace mhcsim {

inline constexpr int kMaxJsonNestingLevels = 64;

// Throws InputError("", "nesting deeper than N levels", {file, 0}) as soon as a value opens
// deeper than `max_levels`; syntax errors are nlohmann's own exceptions, for the caller to word.
inline nlohmann::json parse_json_bounded(const std::string& text, const std::string& file,
                                         int max_levels = kMaxJsonNestingLevels) {
  return nlohmann::json::parse(text, [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
    if (depth > max_levels)
      throw InputError("", "nesting deeper than " + std::to_string(max_levels) + " levels", {file, 0});
    return true;
  });
}

}  // namespace mhcsim
