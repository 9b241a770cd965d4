// Generated requests: Poisson arrivals and token lengths by inversion, so that a seed fixes
// every request independently of the standard library's distribution implementations.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mhcsim/error.h"
#include "mhcsim/serving/request.h"

namespace mhcsim::serving {

int64_t LengthDistribution::max_tokens() const {
  const double cap = kind == Kind::Fixed ? mean_tokens : kExponentialClamp * mean_tokens;
  return std::llround(std::clamp(cap, 1.0, static_cast<double>(kMaxRequestTokens)));
}

std::string arrival_span_problem(double rate_per_s, int64_t count) {
  const double span_s = static_cast<double>(count) / rate_per_s;
  if (span_s <= kMaxArrivalSeconds) return {};
  return fmt::format(
      "{:.3g} requests/s spreads {} requests over {:.3g} s, past the simulated clock's {:.0e} s (expected a rate >= "
      "{:.3g} requests/s)",
      rate_per_s, count, span_s, kMaxArrivalSeconds, static_cast<double>(count) / kMaxArrivalSeconds);
}

PoissonSource::PoissonSource(double rate_per_s, int64_t count, LengthDistribution input, LengthDistribution output,
                             uint64_t seed)
    : rate_per_s_(rate_per_s), count_(count), input_(input), output_(output), rng_(seed) {
  require(std::isfinite(rate_per_s) && rate_per_s > 0, "--rate", "must be a number > 0 (requests/s)");
  require(count >= 1 && count <= kMaxRequests, "--requests", fmt::format("must be in [1, {}]", kMaxRequests));
  const auto span = arrival_span_problem(rate_per_s, count);
  require(span.empty(), "--rate", span);
  const auto tokens_range = fmt::format("must be in [1, {}]", kMaxRequestTokens);
  const auto in_range = [](double tokens) { return tokens >= 1 && tokens <= static_cast<double>(kMaxRequestTokens); };
  require(in_range(input.mean_tokens), "--input-tokens", tokens_range);
  require(in_range(output.mean_tokens), "--output-tokens", tokens_range);
}

double PoissonSource::uniform() {
  // 53 random bits -> (0, 1): never 0, so -log(u) stays finite.
  return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53;
}

int64_t PoissonSource::draw(const LengthDistribution& d) {
  if (d.kind == LengthDistribution::Kind::Fixed) return d.max_tokens();
  const double x = -d.mean_tokens * std::log(uniform());
  return std::llround(std::clamp(x, 1.0, static_cast<double>(d.max_tokens())));
}

std::optional<Request> PoissonSource::next() {
  if (issued_ >= count_) return std::nullopt;
  clock_s_ += -std::log(uniform()) / rate_per_s_;
  Request r;
  r.id = issued_++;
  r.arrival_s = clock_s_;
  r.input_tokens = draw(input_);
  r.output_tokens = draw(output_);
  return r;
}

std::string PoissonSource::describe() const { return fmt::format("Poisson process at {:.6g} requests/s", rate_per_s_); }

std::optional<Request> PoissonSource::largest_request() const {
  Request r;
  r.input_tokens = input_.max_tokens();
  r.output_tokens = output_.max_tokens();
  return r;
}

}  // namespace mhcsim::serving
