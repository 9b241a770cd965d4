// Request files (CSV or JSONL), streamed: one line read per request, every error naming
// file:line and the column.
#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/input_file.h"
#include "mhcsim/json_nesting.h"
#include "mhcsim/serving/request.h"

namespace mhcsim::serving {

namespace {
constexpr const char* kArrival = "arrival_s";
constexpr const char* kInput = "input_tokens";
constexpr const char* kOutput = "output_tokens";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// RFC 4180's fields: a comma inside double quotes ("a, b") is the field's, and a quoted field
// is given without its quotes (a doubled quote inside stays doubled: no field read here has one).
std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> cells;
  size_t start = 0;
  bool quoted = false;
  for (size_t i = 0; i <= line.size(); ++i) {
    if (i < line.size() && line[i] == '"') quoted = !quoted;
    if (i == line.size() || (line[i] == ',' && !quoted)) {
      auto cell = trim(line.substr(start, i - start));
      if (cell.size() >= 2 && cell.front() == '"' && cell.back() == '"') cell = cell.substr(1, cell.size() - 2);
      cells.push_back(cell);
      start = i + 1;
    }
  }
  return cells;
}

bool jsonl_name(const std::filesystem::path& p) {
  const auto ext = p.extension().string();
  return ext == ".jsonl" || ext == ".ndjson" || ext == ".json";
}

struct Where {
  const std::filesystem::path& path;
  int line;
  [[noreturn]] void fail(const char* key, const std::string& reason) const {
    throw InputError(key, reason, {path.string(), line});
  }
};

double parse_arrival(std::string_view text, const Where& w) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    w.fail(kArrival, fmt::format("'{}' is not a number (expected seconds >= 0)", text));
  return v;
}

int64_t parse_tokens(std::string_view text, const char* key, const Where& w) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    w.fail(key, fmt::format("'{}' is not an integer (expected tokens in [1, {}])", text, kMaxRequestTokens));
  return v;
}

void check_request(const Request& r, double last_arrival_s, const Where& w) {
  if (!std::isfinite(r.arrival_s) || r.arrival_s < 0 || r.arrival_s > kMaxArrivalSeconds)
    w.fail(kArrival, fmt::format("{} is not a time in [0, {:.0e}] (expected seconds from the start)", r.arrival_s,
                                 kMaxArrivalSeconds));
  if (r.arrival_s < last_arrival_s)
    w.fail(kArrival, fmt::format("{} is before the previous request's {} (expected arrivals in order)", r.arrival_s,
                                 last_arrival_s));
  for (const auto& [key, tokens] : {std::pair{kInput, r.input_tokens}, std::pair{kOutput, r.output_tokens}})
    if (tokens < 1 || tokens > kMaxRequestTokens)
      w.fail(key, fmt::format("{} (expected tokens in [1, {}])", tokens, kMaxRequestTokens));
}

RequestFile::Columns header_columns(std::string_view line, const Where& w) {
  RequestFile::Columns c;
  const auto cells = split_csv(line);
  c.count = static_cast<int>(cells.size());
  for (int i = 0; i < static_cast<int>(cells.size()); ++i) {
    if (cells[i] == kArrival) c.arrival = i;
    if (cells[i] == kInput) c.input = i;
    if (cells[i] == kOutput) c.output = i;
  }
  if (c.arrival < 0 || c.input < 0 || c.output < 0)
    w.fail("header", fmt::format("'{}' lacks a column (expected arrival_s, input_tokens, output_tokens)", line));
  return c;
}

double json_number(const nlohmann::json& j, const char* key, const Where& w) {
  const auto it = j.find(key);
  if (it == j.end()) w.fail(key, "missing (expected arrival_s, input_tokens and output_tokens in every object)");
  if (!it->is_number()) w.fail(key, fmt::format("{} is not a number", it->dump()));
  return it->get<double>();
}

int64_t json_tokens(const nlohmann::json& j, const char* key, const Where& w) {
  const double v = json_number(j, key, w);
  if (v != std::floor(v) || std::abs(v) > 1e15)
    w.fail(key, fmt::format("{} is not an integer (expected tokens in [1, {}])", v, kMaxRequestTokens));
  return static_cast<int64_t>(v);
}
}  // namespace

