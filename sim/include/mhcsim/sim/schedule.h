#pragma once
// The simulator's view of the pipeline schedules (schedules/): their programs, and what running
// one costs the simulator, known before anything is allocated.
#include <cstdint>

#include "mhcsim/schedules/schedule.h"

namespace mhcsim::sim {

using schedules::Action;
using schedules::ActionKind;
using schedules::Data;
using schedules::generate_program;
using schedules::Layout;
using schedules::layout_of;
using schedules::Program;
using schedules::schedule_spec_from;
using schedules::ScheduleSpec;
using schedules::Slot;
using schedules::SlotKind;

// A micro-batch's visit to one hop (chunk) becomes at most kOpsPerHop ops (forward, backward
// and weight pieces, the serialised parts of the all-to-alls, the stage-boundary sends and
// commits; measured 13.9 to 15.9 over the five schedules on DeepSeek-V3 with mHC), and each op
// costs about kBytesPerSimOp of peak memory and 2 us (measured: 2.07 M ops of DeepSeek-V3
// DualPipe, 320 MiB and 4.6 s).
inline constexpr int64_t kOpsPerHop = 16;
inline constexpr int64_t kBytesPerSimOp = 160;
int64_t estimated_ops(const ScheduleSpec& spec);
// Op ids are int32: past this the simulator cannot run at all, whatever the budget.
inline constexpr int64_t kMaxSimOps = int64_t{1} << 30;
// What simulate, report, compare and sweep --simulate accept unless --max-sim-ops raises it:
// 2^22 ops, about 640 MiB and 10 s (16384 micro-batches of DeepSeek-V3's PP 16); the shipped
// scenarios need at most 20 thousand.
inline constexpr int64_t kDefaultMaxSimOps = int64_t{1} << 22;

// schedules::validate, and no more ops than kMaxSimOps (SpecError naming parallel.*).
void check_simulable(const ScheduleSpec& spec);
// Throws InputError naming parallel.micro_batches and the flag `flag` when estimated_ops(spec)
// exceeds `max_ops`: refused before the run allocates.
void check_op_budget(const ScheduleSpec& spec, int64_t max_ops, const char* flag = "--max-sim-ops");

}  // namespace mhcsim::sim
