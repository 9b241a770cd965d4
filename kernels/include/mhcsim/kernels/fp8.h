#pragma once
// OCP FP8 E4M3FN on the host (OCP 8-bit floating point specification v1.0): 1 sign, 4 exponent
// bits (bias 7), 3 mantissa bits, no infinities; S.1111.111 is NaN and 448 the largest finite
// value. For the CPU references and for building FP8 test data; the GPU converts with
// cuda_fp8.h, which follows the same specification.
#include <cmath>
#include <cstdint>
#include <limits>

namespace mhcsim::kernels {

using fp8_bits = std::uint8_t;

inline constexpr float kFp8E4M3Max = 448.0f;
inline constexpr fp8_bits kFp8E4M3NaN = 0x7f;

inline float fp8_e4m3_to_float(fp8_bits v) {
  const int exponent = (v >> 3) & 0xf, mantissa = v & 0x7;
  if (exponent == 0xf && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  const float magnitude = exponent == 0 ? std::ldexp(float(mantissa), -9)  // subnormal: m 2^-9
                                        : std::ldexp(1.0f + float(mantissa) / 8.0f, exponent - 7);
  return (v & 0x80) ? -magnitude : magnitude;
}

// Round to nearest, ties to even; magnitudes beyond 448 saturate to 448 (as a quantizer that
// scales by amax / 448 expects), NaN becomes NaN.
inline fp8_bits float_to_fp8_e4m3(float value) {
  if (std::isnan(value)) return kFp8E4M3NaN;
  const fp8_bits sign = std::signbit(value) ? 0x80 : 0x00;
  const float a = std::fabs(value);
  if (a >= kFp8E4M3Max) return sign | 0x7e;
  if (a < 0x1p-6f) {  // subnormal range; rounding up to 8 x 2^-9 lands on the smallest normal
    return sign | static_cast<fp8_bits>(std::nearbyint(a * 0x1p9f));
  }
  int e = 0;
  const float f = std::frexp(a, &e);  // a = f 2^e, f in [0.5, 1)
  int exponent = e - 1 + 7;
  int mantissa = static_cast<int>(std::nearbyint((2.0f * f - 1.0f) * 8.0f));
  if (mantissa == 8) {
    mantissa = 0;
    ++exponent;
  }
  const int code = (exponent << 3) | mantissa;
  return sign | static_cast<fp8_bits>(code > 0x7e ? 0x7e : code);
}

}  // namespace mhcsim::kernels
