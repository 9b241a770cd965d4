#include "targets.h"

#include <sstream>
#include <string>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/traces/compare.h"

namespace mhcsim::fuzz {

void scenario_input(const uint8_t* data, size_t size) {
  try {
    scenarios::load_scenario_from_string(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml");
  } catch (const InputError&) {
  }
}

void trace_input(const uint8_t* data, size_t size) {
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    // Compiling the default regexes costs more than reading a small input: do it once.
    static const traces::Classifier classifier(traces::default_patterns());
    traces::KernelTimelineBuilder builder(classifier);
    traces::read_chrome_trace(in, "fuzz.json", [&](const traces::TraceEvent& e) { builder.add(e); });
    const auto timeline = std::move(builder).finish();
    const auto m = traces::measure(timeline, 0, timeline.ranks);
    traces::compare(m, m);
  } catch (const InputError&) {
  }
}

}  // namespace mhcsim::fuzz
