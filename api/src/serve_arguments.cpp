#include "mhcsim/api/serve_arguments.h"

#include <fmt/format.h>

#include <utility>

#include "mhcsim/error.h"
#include "mhcsim/serving/units.h"
#include "mhcsim/threads.h"

namespace mhcsim::api {

ServeRequest parse_serve_arguments(const ServeArguments& a) {
  using namespace serving;
  using namespace serve_args;
  const auto name = [&](const ArgumentName& n) { return n.in(a.names); };
  ServeRequest r;
  r.names = a.names;
  if (!a.rate.empty()) r.rate_per_s = parse_positive(a.rate, name(kRate));
  // A file holds its own requests: a count beside it would be ignored, so it is refused.
  if (!a.requests.empty() && !a.requests_file.empty())
    throw InputError(name(kRequests), fmt::format("a request file has its own requests (expected {} or {}, not both)",
                                                  name(kRequests), name(kRequestsFile)));
  r.requests = a.requests.empty() ? kDefaultRequests : parse_count(a.requests, name(kRequests), 1, kMaxRequests);
  r.requests_file = a.requests_file;
  // A file holds its own lengths and arrivals: what shapes generated requests would be ignored.
  if (!a.requests_file.empty())
    for (const auto& [text, n] : {std::pair{&a.input_tokens, kInputTokens}, std::pair{&a.output_tokens, kOutputTokens},
                                  std::pair{&a.lengths, kLengths}, std::pair{&a.seed, kSeed}})
      if (!text->empty())
        throw InputError(name(n), fmt::format("shapes generated requests; a request file has its own (expected {} or "
                                              "{}, not both)",
                                              name(n), name(kRequestsFile)));
  LengthDistribution::Kind kind = LengthDistribution::Kind::Fixed;
  if (a.lengths == "exponential")
    kind = LengthDistribution::Kind::Exponential;
  else if (!a.lengths.empty() && a.lengths != "fixed")
    throw InputError(name(kLengths), fmt::format("'{}' (expected fixed or exponential)", a.lengths));
  // A mean of 0: the scenario's workload.context_len.
  r.input = {kind, a.input_tokens.empty()
                       ? 0.0
                       : static_cast<double>(parse_count(a.input_tokens, name(kInputTokens), 1, kMaxRequestTokens))};
  // Not given: ServeRequest's defaults.
  r.output.kind = kind;
  if (!a.output_tokens.empty())
    r.output.mean_tokens = static_cast<double>(parse_count(a.output_tokens, name(kOutputTokens), 1, kMaxRequestTokens));
  if (!a.seed.empty()) r.seed = static_cast<uint64_t>(parse_count(a.seed, name(kSeed), 0));
  r.jobs = static_cast<int>(parse_count(a.jobs, name(kJobs), 0, kMaxThreads));
  auto& c = r.config;
  c.replicas = parse_count(a.replicas, name(kReplicas), 1, kMaxReplicas);
  r.split_search = a.prefill_replicas == "auto";
  if (!r.split_search) {
    if (a.prefill_replicas.empty() || a.prefill_replicas.find_first_not_of("0123456789") != std::string::npos)
      throw InputError(name(kPrefillReplicas),
                       fmt::format("'{}' (expected a count >= 0, or auto)", a.prefill_replicas));
    c.prefill_replicas = parse_count(a.prefill_replicas, name(kPrefillReplicas), 0, kMaxReplicas);
  }
  if (a.router == "least-loaded")
    c.router = RouterKind::LeastLoaded;
  else if (a.router == "round-robin")
    c.router = RouterKind::RoundRobin;
  else
    throw InputError(name(kRouter), fmt::format("'{}' (expected least-loaded or round-robin)", a.router));
  c.scheduler.token_budget = parse_count(a.token_budget, name(kTokenBudget));
  c.scheduler.max_batch_seqs = parse_count(a.max_batch, name(kMaxBatch), 0);
  c.scheduler.chunked_prefill = a.chunked_prefill;
  c.prefill_scheduler = c.scheduler;
  c.prefill_scheduler.token_budget = parse_count(a.prefill_token_budget, name(kPrefillTokenBudget));
  c.prefix_hit_ratio = parse_fraction(a.prefix_hit, name(kPrefixHit));
  const auto slo = [&](const std::string& text, const ArgumentName& n) {
    return a.names == ArgumentNames::Flags ? parse_duration(text, name(n)) : parse_positive(text, name(n));
  };
  if (!a.slo_ttft.empty()) c.slo_ttft_s = slo(a.slo_ttft, kSloTtft);
  if (!a.slo_tpot.empty()) c.slo_tpot_s = slo(a.slo_tpot, kSloTpot);
  r.prefill_scenario = a.prefill_scenario;
  r.max_rate = a.max_rate;
  if (!a.target_rate.empty()) r.target_rate_per_s = parse_positive(a.target_rate, name(kTargetRate));
  r.trace_path = a.trace;
  r.force = a.force;
  return r;
}

}  // namespace mhcsim::api
