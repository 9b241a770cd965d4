#pragma once
#include <optional>
#include <string_view>

namespace mhcsim {

enum class DType { FP32, BF16, FP16, FP8, INT4 };

// Bytes per element; INT4 packs two elements per byte.
constexpr double bytes_per_element(DType t) {
  switch (t) {
    case DType::FP32:
      return 4.0;
    case DType::BF16:
      return 2.0;
    case DType::FP16:
      return 2.0;
    case DType::FP8:
      return 1.0;
    case DType::INT4:
      return 0.5;
  }
  return 0.0;
}

std::string_view to_string(DType t);
std::optional<DType> parse_dtype(std::string_view name);  // "fp32", "bf16", "fp16", "fp8", "int4"

}  // namespace mhcsim
