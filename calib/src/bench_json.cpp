#include "mhcsim/calib/bench_json.h"

#include <fmt/format.h>

#include <charconv>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/json_nesting.h"
#include "mhcsim/input_file.h"

namespace mhcsim::calib {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& file, const std::string& key, const std::string& why) {
  throw InputError(key, why, {file, 0});
}

double seconds_per_unit(const std::string& unit, const std::string& file, const std::string& name) {
  if (unit == "ns") return 1e-9;
  if (unit == "us") return 1e-6;
  if (unit == "ms") return 1e-3;
  if (unit == "s") return 1.0;
  fail(file, name, fmt::format("time_unit '{}' (expected ns, us, ms or s)", unit));
}

// First string among `keys` in the context (kernels/bench may spell them differently).
std::string context_string(const json& ctx, std::initializer_list<const char*> keys) {
  for (const char* k : keys)
    if (auto it = ctx.find(k); it != ctx.end() && it->is_string()) return it->get<std::string>();
  return {};
}

BenchContext parse_context(const json& doc, const std::string& file) {
  const auto it = doc.find("context");
  if (it == doc.end() || !it->is_object())
    fail(file, "context", "missing (expected Google Benchmark JSON with a context object)");
  const json& ctx = *it;
  BenchContext c;
  c.gpu_name = context_string(ctx, {"gpu_name", "gpu", "device_name"});
  c.driver_version = context_string(ctx, {"driver_version", "driver", "cuda_driver"});
  c.cuda_version = context_string(ctx, {"cuda_version", "cuda", "cuda_runtime"});
  c.nccl_version = context_string(ctx, {"nccl_version", "nccl"});
  c.date = context_string(ctx, {"date"});
  c.host_name = context_string(ctx, {"host_name"});
  if (c.gpu_name.empty())
    fail(file, "context.gpu_name", "missing (expected the GPU name recorded with benchmark::AddCustomContext)");
  return c;
}

// "BM_x/n:4/C:2560/manual_time" -> family "BM_x", args {n:4, C:2560}; unnamed args are skipped.
std::map<std::string, double> name_args(const std::string& name) {
  std::map<std::string, double> args;
  std::istringstream parts(name);
  std::string part;
  std::getline(parts, part, '/');  // the family
  while (std::getline(parts, part, '/')) {
    const auto colon = part.find(':');
    if (colon == std::string::npos) continue;
    double v = 0;
    const char* first = part.data() + colon + 1;
    const char* last = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(first, last, v);
    if (ec == std::errc() && ptr == last) args[part.substr(0, colon)] = v;
  }
  return args;
}

bool ends_with(const std::string& s, std::string_view tail) { return s.ends_with(tail); }

double number(const json& row, const char* key, const std::string& file, const std::string& name) {
  const auto it = row.find(key);
  if (it == row.end() || !it->is_number()) fail(file, name, fmt::format("field '{}' missing or not a number", key));
  return it->get<double>();
}

// Keys of a benchmark row that are Google Benchmark's own, not user counters.
bool is_builtin_field(const std::string& key) {
  static const char* builtin[] = {"name",
                                  "family_index",
                                  "per_family_instance_index",
                                  "run_name",
                                  "run_type",
                                  "repetitions",
                                  "repetition_index",
                                  "threads",
                                  "iterations",
                                  "real_time",
                                  "cpu_time",
                                  "time_unit",
                                  "bytes_per_second",
                                  "items_per_second",
                                  "aggregate_name",
                                  "aggregate_unit",
                                  "error_occurred",
                                  "error_message",
                                  "label"};
  for (const char* b : builtin)
    if (key == b) return true;
  return false;
}

const KernelClass* class_or_throw(const std::string& name, const std::string& file) {
  const std::string family = name.substr(0, name.find('/'));
  const KernelClass* k = find_kernel_class(family);
  if (!k)
    fail(file, name,
         fmt::format("unknown kernel class '{}' (expected BM_<class> or NCCL_<op> with class one "
                     "of: {})",
                     family, known_kernel_class_names()));
  return k;
}

Measurement parse_row(const json& row, const std::string& file) {
  Measurement m;
  m.file = file;
  // run_name: an aggregate's name without its "_median" tail (same as name for iterations).
  auto name_it = row.find("run_name");
  if (name_it == row.end()) name_it = row.find("name");
  if (name_it == row.end() || !name_it->is_string()) fail(file, "benchmarks", "row without a name");
  m.name = name_it->get<std::string>();
  m.kernel = class_or_throw(m.name, file);
  const double unit_s = seconds_per_unit(row.value("time_unit", std::string("ns")), file, m.name);
  m.seconds = number(row, "real_time", file, m.name) * unit_s;
  if (!(m.seconds > 0)) fail(file, m.name, "real_time must be > 0");
  // Google Benchmark divides rates by the manual/real time when the benchmark uses it and by
  // the CPU time otherwise (the name says which); multiply back by the same time.
  const bool rate_on_real = ends_with(m.name, "/manual_time") || ends_with(m.name, "/real_time");
  const double rate_s = rate_on_real ? m.seconds : number(row, "cpu_time", file, m.name) * unit_s;
  if (auto it = row.find("bytes_per_second"); it != row.end() && it->is_number()) m.bytes = it->get<double>() * rate_s;
  m.args = name_args(m.name);
  for (const auto& [key, value] : row.items())
    if (value.is_number() && !is_builtin_field(key)) m.args.emplace(key, value.get<double>());
  // kernels/bench's run_timed also records the byte count itself: exact, no rate round trip.
  m.bytes = arg_or(m, "model_bytes", m.bytes);
  return m;
}

