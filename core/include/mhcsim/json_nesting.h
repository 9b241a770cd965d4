#pragma once
// nlohmann::json's DOM parse of input text, every failure one InputError, with its nesting
// bounded (the TOML twin is toml_nesting.h): the files mhcsim reads this way (benchmark output,
// calibration profiles, mappings, config.json, request-file lines) are a few levels deep, and an
// adversarial one of millions of '[' within its size limit would otherwise build millions of
// nested values, hundreds of MiB, before failing.
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"

namespace mhcsim {

inline constexpr int kMaxJsonNestingLevels = 64;

// Throws InputError(key, reason, where): "nesting deeper than N levels" as soon as a value opens
// deeper than `max_levels`; "malformed JSON: ..." for a syntax error (where in the text, without
// quoting it: json_syntax_error) or a number beyond float64 (1e400), which nlohmann reports as
// out_of_range, not as a parse error; "duplicate key" for a key given twice in one object.
nlohmann::json parse_json_bounded(const std::string& text, const SourceLocation& where, const std::string& key = "",
                                  int max_levels = kMaxJsonNestingLevels);

}  // namespace mhcsim
