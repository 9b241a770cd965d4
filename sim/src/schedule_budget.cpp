#include <fmt/format.h>

#include "mhcsim/error.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/units.h"

namespace mhcsim::sim {

int64_t estimated_ops(const ScheduleSpec& spec) {
  const Layout l = layout_of(spec);
  return int64_t{l.micro_batches} * int64_t{l.hops} * kOpsPerHop;
}

void check_simulable(const ScheduleSpec& s) {
  schedules::validate(s);
  if (estimated_ops(s) <= kMaxSimOps) return;
  throw SpecError("parallel.micro_batches",
                  fmt::format("{} micro-batches over {} pipeline hops make about {} simulated ops, more than the "
                              "simulator's 32-bit op ids allow (expected at most {})",
                              s.micro_batches, layout_of(s).hops, estimated_ops(s), kMaxSimOps));
}

void check_op_budget(const ScheduleSpec& spec, int64_t max_ops, const char* flag) {
  const int64_t ops = estimated_ops(spec);
  if (ops <= max_ops) return;
  throw InputError("parallel.micro_batches",
                   fmt::format("{} micro-batches over {} pipeline hops make about {} simulated ops ({:.1f} GiB), "
                               "more than {} allows ({}; expected fewer micro-batches or a larger {})",
                               spec.micro_batches, layout_of(spec).hops, ops,
                               static_cast<double>(ops) * kBytesPerSimOp / kGiB, flag, max_ops, flag));
}

}  // namespace mhcsim::sim
