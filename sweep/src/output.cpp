#include "mhcsim/sweep/output.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"

namespace mhcsim::sweep {
namespace {

constexpr int64_t kBlock = 4096;             // rows per Table block: bounded memory for huge sweeps
constexpr const char* kWrittenBy = "sweep";  // the verb --force checks and the JSON records

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

// A sweep's manifest records its CSV's name, size and hash in "meta", its last line.
struct CsvEntry {
  std::string file;
  uint64_t bytes = 0;
  std::string fnv1a64;
};

std::string hash_text(uint64_t hash) { return fmt::format("{:016x}", hash); }

// The CSV entry of `json` when it is a manifest `mhcsim sweep` wrote; none for anything else
// (another file, a hand edit with the wrong types, a meta line past 1 MiB).
std::optional<CsvEntry> manifest_entry(const std::filesystem::path& json) {
  if (!written_by_mhcsim(json, kWrittenBy)) return std::nullopt;
  std::ifstream in(json, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  constexpr std::streamoff kTail = 1 << 20;  // the meta line holds the overrides: far below this
  in.seekg(std::max<std::streamoff>(0, size - kTail));
  const std::string tail((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = tail.rfind("\n\"meta\": ");
  const auto close = tail.find_last_of('}');
  if (at == std::string::npos || close == std::string::npos || close < at) return std::nullopt;
  const auto meta = nlohmann::json::parse(tail.substr(at + 9, close - at - 9), nullptr, false);
  if (!meta.is_object() || !meta.contains("csv")) return std::nullopt;
  const auto& e = meta["csv"];
  if (!e.is_object() || !e.contains("file") || !e["file"].is_string() || !e.contains("bytes") ||
      !e["bytes"].is_number_unsigned() || !e.contains("fnv1a64") || !e["fnv1a64"].is_string())
    return std::nullopt;
  return CsvEntry{e["file"].get<std::string>(), e["bytes"].get<uint64_t>(), e["fnv1a64"].get<std::string>()};
}

// The CSV is a sweep's when PREFIX.json records it as it is now (a CSV has no room for a
// written_by key, and one the user wrote over since is theirs), or, for a sweep killed between
// its two renames (the CSV in place, its manifest still a temporary), when that temporary does.
// Only a regular file of the recorded size is read: a FIFO or a user's 50 GB file is not.
bool sweep_wrote(const std::filesystem::path& csv, const std::filesystem::path& json) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(csv, ec)) return false;
  const uint64_t size = std::filesystem::file_size(csv, ec);
  if (ec) return false;
  std::optional<std::string> hash;  // read once, when a manifest's name and size match
  const auto vouches = [&](const std::filesystem::path& manifest) {
    const auto entry = manifest_entry(manifest);
    if (!entry || entry->file != csv.filename().string() || entry->bytes != size) return false;
    if (!hash) {
      std::ifstream data(csv, std::ios::binary);
      uint64_t h = kFnv1a64Offset;
      std::array<char, 1 << 16> chunk{};
      while (data.read(chunk.data(), chunk.size()) || data.gcount() > 0)
        h = fnv1a64_update(h, std::string_view(chunk.data(), static_cast<size_t>(data.gcount())));
      hash = hash_text(h);
    }
    return entry->fnv1a64 == *hash;
  };
  if (vouches(json)) return true;
  for (const auto& temp : leftover_temporaries(json))
    if (vouches(temp)) return true;
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
    return "{\"written_by\": \"" + written_by(kWrittenBy) + "\",\n\"axes\": " + axes.dump() +
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
      fmt::format("mhcsim {} (its manifest {} must record the CSV as it is now)", kWrittenBy,
                  json.filename().string()));
  require_output_file(json, force, "-o", kWrittenBy);
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
      manifest["csv"] = {{"file", csv.filename().string()}, {"bytes", bytes}, {"fnv1a64", hash_text(hash)}};
      json_out << w.json_tail(manifest);
    });
  });
  batch.commit();
}

void write_outputs(const SweepResult& r, const nlohmann::json& meta, const std::string& prefix, bool force) {
  stream_outputs(r.axes, r.metrics, meta, prefix, force, [&](const BlockSink& sink) { feed(r, sink); });
}

}  // namespace mhcsim::sweep
