#pragma once
// `serve`'s arguments as text, read once for both front ends: the CLI's flags and the Python
// module's keyword arguments go through the same parser, so each has one range and one message
// and an error names the argument the way the caller wrote it (--input-tokens, input_tokens).
#include <string>

#include "mhcsim/api/argument_names.h"
#include "mhcsim/api/serve.h"

namespace mhcsim::api {

// Every argument whose name an error may carry (parse_serve_arguments and serve's checks).
namespace serve_args {
inline constexpr ArgumentName kRate{"--rate", "rate"}, kRequests{"--requests", "requests"},
    kRequestsFile{"--requests-file", "requests_file"}, kInputTokens{"--input-tokens", "input_tokens"},
    kOutputTokens{"--output-tokens", "output_tokens"}, kLengths{"--lengths", "lengths"},
    kPrefixHit{"--prefix-hit", "prefix_hit"}, kSloTtft{"--slo-ttft", "slo_ttft_s"},
    kSloTpot{"--slo-tpot", "slo_tpot_s"}, kReplicas{"--replicas", "replicas"},
    kPrefillReplicas{"--prefill-replicas", "prefill_replicas"},
    kPrefillScenario{"--prefill-scenario", "prefill_scenario"}, kRouter{"--router", "router"},
    kTokenBudget{"--token-budget", "token_budget"},
    kPrefillTokenBudget{"--prefill-token-budget", "prefill_token_budget"}, kMaxBatch{"--max-batch", "max_batch"},
    kSeed{"--seed", "seed"}, kMaxRate{"--max-rate", "max_rate"}, kTargetRate{"--target-rate", "target_rate"},
    kTrace{"--trace", "trace"}, kJobs{"--jobs", "jobs"};
inline constexpr ArgumentName kAll[] = {kRate,         kRequests,    kRequestsFile,       kInputTokens,
                                        kOutputTokens, kLengths,     kPrefixHit,          kSloTtft,
                                        kSloTpot,      kReplicas,    kPrefillReplicas,    kPrefillScenario,
                                        kRouter,       kTokenBudget, kPrefillTokenBudget, kMaxBatch,
                                        kSeed,         kMaxRate,     kTargetRate,         kTrace,
                                        kJobs};
}  // namespace serve_args

// Empty text: the default (for rate, input_tokens, the SLOs and target_rate: none, or the
// scenario's). With Flags the SLOs are durations with a unit (2s, 50ms); with Keywords they are
// seconds, as the Python arguments' _s says.
struct ServeArguments {
  ArgumentNames names = ArgumentNames::Flags;
  std::string rate, requests, requests_file;         // requests: empty = kDefaultRequests
  std::string input_tokens, output_tokens, lengths;  // empty: 256 tokens out, fixed lengths
  std::string prefix_hit = "0";
  std::string slo_ttft, slo_tpot;
  std::string replicas = "1", prefill_replicas = "0", prefill_scenario;  // prefill_replicas: a count or auto
  std::string router = "least-loaded";
  std::string token_budget = "2048", prefill_token_budget = "16384", max_batch = "0";
  bool chunked_prefill = true;
  std::string seed;  // empty: 1
  std::string jobs = "0";
  bool max_rate = false;
  std::string target_rate;
  std::string trace;
  bool force = false;
};

// Each value against its range (InputError naming the argument); serve() checks how they combine.
ServeRequest parse_serve_arguments(const ServeArguments& arguments);

}  // namespace mhcsim::api
