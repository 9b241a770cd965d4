#include "mhcsim/sweep/output.h"

#include <fmt/format.h>

#include <ostream>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"

namespace mhcsim::sweep {
namespace {

constexpr int64_t kBlock = 4096;  // rows per Table block: bounded memory for huge sweeps

template <class Write>
void for_each_block(const SweepResult& r, Write&& write) {
  for (int64_t begin = 0; begin < r.points; begin += kBlock)
    write(to_table(r, {}, begin, std::min(r.points, begin + kBlock), "sweep"), begin == 0);
}

}  // namespace

void write_csv(const SweepResult& r, std::ostream& out) {
  if (r.points == 0) return;
  for_each_block(r, [&](const reports::Table& t, bool first) { t.print_csv(out, first); });
}

void write_json(const SweepResult& r, const nlohmann::json& meta, std::ostream& out) {
  nlohmann::json axes = nlohmann::json::array(), metrics = nlohmann::json::array();
  for (const auto& a : r.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
  for (const auto& m : r.metrics)
    metrics.push_back({{"key", m.column.key}, {"higher_is_better", m.higher_is_better}});
  out << "{\"meta\": " << meta.dump() << ",\n\"axes\": " << axes.dump()
      << ",\n\"metrics\": " << metrics.dump() << ",\n\"feasible_points\": " << r.feasible_count()
      << ",\n\"points\": [";
  bool first_row = true;
  for_each_block(r, [&](const reports::Table& t, bool) {
    for (const auto& row : t.to_json()) {
      out << (first_row ? "\n" : ",\n") << row.dump();
      first_row = false;
    }
  });
  out << "\n]}\n";
}

void require_outputs(const std::string& prefix, bool force) {
  const char* expected = "expected a file prefix such as out/sweep: sweep writes PREFIX.csv and PREFIX.json";
  if (prefix.empty()) throw InputError("-o", fmt::format("empty path ({})", expected));
  const std::filesystem::path p(prefix);
  if (!p.has_filename() || p.filename() == "." || p.filename() == "..")
    throw InputError("-o", fmt::format("'{}' names a directory ({})", prefix, expected));
  std::error_code ec;
  const auto type = std::filesystem::status(p, ec).type();
  if (type != std::filesystem::file_type::not_found && type != std::filesystem::file_type::none &&
      type != std::filesystem::file_type::regular && type != std::filesystem::file_type::directory)
    throw InputError("-o", fmt::format("'{}' is a device or other special file ({})", prefix, expected));
  require_output_file(prefix + ".csv", force);
  require_output_file(prefix + ".json", force);
}

void write_outputs(const SweepResult& r, const nlohmann::json& meta, const std::string& prefix,
                   bool force) {
  require_outputs(prefix, force);
  const std::filesystem::path csv = prefix + ".csv", json = prefix + ".json";
  OutputBatch batch;
  const WrittenFile csv_written = batch.add(csv, [&](std::ostream& out) { write_csv(r, out); });
  nlohmann::json manifest = meta;
  manifest["csv"] = {{"file", csv.filename().string()},
                     {"bytes", csv_written.bytes},
                     {"fnv1a64", fmt::format("{:016x}", csv_written.fnv1a64)}};
  batch.add(json, [&](std::ostream& out) { write_json(r, manifest, out); });
  batch.commit();
}

}  // namespace mhcsim::sweep
