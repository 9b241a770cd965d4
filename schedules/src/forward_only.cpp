// Serving's forward-only program: no schedule decides anything here (each stage runs the
// micro-batches in the order they arrive), but it is a Program like the training schedules', so
// the simulator's op graph, engine, metrics and trace take it unchanged.
#include <stdexcept>

#include "mhcsim/schedules/schedule.h"

namespace mhcsim::schedules {

Program forward_program(int32_t ranks, int32_t micro_batches, int32_t iterations, bool paired) {
  if (ranks < 1 || micro_batches < 1 || iterations < 1 || (paired && (ranks != 1 || micro_batches % 2 != 0)))
    throw std::logic_error("forward_program: needs ranks, micro-batches and iterations >= 1, and pairs on one rank");
  Program p;
  p.layout.ranks = p.layout.hops = ranks;
  p.layout.micro_batches = micro_batches * iterations;
  p.forward_only = true;
  p.feedback = micro_batches;
  for (int32_t r = 0; r < ranks; ++r) {
    p.begin.push_back(static_cast<int32_t>(p.slots.size()));
    for (int32_t mb = 0; mb < p.layout.micro_batches; mb += paired ? 2 : 1)
      p.slots.push_back(paired ? Slot{SlotKind::ForwardForward, mb, r, mb + 1, r} : Slot{SlotKind::Forward, mb, r});
  }
  p.begin.push_back(static_cast<int32_t>(p.slots.size()));
  return p;
}

}  // namespace mhcsim::schedules
