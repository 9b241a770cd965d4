#pragma once
// `compare`: a measured Chrome trace (PyTorch profiler / Kineto) against the simulated step of
// a scenario, or against a second trace: per op class and per stream role, busy time,
// compute/communication overlap, bubble and step time, each with its error; a trace of part
// of a step (a chunk pair, a micro-batch) against the simulated step's share; or the trace's
// kernels with the class each got.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/api/argument_names.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/specs.h"
#include "mhcsim/traces/chrome_trace.h"

namespace mhcsim::api {

// The most ranks a trace may be compared from (parallel.pp is at most 4096).
inline constexpr int kMaxCompareRank = 4095;

struct CompareRequest {
  ArgumentNames names = ArgumentNames::Flags;
  std::string trace;            // measured: Chrome trace event JSON, optionally gzipped
  std::string simulated_trace;  // compare against this trace instead of simulating the scenario
  std::string patterns;         // kernel-name and annotation patterns per class (TOML or JSON)
  std::string steps = "1";      // steps the trace holds: N, or a fraction (0.25, 1/120) = a window
  std::string window = "step";  // step, micro-batch, chunk-pair or a fraction of a step
  bool list_kernels = false;    // list the trace's kernels with their classes, and stop
  int rank = 0;                 // simulated pipeline rank of the trace's first GPU
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
  traces::TraceLimits limits;
};

struct CompareAnswer {
  reports::Table table{"", {}};    // the comparison's rows, or with list_kernels the kernels
  std::vector<std::string> notes;  // the text's closing lines (what was compared, the errors)
  // The simulated scenario, for the document's meta; nullopt with simulated_trace or list_kernels.
  std::optional<Scenario> scenario;
  nlohmann::json inputs, results;  // the document's
};

// "3", "0.5", "1/120": a number of steps in [1e-6, 1e6], or nullopt.
std::optional<double> parse_steps(const std::string& text);

// `scenario` is called only when the scenario is simulated (not with simulated_trace or
// list_kernels). InputError names each argument as request.names says.
CompareAnswer compare(const CompareRequest& request, const std::function<Scenario()>& scenario);

}  // namespace mhcsim::api
