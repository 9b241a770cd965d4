#pragma once
// toml++ builds a table per part of a dotted key or table header, and per nested array or
// inline table, recursing as it goes (and again when the tables are freed): a key of 40,000
// parts, an 80 KB file, overflows the stack (issue 16, C1). This linear scan bounds the
// nesting before the parser sees the text. No real scenario or patterns file is deeper than 4.
#include <string>
#include <string_view>

namespace mhcsim {

inline constexpr int kMaxTomlNestingLevels = 64;

// Throws InputError(key, "nesting deeper than N levels ...", {file, line}) when a key or value
// sits deeper than `max_levels`: every part of its table header and of its dotted key, and
// every array or inline table around it, is one level. Strings and comments are skipped;
// anything else, syntax errors included, is left to the parser.
void check_toml_nesting(std::string_view text, const std::string& file, int max_levels = kMaxTomlNestingLevels);

}  // namespace mhcsim
