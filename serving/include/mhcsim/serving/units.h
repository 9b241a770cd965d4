#pragma once
// Command-line quantities of the serve verb, parsed strictly: a duration must carry its unit
// (2s, 50ms, 500us) and every value must be finite and > 0. Errors are InputError on the flag.
#include <cstdint>
#include <limits>
#include <string>
#include <string_view>

namespace mhcsim::serving {

// "<number><unit>" with unit ns, us, ms, s, min or h -> seconds.
double parse_duration(std::string_view text, const std::string& flag);
// The other way: seconds in the largest of those units that keeps the number >= 1, 4 significant
// digits ("50 ms", "15 min").
std::string duration_text(double seconds);
// A plain number > 0 (requests/s, ratios).
double parse_positive(std::string_view text, const std::string& flag);
// A ratio in [0, 1).
double parse_fraction(std::string_view text, const std::string& flag);
// An integer in [minimum, maximum] (counts: requests, replicas, tokens).
int64_t parse_count(std::string_view text, const std::string& flag, int64_t minimum = 1,
                    int64_t maximum = std::numeric_limits<int64_t>::max());

}  // namespace mhcsim::serving
