#pragma once
// Requests as the serving simulator sees them, and where they come from: a Poisson process or
// a request file. Sources are pulled one request at a time, so the simulator never holds more
// than the requests in flight (a file is streamed, not loaded).
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <string>

namespace mhcsim {
class InputFile;
}

namespace mhcsim::serving {

// The simulated clock is a double: up to 1e9 s (31.7 years) it resolves 0.12 us, far below one
// iteration; much later, a 50 ms iteration would round away (arrivals at 1e300 s gave TTFTs of
// 0). Arrivals past it are refused: a Poisson run's expected span (requests / rate), a file's
// arrival_s.
constexpr double kMaxArrivalSeconds = 1e9;
// Requests one Poisson run may simulate: ~35 min at bench_serving's ~470k requests/s.
constexpr int64_t kMaxRequests = 1'000'000'000;
constexpr int64_t kDefaultRequests = 1000;  // a Poisson run's, when none is given
// Tokens one request may hold (prompt or output, each): a billion, past any context window,
// and small enough that a prompt plus its output cannot overflow the simulator's counters.
constexpr int64_t kMaxRequestTokens = int64_t{1} << 30;
// A request file line: three numbers, or a JSONL object that may carry the prompt text beside
// them; the reader never holds more than one line.
constexpr size_t kMaxRequestLineBytes = size_t{4} << 20;

struct Request {
  int64_t id = 0;
  double arrival_s = 0;
  int64_t input_tokens = 0;   // prompt, prefix-cache hits included
  int64_t output_tokens = 0;  // generated, the first (from prefill) included
  int line = 0;               // request file line (0 when generated), for errors
};

class RequestSource {
 public:
  virtual ~RequestSource() = default;
  // The next request in arrival order, or nothing when the source is exhausted. Throws
  // InputError naming file:line for a malformed request file.
  virtual std::optional<Request> next() = 0;
  // Where requests come from, for messages ("request file x.csv", "Poisson process").
  virtual std::string describe() const = 0;
  // The longest prompt and the longest answer the source can produce, for the up-front KV check
  // (a prefill replica holds the prompt, a decode replica both); nothing when unknown until read
  // (files: each request is checked as it arrives).
  virtual std::optional<Request> largest_request() const { return std::nullopt; }
  // The arrival rate the source was asked for (requests/s); 0 when it has none (files).
  virtual double rate_per_s() const { return 0; }
  // The file requests are read from, for file:line errors; empty for generated requests.
  virtual std::string file_path() const { return {}; }
};

// Token lengths drawn per request: a fixed value, or exponential with the given mean (rounded,
// at least 1, clamped at kExponentialClamp x mean so that one request cannot outgrow any KV
// cache by chance; the clamp moves the mean by e^-8, 0.03%), never past kMaxRequestTokens.
struct LengthDistribution {
  enum class Kind { Fixed, Exponential };
  Kind kind = Kind::Fixed;
  double mean_tokens = 0;
  static constexpr double kExponentialClamp = 8.0;
  int64_t max_tokens() const;
};

// Why `count` Poisson arrivals at `rate_per_s` cannot be simulated (their expected span passes
// kMaxArrivalSeconds), or empty; the sentence names no argument.
std::string arrival_span_problem(double rate_per_s, int64_t count);

// Poisson arrivals at `rate_per_s` (exponential gaps by inversion of a 64-bit Mersenne Twister,
// so a seed gives the same requests on every platform), `count` requests.
class PoissonSource final : public RequestSource {
 public:
  PoissonSource(double rate_per_s, int64_t count, LengthDistribution input, LengthDistribution output, uint64_t seed);
  std::optional<Request> next() override;
  std::string describe() const override;
  std::optional<Request> largest_request() const override;
  double rate_per_s() const override { return rate_per_s_; }

 private:
  double uniform();  // (0, 1)
  int64_t draw(const LengthDistribution& d);
  double rate_per_s_;
  int64_t count_;
  LengthDistribution input_, output_;
  std::mt19937_64 rng_;
  int64_t issued_ = 0;
  double clock_s_ = 0;
};

// A request file, streamed line by line. CSV: a header naming arrival_s, input_tokens and
// output_tokens (any order, other columns ignored), then one request per line. JSONL: one object
// per line with those keys. Blank lines and lines starting with '#' are skipped. Arrivals must
// not decrease; token counts are integers in [1, kMaxRequestTokens]. The file is opened as every
// input file is (mhcsim/input_file.h: regular files only) and lines are capped at
// kMaxRequestLineBytes, so memory stays bounded whatever the path names. The format is the
// extension's (.csv, .jsonl / .ndjson / .json), else the first non-blank character's ('{' = JSONL).
class RequestFile final : public RequestSource {
 public:
  explicit RequestFile(const std::filesystem::path& path);
  ~RequestFile() override;
  std::optional<Request> next() override;
  std::string describe() const override;
  std::string file_path() const override { return path_.string(); }

  struct Columns {
    int arrival = -1, input = -1, output = -1;
    int count = 0;  // the header's columns: every row has as many
  };

 private:
  std::optional<std::string> next_line();
  std::filesystem::path path_;
  std::unique_ptr<InputFile> file_;
  std::optional<std::string> pending_;  // JSONL: the first line (number line_), read to tell the format
  bool jsonl_ = false;
  Columns columns_;
  int line_ = 0;
  int64_t issued_ = 0;
  double last_arrival_s_ = 0;
};

}  // namespace mhcsim::serving