// mhcsim_nccl_bench --json: {"context": {nranks, devices: "<GPU>, NCCL <v>", nccl},
// "rows": [{name: "NCCL_alltoall/bytes:B/ranks:N", size_bytes, time_us, wrong}]}.
BenchFile parse_nccl_probe(const json& doc, const std::string& file) {
  BenchFile f;
  f.path = file;
  const json& ctx = doc.at("context");
  const std::string devices = context_string(ctx, {"devices"});
  f.context.gpu_name = devices.substr(0, devices.find(", NCCL"));
  if (auto it = ctx.find("nccl"); it != ctx.end() && it->is_number()) f.context.nccl_version = it->dump();
  if (f.context.gpu_name.empty()) fail(file, "context.devices", "missing (expected \"<GPU name>, NCCL <version>\")");
  for (const auto& row : doc.at("rows")) {
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string())
      fail(file, "rows", "every row must be an object with a name");
    Measurement m;
    m.file = file;
    m.name = row["name"].get<std::string>();
    m.kernel = class_or_throw(m.name, file);
    m.seconds = number(row, "time_us", file, m.name) * 1e-6;
    m.bytes = number(row, "size_bytes", file, m.name);
    if (!(m.seconds > 0)) fail(file, m.name, "time_us must be > 0");
    if (const double wrong = row.value("wrong", 0.0); wrong > 0) {
      f.skipped.push_back(fmt::format("{}: {:.0f} wrong elements (correctness check failed)", m.name, wrong));
      continue;
    }
    m.args = name_args(m.name);
    f.measurements.push_back(std::move(m));
  }
  return f;
}

BenchFile parse_google_benchmark(const json& doc, const std::string& file_name) {
  BenchFile f;
  f.path = file_name;
  f.context = parse_context(doc, file_name);
  const auto rows = doc.find("benchmarks");
  if (rows == doc.end() || !rows->is_array())
    fail(file_name, "benchmarks", "missing (expected an array of benchmark rows)");
  // Repetitions are separate points; aggregates are used only when a run reported nothing else
  // (--benchmark_report_aggregates_only), and then only the median.
  bool any_iteration = false;
  for (const auto& row : *rows)
    any_iteration |= row.is_object() && row.value("run_type", std::string("iteration")) == "iteration";
  for (const auto& row : *rows) {
    if (!row.is_object()) fail(file_name, "benchmarks", "every row must be an object");
    const auto type = row.value("run_type", std::string("iteration"));
    const bool use = any_iteration ? type == "iteration" : row.value("aggregate_name", std::string()) == "median";
    if (!use) continue;
    if (row.value("error_occurred", false)) {
      f.skipped.push_back(
          fmt::format("{}: {}", row.value("name", std::string("?")), row.value("error_message", std::string("error"))));
      continue;
    }
    f.measurements.push_back(parse_row(row, file_name));
  }
  return f;
}

}  // namespace

BenchFile parse_benchmark_json(const std::string& text, const std::string& file_name) {
  const json doc = parse_json_bounded(text, {file_name, 0});
  if (!doc.is_object()) fail(file_name, "", "expected a JSON object (Google Benchmark output)");
  try {
    const bool nccl_probe = doc.contains("rows") && doc["rows"].is_array() && doc.contains("context");
    return nccl_probe ? parse_nccl_probe(doc, file_name) : parse_google_benchmark(doc, file_name);
  } catch (const json::exception& e) {  // a field of the wrong type deep in a row
    fail(file_name, "", fmt::format("unexpected JSON structure: {}", e.what()));
  }
}

BenchFile read_benchmark_file(const std::filesystem::path& path) {
  return parse_benchmark_json(read_input_file(path, {.what = "benchmark file", .max_bytes = kMaxJsonDocumentBytes}),
                              path.string());
}

double arg_or(const Measurement& m, const std::string& key, double fallback) {
  const auto it = m.args.find(key);
  return it == m.args.end() ? fallback : it->second;
}

double require_arg(const Measurement& m, const std::string& key) {
  const auto it = m.args.find(key);
  if (it == m.args.end())
    throw InputError(m.name, fmt::format("needs '{}' (a {}:<value> name arg or counter)", key, key), {m.file, 0});
  return it->second;
}

}  // namespace mhcsim::calib
