#include "mhcsim/sweep/evaluators.h"

#include <cmath>

#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sweep/feasibility.h"
#include "mhcsim/units.h"

namespace mhcsim::sweep {
namespace {

enum M : size_t { kStep, kTokens, kMfu, kBubble, kMemory, kGpuHours, kSequences, kGlobalBatch, kCount };

std::vector<Metric> metrics() {
  return {{{"step_time_s", "step (ms)", 2, 1e3}, false},
          {{"tokens_per_s", "tokens/s", 0}, true},
          {{"mfu", "MFU (%)", 2, 100}, true},
          {{"bubble_fraction", "bubble (%)", 2, 100}, false},
          {{"memory_per_gpu_bytes", "memory/GPU (GiB)", 2, 1.0 / kGiB}, false},
          {{"gpu_hours_for_budget", "GPU-hours (budget)", 0}, false},
          {{"kv_sequences_per_replica", "KV seqs/replica", 0}, true},
          // Points that change DP change the batch unless workload.global_batch_seqs fixes it:
          // throughput and step time compare fairly only between rows with the same value here.
          {{"global_batch_seqs", "global batch (seqs)", 0}, false}};
}

// Memory and, for serving, the KV fit: everything both evaluators share, from the verdict
// the single-scenario verbs give too (feasibility.h).
void check_capacity(const Scenario& s, Evaluation& e) {
  Capacity c = capacity(s);
  e.values[kMemory] = c.memory_per_gpu_bytes;
  if (c.kv_sequences_per_replica) e.values[kSequences] = static_cast<double>(*c.kv_sequences_per_replica);
  e.infeasible_reason = std::move(c.infeasible_reason);
}

Evaluation start(const Scenario& s) {
  Evaluation e{"", std::vector<double>(kCount, std::nan(""))};
  check_capacity(s, e);
  return e;
}

void fill_step(const Scenario& s, const cost::StepEstimate& est, Evaluation& e) {
  e.values[kGlobalBatch] = static_cast<double>(training_global_batch_seqs(s));
  e.values[kStep] = est.step_seconds;
  e.values[kTokens] = est.tokens_per_second;
  e.values[kMfu] = est.mfu;
  e.values[kBubble] = est.bubble_fraction();
  e.values[kGpuHours] = est.gpu_hours_for_budget;
}

// A serving point's iteration and throughput, the iteration `slower` times `step`'s.
void fill_serve(const Scenario& s, const cost::ServeEstimate& serve, double slower, Evaluation& e) {
  e.values[kStep] = serve.step_seconds * slower;
  e.values[kTokens] = serve.tokens_per_second_per_gpu * static_cast<double>(s.hardware.gpus) / slower;
}

}  // namespace

int64_t training_global_batch_seqs(const Scenario& s) {
  return s.parallel.dp * s.workload.micro_batch_seqs * s.parallel.micro_batches;
}

Evaluator analytic_evaluator() {
  return {"analytic", metrics(), [](const Scenario& s) {
            Evaluation e = start(s);
            // Out-of-memory points still get their step time: it says what they would cost.
            if (s.workload.mode == WorkloadMode::Train) {
              fill_step(s, cost::step_estimate(s), e);
            } else {
              fill_serve(s, cost::serve_estimate(s), 1.0, e);
            }
            return e;
          }};
}

Evaluator simulated_evaluator(int64_t max_sim_ops) {
  return {"simulate", metrics(), [max_sim_ops](const Scenario& s) {
            Evaluation e = start(s);
            sim::check_op_budget(s, max_sim_ops);
            if (s.workload.mode != WorkloadMode::Train) {
              // The simulated iteration (the last, in the steady state) replaces the formula's.
              const auto serve = cost::serve_estimate(s);
              fill_serve(s, serve, sim::simulate(s).iteration.step_seconds() / serve.step_seconds, e);
              return e;
            }
            // The simulated step (it ends with the same exposed DP sync) replaces the formula's.
            // Throughput, MFU and GPU-hours are per unit of step time, so they scale with it.
            auto est = cost::step_estimate(s);
            const auto sim = sim::simulate(s);
            const double slower = sim.stats.step_seconds / est.step_seconds;
            est.step_seconds *= slower;
            est.bubble_seconds = sim.stats.terms().bubble_seconds;  // the pacing rank's, as `simulate`'s
            est.tokens_per_second /= slower;
            est.mfu /= slower;
            est.gpu_hours_for_budget *= slower;
            fill_step(s, est, e);
            return e;
          }};
}

}  // namespace mhcsim::sweep
