#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

Simulation simulate(const ScheduleSpec& spec, const StagePrices& prices) {
  Simulation s;
  s.spec = spec;
  check_simulable(spec);  // the schedule's shape and the simulator's op ids
  s.program = generate_program(spec);
  s.graph = build_op_graph(s.program, prices);
  s.timeline = run(s.graph);
  s.stats = summarize(s.graph, s.timeline);
  return s;
}

Simulation simulate(const ScheduleSpec& spec, const PhasePrices& prices) {
  return simulate(spec, uniform_stages(prices));
}

}  // namespace mhcsim::sim
