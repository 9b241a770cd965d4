#pragma once
// Unit constants. Memory is printed in binary units (GiB), bandwidth in decimal (GB/s) as
// vendor sheets and nccl-tests do; see DESIGN.md "Units".
#include <cstdint>

namespace mhcsim {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kKB = 1e3;
inline constexpr double kMB = 1e6;
inline constexpr double kGB = 1e9;
inline constexpr double kTB = 1e12;
inline constexpr double kTFLOP = 1e12;
inline constexpr double kUs = 1e-6;
inline constexpr double kMs = 1e-3;

constexpr double gbps_to_bytes_per_second(double gbps) { return gbps * kGB; }
constexpr double tflops_to_flops_per_second(double tflops) { return tflops * kTFLOP; }

}  // namespace mhcsim
