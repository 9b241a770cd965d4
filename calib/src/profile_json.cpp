#include "mhcsim/calib/profile_json.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <ctime>
#include <map>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/json_nesting.h"
#include "mhcsim/input_file.h"
#include "mhcsim/version.h"

namespace mhcsim::calib {
namespace {

using nlohmann::json;

// Reads one typed field of `obj`, throwing `file: where.key: missing or not a <what>`.
template <class T>
T field(const json& obj, const std::string& where, const char* key, const std::string& file, const char* what) {
  const auto it = obj.find(key);
  const bool ok = it != obj.end() && (std::is_same_v<T, std::string> ? it->is_string() : it->is_number());
  if (!ok) throw InputError(where.empty() ? key : where + "." + key, fmt::format("missing or not {}", what), {file, 0});
  return it->get<T>();
}

double number(const json& o, const std::string& where, const char* key, const std::string& file) {
  return field<double>(o, where, key, file, "a number");
}
std::string text(const json& o, const std::string& where, const char* key, const std::string& file) {
  return field<std::string>(o, where, key, file, "a string");
}

const json& object(const json& o, const char* key, const std::string& file) {
  const auto it = o.find(key);
  if (it == o.end() || !it->is_object()) throw InputError(key, "missing or not an object", {file, 0});
  return *it;
}

template <class Fit>
json fit_stats(const Fit& f) {
  return {{"points", f.points},
          {"median_error_pct", f.median_error_pct},
          {"max_error_pct", f.max_error_pct},
          {"source", f.source}};
}

template <class Fit>
void read_stats(const json& o, const std::string& where, const std::string& file, Fit& f) {
  f.points = int(number(o, where, "points", file));
  f.median_error_pct = number(o, where, "median_error_pct", file);
  f.max_error_pct = number(o, where, "max_error_pct", file);
  f.source = text(o, where, "source", file);
}

void require_positive(double v, const std::string& key, const std::string& file) {
  if (!(v > 0)) throw InputError(key, "must be > 0", {file, 0});
}

// Both fit kinds are a fixed cost plus a rate (calibration.h); their JSON keys and members,
// named once per kind for the writer and the reader.
template <class Fit>
struct FitFields {
  const char* seconds_key;
  double Fit::*seconds;
  const char* gbps_key;
  double Fit::*gbps;
};
constexpr FitFields<BandwidthFit> kKernelFields{"overhead_seconds", &BandwidthFit::overhead_seconds, "bandwidth_gbps",
                                                &BandwidthFit::bandwidth_gbps};
constexpr FitFields<CollectiveFit> kCollectiveFields{"alpha_seconds", &CollectiveFit::alpha_seconds, "bus_gbps",
                                                     &CollectiveFit::bus_gbps};

template <class Fit>
json fits_to_json(const std::map<std::string, Fit>& fits, const FitFields<Fit>& k) {
  json out = json::object();
  for (const auto& [key, f] : fits) {
    out[key] = fit_stats(f);
    out[key][k.seconds_key] = f.*k.seconds;
    out[key][k.gbps_key] = f.*k.gbps;
  }
  return out;
}

// Reads doc[section] = {key: fit}; the rate must be positive.
template <class Fit>
void read_fits(const json& doc, const char* section, const FitFields<Fit>& k, const std::string& file,
               std::map<std::string, Fit>& fits) {
  for (const auto& [key, o] : object(doc, section, file).items()) {
    const std::string where = std::string(section) + "." + key;
    Fit& f = fits[key];
    f.*k.seconds = number(o, where, k.seconds_key, file);
    f.*k.gbps = number(o, where, k.gbps_key, file);
    require_positive(f.*k.gbps, where + "." + k.gbps_key, file);
    read_stats(o, where, file, f);
  }
}

std::string now_utc() { return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", fmt::gmtime(std::time(nullptr))); }

}  // namespace

json profile_to_json(const CalibrationProfile& p) {
  return {{"schema", kSchemaName},
          {"schema_version", p.schema_version},
          {"gpu_name", p.gpu_name},
          {"catalog_gpu", p.catalog_gpu},
          {"driver_version", p.driver_version},
          {"cuda_version", p.cuda_version},
          {"date", p.date},
          {"kernels", fits_to_json(p.kernels, kKernelFields)},
          {"collectives", fits_to_json(p.collectives, kCollectiveFields)},
          {"gemm_efficiency", p.gemm_efficiency ? json(*p.gemm_efficiency) : json(nullptr)}};
}

json calibration_to_json(const Calibration& c) {
  json doc = profile_to_json(c.profile);
  doc["created_utc"] = now_utc();
  doc["created_by"] = std::string("mhcsim calibrate ") + kVersion;
  doc["inputs"] = c.inputs;
  doc["gemm"] = c.gemm ? fit_stats(*c.gemm) : json(nullptr);
  json residuals = json::array();
  for (const auto& pt : c.points)
    residuals.push_back({{"file", pt.file},
                         {"benchmark", pt.benchmark},
                         {"fit", pt.fit_key},
                         {"size", pt.size},
                         {"measured_s", pt.measured_seconds},
                         {"predicted_s", pt.predicted_seconds},
                         {"error_pct", pt.error_pct()},
                         {"outlier", pt.outlier}});
  doc["residuals"] = residuals;
  return doc;
}

CalibrationProfile profile_from_json(const json& doc, const std::string& file) {
  if (!doc.is_object()) throw InputError("", "expected a JSON object (calibration profile)", {file, 0});
  const std::string schema = text(doc, "", "schema", file);
  if (schema != kSchemaName)
    throw InputError("schema", fmt::format("'{}' is not a calibration profile (expected '{}')", schema, kSchemaName),
                     {file, 0});
  CalibrationProfile p;
  p.schema_version = int(number(doc, "", "schema_version", file));
  if (p.schema_version > kSchemaVersion || p.schema_version < 1)
    throw InputError("schema_version",
                     fmt::format("{} is not supported by this mhcsim (expected 1..{}; a newer "
                                 "profile needs a newer mhcsim)",
                                 p.schema_version, kSchemaVersion),
                     {file, 0});
  p.path = file;
  p.gpu_name = text(doc, "", "gpu_name", file);
  p.catalog_gpu = text(doc, "", "catalog_gpu", file);
  p.driver_version = text(doc, "", "driver_version", file);
  p.cuda_version = text(doc, "", "cuda_version", file);
  p.date = text(doc, "", "date", file);
  read_fits(doc, "kernels", kKernelFields, file, p.kernels);
  read_fits(doc, "collectives", kCollectiveFields, file, p.collectives);
  if (const auto it = doc.find("gemm_efficiency"); it != doc.end() && !it->is_null()) {
    const double e = number(doc, "", "gemm_efficiency", file);
    if (!(e > 0 && e <= 1)) throw InputError("gemm_efficiency", "must be in (0, 1]", {file, 0});
    p.gemm_efficiency = e;
  }
  return p;
}

CalibrationProfile read_profile(const std::filesystem::path& path) {
  const std::string text = read_input_file(
      path, {.what = "calibration profile", .max_bytes = kMaxJsonDocumentBytes, .key = "calibration.profile"});
  return profile_from_json(parse_json_bounded(text, {path.string(), 0}), path.string());
}

namespace {
constexpr const char* kWrittenBy = "calibrate";  // the verb --force checks and the file records
}  // namespace

void require_profile_output(const std::filesystem::path& path, bool force, const char* option) {
  require_output_file(path, force, option, kWrittenBy);
}

void write_profile(const std::filesystem::path& path, const CalibrationProfile& profile) {
  write_file_atomically(path, with_written_by(profile_to_json(profile).dump(2), kWrittenBy) + "\n");
}

void write_calibration(const std::filesystem::path& path, const Calibration& calibration) {
  write_file_atomically(path, with_written_by(calibration_to_json(calibration).dump(2), kWrittenBy) + "\n");
}

}  // namespace mhcsim::calib
