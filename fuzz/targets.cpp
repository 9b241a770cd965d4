#include "targets.h"

#include <sstream>
#include <string>

#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/traces/classify.h"
#include "mhcsim/traces/compare.h"

namespace mhcsim::fuzz {

namespace {
// Small enough that a fuzzed micro-batch count is refused quickly, large enough for the
// shipped scenarios (at most 20 thousand ops).
constexpr int64_t kFuzzMaxSimOps = int64_t{1} << 16;

void price(const Scenario& s) {
  if (s.workload.mode == WorkloadMode::Serve) {
    cost::serve_estimate(s);
    return;
  }
  cost::step_estimate(s);
  cost::training_memory(s);
  const auto spec = sim::schedule_spec_from(s.parallel);
  sim::check_op_budget(spec, kFuzzMaxSimOps);
  sim::simulate(s);
}
}  // namespace

void scenario_input(const uint8_t* data, size_t size) {
  try {
    price(scenarios::load_scenario_from_string(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml"));
  } catch (const InputError&) {
  } catch (const InfeasibleError&) {}
}

void patterns_input(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"fuzz.toml", "fuzz.json"}) {
    try {
      traces::Classifier classifier(traces::parse_patterns(text, name));
      for (const char* kernel : {"flash_fwd_kernel", "ncclKernel_AllReduce_RING_LL_Sum_bf16", "dispatch_kernel<8>",
                                 "sm90_xmma_gemm_bf16bf16", ""})
        classifier.classify(kernel, "kernel");
    } catch (const InputError&) {}
  }
}

void trace_input(const uint8_t* data, size_t size) {
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    // Compiling the default regexes costs more than reading a small input: do it once.
    static const traces::Classifier classifier(traces::default_patterns());
    traces::KernelTimelineBuilder builder(classifier);
    // 2 MiB of JSON after decompression: a 128 KiB input can inflate to GiBs, and nlohmann's
    // lexer, instrumented, takes ~0.5 us a byte, so a 16 MiB string (the token limit) would take
    // the 10 s fuzz timeout; past 2 MiB the same code paths only repeat.
    traces::TraceLimits limits;
    limits.max_bytes = uint64_t{2} << 20;
    traces::read_chrome_trace(
        in, "fuzz.json", [&](const traces::TraceEvent& e) { builder.add(e); }, limits);
    const auto timeline = std::move(builder).finish();
    const auto m = traces::measure(timeline, 0, timeline.ranks);
    traces::compare(m, m);
  } catch (const InputError&) {}
}

}  // namespace mhcsim::fuzz
