#include "parse.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

#include "mhcsim/toml_nesting.h"
#include "schema.h"

namespace mhcsim::scenarios {

toml::table parse_scenario_text(const std::string& toml_text, const std::string& file_name) {
  check_toml_nesting(toml_text, file_name);
  try {
    return toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& e) {
    throw InputError("", fmt::format("TOML syntax error: {}", e.description()),
                     {file_name, static_cast<int>(e.source().begin.line)});
  }
}

size_t schema_index(const Override& o) {
  const auto& schema = scenario_schema();
  std::vector<std::string> known;
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].key == o.key) return i;
    known.push_back(schema[i].key);
  }
  throw InputError(o.key, "unknown key" + closest_key(o.key, known), kSetLocation);
}

toml::table parse_override_value(const Override& o) {
  const std::string_view source = kSetLocation.file;
  try {
    check_toml_nesting("v = " + o.value, kSetLocation.file);
  } catch (const InputError& e) {  // name the key given, not the "v" parsed
    throw InputError(o.key, e.reason(), kSetLocation);
  }
  try {
    return toml::parse("v = " + o.value, source);
  } catch (const toml::parse_error&) {
    // A TOML decimal integer past 64 bits is no TOML integer, and an integer key would read it as
    // a string below: [+-] then 0, or a nonzero digit and digits with single '_' between them.
    std::string_view digits = o.value;
    if (!digits.empty() && (digits.front() == '+' || digits.front() == '-')) digits.remove_prefix(1);
    const bool decimal = !digits.empty() && digits.front() >= '1' && digits.front() <= '9' && digits.back() != '_' &&
                         digits.find("__") == std::string_view::npos &&
                         std::all_of(digits.begin(), digits.end(),
                                     [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '_'; });
    const std::string& expected = scenario_schema()[schema_index(o)].expected;
    if (decimal && expected.rfind("integer", 0) == 0)
      throw InputError(o.key, fmt::format("{} is out of range (an integer past 64 bits)", o.value), kSetLocation);
    // Nor is a float past a double's range (1e400): out of range for a number key, not "a string".
    const std::string text(o.value);
    char* end = nullptr;
    errno = 0;
    (void)std::strtod(text.c_str(), &end);
    if (!text.empty() && end == text.c_str() + text.size() && errno == ERANGE &&
        expected.find("number") != std::string::npos)
      throw InputError(o.key, fmt::format("{} is out of range (past a double)", o.value), kSetLocation);
    std::string quoted = "\"";
    for (char ch : o.value) quoted += (ch == '"' || ch == '\\') ? std::string{'\\', ch} : std::string{ch};
    try {
      return toml::parse("v = " + quoted + "\"", source);
    } catch (const toml::parse_error& e) {
      throw InputError(o.key, fmt::format("cannot read value '{}': {}", o.value, e.description()), kSetLocation);
    }
  }
}

}  // namespace mhcsim::scenarios
