#pragma once
// Pipeline schedules as generators of each rank's op order (the simulator, sim/, turns them into
// op graphs; cost_models/ prices their slots to find a step's bubble, slot_timeline.h). A micro-batch travels a path of
// hops (one hop = one chunk on one rank); the generators only decide the order in which each
// rank runs its forward (F), backward (B, or input-gradient-only B with a deferred W) and
// overlapped F&B slots. Dependencies follow from the path and are added by the op graph.
#include <cstdint>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::schedules {

struct ScheduleSpec {
  Schedule kind = Schedule::OneF1B;
  int32_t ranks = 1;           // pipeline ranks (ParallelSpec::pp)
  int32_t micro_batches = 1;   // per pipeline per step
  int32_t virtual_stages = 1;  // chunks per rank for interleaved 1F1B
  bool combined = false;       // Megatron-Core's combined 1F1B (ParallelSpec::combined_1f1b)
  bool operator==(const ScheduleSpec&) const = default;
};

// Throws SpecError naming the parallel.* key when the schedule cannot run (DualPipe: even
// ranks, even micro-batches, micro-batches >= 2 x ranks; DualPipeV: micro-batches >= 2 x ranks;
// interleaved: micro-batches a multiple of ranks; ZB-H1: micro-batches >= ranks; combined
// 1F1B: interleaved with virtual stages >= 2, or 1F1B on one rank).
void validate(const ScheduleSpec& spec);
ScheduleSpec schedule_spec_from(const ParallelSpec& p);

// Where each hop of a micro-batch's path runs. DualPipe has two paths (half the micro-batches
// enter at rank 0, half at the last rank); every other schedule has one.
struct Layout {
  int32_t ranks = 1;
  int32_t hops = 1;  // chunks along one path
  int32_t micro_batches = 1;
  bool dual_paths = false;  // DualPipe
  bool v_shape = false;     // DualPipeV: hops 0..P-1 down the ranks, P..2P-1 back up

  int32_t path_of(int32_t mb) const { return dual_paths && 2 * mb >= micro_batches ? 1 : 0; }
  int32_t rank_of(int32_t mb, int32_t hop) const;
};
Layout layout_of(const ScheduleSpec& spec);

enum class SlotKind : uint8_t {
  Forward,          // F
  Backward,         // full B (input + weight gradients)
  BackwardInput,    // B with its weight gradient deferred to a later W slot (zero bubble)
  Weight,           // W of an earlier BackwardInput slot
  ForwardBackward,  // F of (mb, hop) overlapped with the full B of (mb2, hop2)
  ForwardForward    // F of (mb, hop) overlapped with the F of (mb2, hop2): serving's two
                    // micro-batches (forward_program)
};

struct Slot {
  SlotKind kind = SlotKind::Forward;
  int32_t mb = 0;
  int32_t hop = 0;
  int32_t mb2 = -1;  // ForwardBackward only: the backward's micro-batch and hop
  int32_t hop2 = -1;
};

// Point-to-point communication as the DualPipe reference issues it: sends and receives are
// posted, then launched together at the next commit (dist.batch_isend_irecv), and the compute
// after a commit waits for all of them. A transfer needs both ends launched (rendezvous), so a
// sender also waits for its receiver to be ready.
enum class ActionKind : uint8_t { Compute, PostSend, PostRecv, Commit };
enum class Data : uint8_t { Activation, Gradient };

struct Action {
  ActionKind kind = ActionKind::Compute;
  Data data = Data::Activation;
  int32_t mb = 0;  // PostSend: the producer's unit; PostRecv: the consumer's unit
  int32_t hop = 0;
  int32_t slot = -1;  // Compute: index into Program::slots
};

// Per-rank slot order, flattened: rank r's slots are slots[begin[r] .. begin[r+1]). Schedules
// with explicit communication (DualPipe/V) also fill `actions` (same flattening, action_begin);
// the others leave it empty and their transfers start as soon as the data is ready.
struct Program {
  Layout layout;
  std::vector<int32_t> begin;
  std::vector<Slot> slots;
  std::vector<int32_t> action_begin;
  std::vector<Action> actions;
  bool forward_only = false;  // forward_program: no backward follows a forward
  // forward_program: micro-batch mb's first hop waits for the last hop of micro-batch
  // mb - feedback (the same slot's previous batch); 0 = independent micro-batches.
  int32_t feedback = 0;

  bool explicit_comm() const { return !actions.empty(); }
};

Program generate_program(const ScheduleSpec& spec);  // validates first

// A serving iteration's program: forward passes only, `iterations` x `micro_batches` of them
// through `ranks` pipeline stages, each rank taking them in order; `paired` (one rank, an even
// number of micro-batches) overlaps them two by two in ForwardForward slots. A micro-batch of
// the next iteration waits for the same one of this iteration to leave the last stage
// (feedback): a decode batch's next token needs its last, and a pipelined engine forms a
// micro-batch slot's next batch when its previous one returns (vLLM's virtual engines).
Program forward_program(int32_t ranks, int32_t micro_batches, int32_t iterations, bool paired);

// Forwards rank r runs before its first backward in 1F1B, ZB-H1 and interleaved 1F1B (Megatron's
// num_warmup_microbatches, counted in chunk visits); combined 1F1B moves one more forward into
// the warm-up so that each steady-state F&B pair joins independent micro-batches, on the last
// rank too (Megatron-Core's combined 1F1B guide). The rest up to micro-batches x chunks are
// steady-state steps, and as many backwards as the warm-up forwards end the step.
int32_t warmup_forwards(const ScheduleSpec& spec, int32_t rank);

// The generators, one per schedule family; each appends rank r's slots.
void append_one_f_one_b(const ScheduleSpec& spec, int32_t rank, bool zero_bubble, std::vector<Slot>& out);
void append_interleaved(const ScheduleSpec& spec, int32_t rank, std::vector<Slot>& out);
void append_dual_pipe(const ScheduleSpec& spec, const Layout& layout, int32_t rank, std::vector<Slot>& slots,
                      std::vector<Action>& actions);

}  // namespace mhcsim::schedules