RequestFile::RequestFile(const std::filesystem::path& path)
    : path_(path),
      // No size limit: the file is streamed, and memory is bounded by the line cap instead.
      file_(std::make_unique<InputFile>(path, InputKind{.what = "request file",
                                                        .max_bytes = std::numeric_limits<uint64_t>::max(),
                                                        .raise_flag = {},
                                                        .key = "--requests-file"})) {
  jsonl_ = jsonl_name(path);
  const bool csv = path.extension() == ".csv";
  // The header (CSV) or the format (no telling extension) is decided by the first content line;
  // a JSONL one is a request, kept for next().
  auto first = next_line();
  if (!first)
    throw InputError("--requests-file", "no request in the file (expected a header and requests)", {path.string(), 0});
  if (!csv && !jsonl_) jsonl_ = first->front() == '{';
  if (jsonl_) {
    pending_ = std::move(first);
    return;
  }
  columns_ = header_columns(*first, Where{path_, line_});
}

RequestFile::~RequestFile() = default;

std::optional<std::string> RequestFile::next_line() {
  if (pending_) return std::exchange(pending_, std::nullopt);
  using traits = std::char_traits<char>;
  auto& in = *file_->stream().rdbuf();
  std::string line;
  for (;;) {
    line.clear();
    auto c = in.sbumpc();
    if (traits::eq_int_type(c, traits::eof())) break;
    if (line_ == INT_MAX) Where{path_, line_}.fail("line", "more lines than a line number holds (2^31 - 1)");
    ++line_;
    for (; !traits::eq_int_type(c, traits::eof()) && traits::to_char_type(c) != '\n'; c = in.sbumpc()) {
      if (line.size() == kMaxRequestLineBytes)
        Where{path_, line_}.fail("line", fmt::format("longer than {} (expected one request per line)",
                                                     format_byte_count(kMaxRequestLineBytes)));
      line.push_back(traits::to_char_type(c));
    }
    // Spreadsheets save CSV as UTF-8 with a byte-order mark: not part of the file's first line.
    if (line_ == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    const auto t = trim(line);
    if (!t.empty() && t.front() != '#') return std::string(t);
  }
  if (!file_->stream_error().empty()) file_->fail(fmt::format("cannot read request file ({})", file_->stream_error()));
  return std::nullopt;
}

std::optional<Request> RequestFile::next() {
  const auto line = next_line();
  if (!line) {
    if (issued_ == 0)  // a CSV header and nothing after it
      throw InputError("--requests-file", "no request in the file (expected requests after the header)",
                       {path_.string(), line_});
    return std::nullopt;
  }
  const Where w{path_, line_};
  Request r;
  r.id = issued_;
  r.line = line_;
  if (jsonl_) {
    const nlohmann::json j = parse_json_bounded(*line, {path_.string(), line_}, "line");
    if (!j.is_object())
      w.fail("line", fmt::format("{} is not a JSON object (expected {{\"arrival_s\": ..., \"input_tokens\": ..., "
                                 "\"output_tokens\": ...}})",
                                 j.type_name()));
    r.arrival_s = json_number(j, kArrival, w);
    r.input_tokens = json_tokens(j, kInput, w);
    r.output_tokens = json_tokens(j, kOutput, w);
  } else {
    const auto cells = split_csv(*line);
    if (static_cast<int>(cells.size()) != columns_.count)
      w.fail("line", fmt::format("{} columns, the header has {} (expected arrival_s, input_tokens, output_tokens)",
                                 cells.size(), columns_.count));
    r.arrival_s = parse_arrival(cells[columns_.arrival], w);
    r.input_tokens = parse_tokens(cells[columns_.input], kInput, w);
    r.output_tokens = parse_tokens(cells[columns_.output], kOutput, w);
  }
  check_request(r, last_arrival_s_, w);
  last_arrival_s_ = r.arrival_s;
  ++issued_;
  return r;
}

std::string RequestFile::describe() const { return "request file " + path_.string(); }

}  // namespace mhcsim::serving
