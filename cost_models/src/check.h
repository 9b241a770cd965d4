#pragma once
// require() with a reason that is only built when the check fails: the cost model runs inside
// sweeps (issue 3 target <= 2 us per step estimate), and building std::string reasons for
// checks that pass dominated that time.
#include <string>

#include "mhcsim/error.h"
#include "mhcsim/specs.h"

namespace mhcsim::cost {

inline void check(bool ok, const char* key, const char* reason) {
  if (!ok) require(false, key, reason);
}
template <class MakeReason>
void check(bool ok, const char* key, MakeReason&& make_reason) {
  if (!ok) require(false, key, make_reason());
}

// The parallel layout a serving estimate needs (serve_estimate, ServingStepModel).
void check_serving_spec(const Scenario& s);

// The ranges of the parallel.* keys, in one place for the cost model. A scenario file gets them
// checked with file:line by the scenario layer; a spec built in code (tests, users of the
// installed library) meets this guard at each cost entry point instead of a division by zero.
void check_parallel_ranges(const ParallelSpec& p);

}  // namespace mhcsim::cost
