// Simulator speed: events per second of the engine alone, and the wall time to simulate a
// whole step (schedule generation, op graph, engine, statistics) for a DeepSeek-V3 step
// (PP 16, DualPipe, 120 micro-batches as in scenarios/deepseek_v3_train.toml, 2 layers per
// chunk, EP all-to-all in every chunk) and a PP 64 x 1024 micro-batch stress case.
//
// An event is one op completion (Timeline::events): every op of the graph starts and ends
// exactly once, so events == ops per run. Zero-length ops (DualPipe's commit markers) count as
// events too, since the engine releases their successors like any other op, but they skip the
// heap; `timed_events_per_second` counts only the ops with a duration, i.e. the heap pops
// (about 84% of the stress case's events). Rates are per second of CPU time, and the engine
// timings include building its per-op records and writing the Timeline.
#include <benchmark/benchmark.h>

#include <algorithm>

#include "mhcsim/schedules/slot_timeline.h"
#include "mhcsim/sim/simulate.h"

namespace {

using mhcsim::Schedule;
using namespace mhcsim::sim;

// Illustrative prices for a 2-layer DeepSeek-V3 chunk with a computation-to-communication
// ratio near 1:1 (report 3.2); only the op count and overlap structure matter here.
PhasePrices moe_chunk_prices() {
  PhasePrices p;
  p.attn_forward_seconds = 1.2e-3;
  p.mlp_forward_seconds = 1.5e-3;
  p.mhc_post_forward_seconds = 0.1e-3;
  p.dispatch_seconds = 1.1e-3;
  p.combine_seconds = 1.3e-3;
  p.attn_backward_input_seconds = 1.2e-3;
  p.attn_backward_weight_seconds = 1.2e-3;
  p.mlp_backward_input_seconds = 1.5e-3;
  p.mlp_backward_weight_seconds = 1.5e-3;
  p.pp_send_seconds = 0.2e-3;
  p.activation_bytes = 4.0e9;
  return p;
}

ScheduleSpec spec(Schedule kind, int32_t ranks, int32_t micro_batches) {
  ScheduleSpec s;
  s.kind = kind;
  s.ranks = ranks;
  s.micro_batches = micro_batches;
  return s;
}

void engine_only(benchmark::State& state, ScheduleSpec s) {
  const auto graph = build_op_graph(generate_program(s), moe_chunk_prices());
  const auto timed_ops =
      std::count_if(graph.duration_seconds.begin(), graph.duration_seconds.end(), [](double d) { return d > 0; });
  int64_t events = 0, timed_events = 0;
  for (auto _ : state) {
    auto t = run(graph);
    events += t.events;
    timed_events += timed_ops;
    benchmark::DoNotOptimize(t.makespan_seconds);
  }
  state.counters["events_per_second"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["timed_events_per_second"] =
      benchmark::Counter(static_cast<double>(timed_events), benchmark::Counter::kIsRate);
  state.counters["ops"] = static_cast<double>(graph.op_count());
}

void whole_step(benchmark::State& state, ScheduleSpec s) {
  int64_t events = 0;
  for (auto _ : state) {
    auto sim = simulate(s, moe_chunk_prices());
    events += sim.stats.events;
    benchmark::DoNotOptimize(sim.stats.step_seconds);
  }
  state.counters["events_per_second"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
}

void BM_EngineDeepSeekV3(benchmark::State& st) { engine_only(st, spec(Schedule::DualPipe, 16, 120)); }
void BM_StepDeepSeekV3(benchmark::State& st) { whole_step(st, spec(Schedule::DualPipe, 16, 120)); }
void BM_EngineStressPP64(benchmark::State& st) { engine_only(st, spec(Schedule::DualPipe, 64, 1024)); }
void BM_EngineDualPipePP64(benchmark::State& st) {
  engine_only(st, spec(Schedule::DualPipe, 64, static_cast<int32_t>(st.range(0))));
}
void BM_StepStressPP64(benchmark::State& st) { whole_step(st, spec(Schedule::DualPipe, 64, 1024)); }
void BM_Step1F1BStressPP64(benchmark::State& st) { whole_step(st, spec(Schedule::OneF1B, 64, 1024)); }

BENCHMARK(BM_EngineDeepSeekV3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepDeepSeekV3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineStressPP64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineDualPipePP64)->Arg(128)->Arg(256)->Arg(512)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepStressPP64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Step1F1BStressPP64)->Unit(benchmark::kMillisecond);

// The DualPipes' bubble as `step` reads it (schedules/slot_timeline.h): a pipeline shape the
// thread has kept, replayed with new prices at every call as a sweep's points are, at 16 and
// 64 ranks; DualPipe (0) and DualPipeV (1).
void BM_LeastIdleKeptShape(benchmark::State& st) {
  const auto ranks = static_cast<int32_t>(st.range(0));
  const Schedule kind = st.range(1) ? Schedule::DualPipeV : Schedule::DualPipe;
  const mhcsim::schedules::SlotPrices slot{1.0e-3, 2.0e-3, 1.2e-3, 0.8e-3};
  mhcsim::schedules::StageSlotPrices prices{slot, slot, {}};
  for (auto& row : prices.forward_backward_seconds) row = {2.9e-3, 2.9e-3};
  for (auto _ : st) {
    prices.middle.forward_seconds += 1e-12;
    benchmark::DoNotOptimize(mhcsim::schedules::dual_pipe_least_idle_seconds({kind, ranks, 4 * ranks, 1}, prices));
  }
}
BENCHMARK(BM_LeastIdleKeptShape)
    ->Args({16, 0})
    ->Args({64, 0})
    ->Args({16, 1})
    ->Args({64, 1})
    ->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
