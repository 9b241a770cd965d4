#pragma once
// Counts (layers, tokens, heads, ranks) are int64_t in the specs; the formulas work in double.
// One short name for the conversion, so that a formula reads as its source writes it.
#include <cstdint>

namespace mhcsim::cost {

inline double d(int64_t v) { return static_cast<double>(v); }

}  // namespace mhcsim::cost
