#include "mhcsim/sweep/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <ostream>
#include <sstream>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"

namespace mhcsim::sweep {
namespace {

constexpr int64_t kBlock = 4096;  // rows per Table block: bounded memory for huge sweeps

// Feeds an in-memory result to a sink in blocks (the same path as a streamed sweep).
void feed(const SweepResult& r, const BlockSink& sink) {
  for (int64_t begin = 0; begin < r.points; begin += kBlock) {
    const int64_t end = std::min(r.points, begin + kBlock);
    SweepResult b;
    b.axes = r.axes;
    b.metrics = r.metrics;
    b.points = end - begin;
    const size_t na = r.axes.size(), nm = r.metrics.size();
    const auto s = static_cast<size_t>(begin), e = static_cast<size_t>(end);
    b.value_index.assign(r.value_index.begin() + static_cast<std::ptrdiff_t>(s * na),
                         r.value_index.begin() + static_cast<std::ptrdiff_t>(e * na));
    b.values.assign(r.values.begin() + static_cast<std::ptrdiff_t>(s * nm),
                    r.values.begin() + static_cast<std::ptrdiff_t>(e * nm));
    b.reasons.assign(r.reasons.begin() + static_cast<std::ptrdiff_t>(s),
                     r.reasons.begin() + static_cast<std::ptrdiff_t>(e));
    sink(b, begin);
  }
}

// Whether `json` is the manifest a sweep wrote for `csv` as the CSV is now: its "meta" object,
// the last line, names the CSV with its size and FNV-1a 64. A CSV has no room for a written_by
// key, and a manifest beside a CSV the user wrote since must not vouch for it.
bool vouches_for(const std::filesystem::path& json, const std::filesystem::path& csv) {
  if (!written_by_mhcsim(json, "sweep")) return false;
  std::ifstream in(json, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  constexpr std::streamoff kTail = 1 << 20;  // the meta line holds the overrides: far below this
  in.seekg(std::max<std::streamoff>(0, size - kTail));
  const std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = tail.rfind("\n\"meta\": ");
  const auto close = tail.find_last_of('}');
  if (at == std::string::npos || close == std::string::npos || close < at) return false;
  const auto meta = nlohmann::json::parse(tail.substr(at + 9, close - at - 9), nullptr, false);
  if (meta.is_discarded() || !meta.contains("csv") || !meta["csv"].is_object()) return false;
  const auto& entry = meta["csv"];
  std::ifstream data(csv, std::ios::binary);
  uint64_t bytes = 0, hash = kFnv1a64Offset;
  std::array<char, 1 << 16> chunk{};
  while (data.read(chunk.data(), chunk.size()) || data.gcount() > 0) {
    const auto n = static_cast<size_t>(data.gcount());
    hash = fnv1a64_update(hash, std::string_view(chunk.data(), n));
    bytes += n;
  }
  return entry.value("file", "") == csv.filename().string() && entry.value("bytes", uint64_t{0}) == bytes &&
         entry.value("fnv1a64", "") == fmt::format("{:016x}", hash);
}

// The CSV is a sweep's when PREFIX.json vouches for it, or, for a sweep killed between its two
// renames (OutputBatch::commit: the CSV is in place, its manifest still a temporary), when that
// temporary does.
bool sweep_wrote(const std::filesystem::path& csv, const std::filesystem::path& json) {
  if (vouches_for(json, csv)) return true;
  const std::string temp_prefix = fmt::format(".{}.tmp.", json.filename().string());
  std::error_code ec;
  for (std::filesystem::directory_iterator it(csv.parent_path().empty() ? "." : csv.parent_path(), ec), end;
       !ec && it != end; it.increment(ec))
    if (it->path().filename().string().starts_with(temp_prefix) && vouches_for(it->path(), csv)) return true;
  return false;
}

// The CSV and JSON texts of a sweep, block by block: one format for files written at once and
// files written as a sweep runs.
class Writer {
 public:
  Writer(const std::vector<SweepAxis>& axes, const std::vector<Metric>& metrics) : axes_(axes), metrics_(metrics) {}

  std::string csv(const SweepResult& block) {
    std::ostringstream out;
    to_table(block, {}, 0, block.points, "sweep").print_csv(out, !csv_header_done_);
    csv_header_done_ = true;
    return out.str();
  }

  std::string json_head() const {
    nlohmann::json axes = nlohmann::json::array(), metrics = nlohmann::json::array();
    for (const auto& a : axes_) axes.push_back({{"key", a.key}, {"values", a.values}});
    for (const auto& m : metrics_) metrics.push_back({{"key", m.column.key}, {"higher_is_better", m.higher_is_better}});
    return "{\"written_by\": \"" + written_by("sweep") + "\",\n\"axes\": " + axes.dump() +
           ",\n\"metrics\": " + metrics.dump() + ",\n\"points\": [";
  }

  std::string json_rows(const SweepResult& block) {
    std::string out;
    for (const auto& row : to_table(block, {}, 0, block.points, "sweep").to_json()) {
      out += (first_row_ ? "\n" : ",\n") + row.dump();
      first_row_ = false;
    }
    feasible_ += block.feasible_count();
    return out;
  }

  std::string json_tail(const nlohmann::json& meta) const {
    return fmt::format("\n],\n\"feasible_points\": {},\n\"meta\": {}}}\n", feasible_, meta.dump());
  }

 private:
  const std::vector<SweepAxis>& axes_;
  const std::vector<Metric>& metrics_;
  bool csv_header_done_ = false;
  bool first_row_ = true;
  int64_t feasible_ = 0;
};

}  // namespace

void write_csv(const SweepResult& r, std::ostream& out) {
  Writer w(r.axes, r.metrics);
  feed(r, [&](const SweepResult& b, int64_t) { out << w.csv(b); });
}

void write_json(const SweepResult& r, const nlohmann::json& meta, std::ostream& out) {
  Writer w(r.axes, r.metrics);
  out << w.json_head();
  feed(r, [&](const SweepResult& b, int64_t) { out << w.json_rows(b); });
  out << w.json_tail(meta);
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
  const std::filesystem::path csv = prefix + ".csv", json = prefix + ".json";
  require_output_file(
      csv, force, "-o", [&](const std::filesystem::path&) { return sweep_wrote(csv, json); },
      fmt::format("mhcsim sweep (as its manifest {} records it)", json.filename().string()));
  require_output_file(json, force, "-o", "sweep");
}

void stream_outputs(const std::vector<SweepAxis>& axes, const std::vector<Metric>& metrics, const nlohmann::json& meta,
                    const std::string& prefix, bool force, const std::function<void(const BlockSink&)>& run) {
  require_outputs(prefix, force);
  const std::filesystem::path csv = prefix + ".csv", json = prefix + ".json";
  OutputBatch batch;
  Writer w(axes, metrics);
  // The JSON is written inside the CSV's writer, so both are open while the sweep runs; the
  // batch renames in the order added: the CSV, then the JSON that vouches for it.
  batch.add(csv, [&](std::ostream& csv_out) {
    batch.add(json, [&](std::ostream& json_out) {
      uint64_t bytes = 0, hash = kFnv1a64Offset;
      json_out << w.json_head();
      run([&](const SweepResult& block, int64_t) {
        const std::string text = w.csv(block);
        csv_out << text;
        bytes += text.size();
        hash = fnv1a64_update(hash, text);
        json_out << w.json_rows(block);
      });
      nlohmann::json manifest = meta;
      manifest["csv"] = {
          {"file", csv.filename().string()}, {"bytes", bytes}, {"fnv1a64", fmt::format("{:016x}", hash)}};
      json_out << w.json_tail(manifest);
    });
  });
  batch.commit();
}

void write_outputs(const SweepResult& r, const nlohmann::json& meta, const std::string& prefix, bool force) {
  stream_outputs(r.axes, r.metrics, meta, prefix, force, [&](const BlockSink& sink) { feed(r, sink); });
}

}  // namespace mhcsim::sweep
