#include "mhcsim/schedules/schedule.h"

#include <algorithm>
#include <string>

#include "mhcsim/error.h"

namespace mhcsim::schedules {

void validate(const ScheduleSpec& s) {
  const std::string n = std::to_string(s.micro_batches);
  const std::string p = std::to_string(s.ranks);
  require(s.ranks >= 1, "parallel.pp", "pipeline ranks must be >= 1 (got " + p + ")");
  require(s.micro_batches >= 1, "parallel.micro_batches", "micro-batches must be >= 1 (got " + n + ")");
  switch (s.kind) {
    case Schedule::OneF1B:
      break;
    case Schedule::ZB1P:
      require(s.micro_batches >= s.ranks, "parallel.micro_batches",
              "ZB-H1 needs micro-batches >= pp (got " + n + " with pp " + p + ")");
      break;
    case Schedule::Interleaved1F1B:
      require(s.virtual_stages >= 1, "parallel.virtual_stages", "expected >= 1");
      require(s.micro_batches % s.ranks == 0, "parallel.micro_batches",
              "interleaved 1F1B needs micro-batches a multiple of pp (got " + n + " with pp " + p + ")");
      break;
    case Schedule::DualPipe:
      // deepseek-ai/DualPipe dualpipe.py step(): even ranks, even chunks, chunks >= 2 ranks.
      require(s.ranks % 2 == 0, "parallel.pp", "DualPipe needs an even number of pipeline ranks (got " + p + ")");
      require(s.micro_batches % 2 == 0 && s.micro_batches >= 2 * s.ranks, "parallel.micro_batches",
              "DualPipe needs an even number of micro-batches >= 2 x pp (got " + n + " with pp " + p + ")");
      break;
    case Schedule::DualPipeV:
      // dualpipev.py step(): chunks >= 2 ranks.
      require(s.micro_batches >= 2 * s.ranks, "parallel.micro_batches",
              "DualPipeV needs micro-batches >= 2 x pp (got " + n + " with pp " + p + ")");
      break;
  }
  require(!s.combined || combined_1f1b_schedule(s.kind, s.ranks), "parallel.combined_1f1b",
          "combined 1F1B runs on schedule = \"interleaved\", or \"1f1b\" at pp 1 (got " +
              std::string(to_string(s.kind)) + " at pp " + p + ")");
  require(!s.combined || s.kind != Schedule::Interleaved1F1B || s.virtual_stages >= 2, "parallel.virtual_stages",
          "interleaved 1F1B needs virtual_stages >= 2");
}

int32_t warmup_forwards(const ScheduleSpec& spec, int32_t rank) {
  const int32_t p = spec.ranks, v = spec.virtual_stages, n = spec.micro_batches;
  const int32_t extra = spec.combined ? 1 : 0;
  if (spec.kind != Schedule::Interleaved1F1B) return std::min(p - 1 - rank + extra, n);
  // Megatron: groups of p micro-batches go through chunk 0, then chunk 1, ...; when there are
  // exactly p micro-batches every forward runs first.
  const int32_t total = n * v;
  return n == p ? total : std::min((p - rank - 1) * 2 + (v - 1) * p + extra, total);
}

ScheduleSpec schedule_spec_from(const ParallelSpec& p) {
  ScheduleSpec s;
  s.kind = p.schedule;
  s.ranks = static_cast<int32_t>(p.pp);
  s.micro_batches = static_cast<int32_t>(p.micro_batches);
  s.virtual_stages = static_cast<int32_t>(p.virtual_stages);
  s.combined = p.combined_1f1b;
  return s;
}

int32_t Layout::rank_of(int32_t mb, int32_t hop) const {
  if (dual_paths) return path_of(mb) == 0 ? hop : ranks - 1 - hop;
  if (v_shape) return hop < ranks ? hop : 2 * ranks - 1 - hop;
  return hop % ranks;
}

Layout layout_of(const ScheduleSpec& s) {
  Layout l;
  l.ranks = s.ranks;
  l.micro_batches = s.micro_batches;
  l.hops = s.ranks;
  switch (s.kind) {
    case Schedule::Interleaved1F1B:
      l.hops = s.ranks * s.virtual_stages;
      break;
    case Schedule::DualPipe:
      l.dual_paths = true;
      break;
    case Schedule::DualPipeV:
      l.hops = 2 * s.ranks;
      l.v_shape = true;
      break;
    default:
      break;
  }
  return l;
}

Program generate_program(const ScheduleSpec& spec) {
  validate(spec);
  Program prog;
  prog.layout = layout_of(spec);
  prog.begin.reserve(static_cast<size_t>(spec.ranks) + 1);
  const bool dual = spec.kind == Schedule::DualPipe || spec.kind == Schedule::DualPipeV;
  for (int32_t r = 0; r < spec.ranks; ++r) {
    prog.begin.push_back(static_cast<int32_t>(prog.slots.size()));
    if (dual) prog.action_begin.push_back(static_cast<int32_t>(prog.actions.size()));
    switch (spec.kind) {
      case Schedule::OneF1B:
        append_one_f_one_b(spec, r, false, prog.slots);
        break;
      case Schedule::ZB1P:
        append_one_f_one_b(spec, r, true, prog.slots);
        break;
      case Schedule::Interleaved1F1B:
        append_interleaved(spec, r, prog.slots);
        break;
      case Schedule::DualPipe:
      case Schedule::DualPipeV:
        append_dual_pipe(spec, prog.layout, r, prog.slots, prog.actions);
        break;
    }
  }
  prog.begin.push_back(static_cast<int32_t>(prog.slots.size()));
  if (dual) prog.action_begin.push_back(static_cast<int32_t>(prog.actions.size()));
  return prog;
}

}  // namespace mhcsim::schedules
