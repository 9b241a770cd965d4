#include "mhcsim/sweep/output.h"

#include <ostream>

#include "mhcsim/atomic_write.h"
#include "mhcsim/reports/output_dir.h"

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

void write_outputs(const SweepResult& r, const nlohmann::json& meta, const std::string& prefix,
                   bool force) {
  const std::filesystem::path csv = prefix + ".csv", json = prefix + ".json";
  reports::require_writable(csv, force);
  reports::require_writable(json, force);
  write_file_atomically(csv, [&](std::ostream& out) { write_csv(r, out); });
  write_file_atomically(json, [&](std::ostream& out) { write_json(r, meta, out); });
}

}  // namespace mhcsim::sweep
