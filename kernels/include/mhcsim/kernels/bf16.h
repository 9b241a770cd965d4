#pragma once
// Host-side bfloat16 storage. The kernel params carry bf16 arrays as their 16-bit patterns so
// the declarations compile without CUDA headers; device code reinterprets them as
// __nv_bfloat16 (same layout: the top half of an IEEE binary32).
#include <cstdint>
#include <cstring>

namespace mhcsim::kernels {

using bf16_bits = std::uint16_t;

// Round to nearest even, as __float2bfloat16_rn does; NaN stays a quiet NaN.
inline bf16_bits float_to_bf16(float value) {
  std::uint32_t u = 0;
  std::memcpy(&u, &value, sizeof u);
  if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fc0;
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<bf16_bits>(u >> 16);
}

inline float bf16_to_float(bf16_bits bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &u, sizeof value);
  return value;
}

inline float round_to_bf16(float value) { return bf16_to_float(float_to_bf16(value)); }

// Relative spacing of bf16 (8 significant bits): the rounding error bound of one store is half.
inline constexpr double kBf16Epsilon = 1.0 / 128.0;

}  // namespace mhcsim::kernels
