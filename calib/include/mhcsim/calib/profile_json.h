#pragma once
// The calibration profile file (JSON). Schema "mhcsim.calibration", version kSchemaVersion:
//   { "schema", "schema_version", "gpu_name", "catalog_gpu", "driver_version", "cuda_version",
//     "date", "kernels": {class: BandwidthFit}, "collectives": {key: CollectiveFit},
//     "gemm_efficiency": number | null,
//     written by calibrate, not read back: "created_utc", "created_by", "inputs", "gemm",
//     "residuals": [{file, benchmark, fit, size, measured_s, predicted_s, error_pct, outlier}] }
// A newer schema version is refused: fields this build does not know could change meaning.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calibration.h"

namespace mhcsim::calib {

inline constexpr int kSchemaVersion = 1;
inline constexpr const char* kSchemaName = "mhcsim.calibration";

nlohmann::json profile_to_json(const CalibrationProfile& profile);
// The profile plus the per-point residuals, the GEMM summary and the inputs.
nlohmann::json calibration_to_json(const Calibration& calibration);

// Throws InputError naming the file and the key for malformed JSON, a missing or mistyped
// field, another schema or a newer version.
CalibrationProfile profile_from_json(const nlohmann::json& doc, const std::string& file_name);
CalibrationProfile read_profile(const std::filesystem::path& path);

// Before the kernels run: `path` can take a profile, replacing only one calibrate wrote
// (core/atomic_write.h); `option` names it as the caller spells it ("-o", "output").
void require_profile_output(const std::filesystem::path& path, bool force, const char* option);
// Atomic (core/atomic_write.h): a crash never leaves half a profile.
void write_profile(const std::filesystem::path& path, const CalibrationProfile& profile);
void write_calibration(const std::filesystem::path& path, const Calibration& calibration);

}  // namespace mhcsim::calib
