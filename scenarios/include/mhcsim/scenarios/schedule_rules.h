#pragma once
// What each pipeline schedule needs of the micro-batch count and the virtual stages, written
// once: the scenario check refuses a file with it (file:line: key), `bubble` marks the schedules
// that cannot run the scenario's shape with it instead of pricing them.
#include <optional>
#include <string>

#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

struct ScheduleProblem {
  std::string key;      // the key to change: "parallel.micro_batches", "parallel.virtual_stages"
  std::string message;  // what is wrong, with the numbers
};

// Empty when p.schedule runs p.pp stages with p.micro_batches micro-batches and
// p.virtual_stages chunks per rank. A schedule other than interleaved 1F1B with
// virtual_stages > 1 is only refused when `virtual_stages_given` (the key was written).
std::optional<ScheduleProblem> schedule_problem(const ParallelSpec& p, bool virtual_stages_given);

}  // namespace mhcsim::scenarios
