#include "mhcsim/serving/units.h"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "mhcsim/error.h"

namespace mhcsim::serving {

namespace {
constexpr std::array<std::pair<std::string_view, double>, 6> kUnits{
    {{"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}}};
constexpr const char* kExpected = "expected a duration > 0 with a unit: ns, us, ms, s, min or h, e.g. 2s or 50ms";

// The longest leading number; `rest` is what follows it.
bool leading_number(std::string_view text, double& value, std::string_view& rest) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return false;
  rest = text.substr(static_cast<size_t>(end - text.data()));
  return true;
}
}  // namespace

double parse_duration(std::string_view text, const std::string& flag) {
  double value = 0;
  std::string_view unit;
  if (!leading_number(text, value, unit))
    throw InputError(flag, fmt::format("'{}' is not a duration ({})", text, kExpected));
  if (unit.empty()) throw InputError(flag, fmt::format("'{}' has no unit ({})", text, kExpected));
  for (const auto& [name, seconds] : kUnits) {
    if (unit != name) continue;
    const double s = value * seconds;
    if (!std::isfinite(s)) throw InputError(flag, fmt::format("'{}' is not a finite duration ({})", text, kExpected));
    if (s <= 0) throw InputError(flag, fmt::format("'{}' is not > 0 ({})", text, kExpected));
    return s;
  }
  throw InputError(flag, fmt::format("'{}': unknown unit '{}' ({})", text, unit, kExpected));
}

std::string duration_text(double seconds) {
  // kUnits run from the smallest up: the last one that fits is the largest.
  auto unit = kUnits.front();
  for (const auto& u : kUnits)
    if (std::fabs(seconds) >= u.second) unit = u;
  return fmt::format("{:.4g} {}", seconds / unit.second, unit.first);
}

double parse_positive(std::string_view text, const std::string& flag) {
  double value = 0;
  std::string_view rest;
  if (!leading_number(text, value, rest) || !rest.empty())
    throw InputError(flag, fmt::format("'{}' is not a number (expected a number > 0)", text));
  if (!std::isfinite(value))
    throw InputError(flag, fmt::format("'{}' is not a finite number (expected a number > 0)", text));
  if (value <= 0) throw InputError(flag, fmt::format("'{}' is not > 0 (expected a number > 0)", text));
  return value;
}

double parse_fraction(std::string_view text, const std::string& flag) {
  double value = 0;
  std::string_view rest;
  if (!leading_number(text, value, rest) || !rest.empty() || !(value >= 0 && value < 1))
    throw InputError(flag, fmt::format("'{}' is not a ratio (expected a number in [0, 1), e.g. 0.563)", text));
  return value;
}

int64_t parse_count(std::string_view text, const std::string& flag, int64_t minimum, int64_t maximum) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool whole = end == text.data() + text.size() && !text.empty();
  if (whole && ec == std::errc::result_out_of_range)  // digits past int64
    throw InputError(flag, text.front() == '-'
                               ? fmt::format("{} is too small (expected an integer >= {})", text, minimum)
                               : fmt::format("{} is too large (expected an integer <= {})", text, maximum));
  if (ec != std::errc() || !whole)
    throw InputError(flag, fmt::format("'{}' is not an integer (expected an integer >= {})", text, minimum));
  if (value < minimum)
    throw InputError(flag, fmt::format("{} is too small (expected an integer >= {})", value, minimum));
  if (value > maximum)
    throw InputError(flag, fmt::format("{} is too large (expected an integer <= {})", value, maximum));
  return value;
}

}  // namespace mhcsim::serving
