#include "mhcsim/cost/step.h"

#include <algorithm>

#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/schedules/slot_timeline.h"
#include "check.h"
#include "mhcsim/units.h"
#include "as_double.h"

namespace mhcsim::cost {

namespace {

// Reduce-scatter of the gradients + all-gather of the parameters over the DP peers: the
// bytes of one ring all-reduce, on the inter-node links once the job spans nodes.
double dp_sync_seconds(const Scenario& s, double bytes, double ranks) {
  return ring_all_reduce_seconds(allreduce_rate(s, s.hardware.gpus > s.hardware.nvlink_domain()), bytes, ranks);
}
}  // namespace

StepEstimate step_estimate(const Scenario& s) {
  const auto& p = s.parallel;
  const auto& w = s.workload;
  check(w.mode == WorkloadMode::Train, "workload.mode", "step estimates need mode = \"train\"");
  check_parallel_ranges(p);
  check(s.hardware.gpus >= 1, "hardware.gpus", "must be >= 1");
  StepEstimate e;
  e.layers_per_chunk = layers_per_chunk(s);
  e.middle_chunk = chunk_cost(s, e.layers_per_chunk);
  // The last stage holds what is left of the layers after the others took layers_per_chunk
  // each (fewer where extra_stage_layers reserve room), plus the LM head and the MTP modules;
  // none where nothing is left (memory.cpp's stage_parameters cuts the stages the same way).
  // Where even the stages before it cannot all be full (DeepSeek-V3's 61 layers in 32 chunks of
  // 2: the 31st holds one), they are still priced as full: layers_priced says by how much.
  const int64_t stages = pipeline_chunks(p.schedule, p.pp, p.virtual_stages);
  const int64_t last_layers = last_chunk_layers(s);
  e.last_chunk = chunk_cost(s, last_layers, /*last_stage=*/true);
  e.layers_priced = (stages - 1) * e.layers_per_chunk + last_layers;
  // The slowest chunk, for the tables.
  const auto fb = [](const ChunkCost& c) { return c.forward_seconds() + c.backward_seconds(); };
  const bool last_slowest = fb(e.last_chunk) > fb(e.middle_chunk);
  e.chunk = last_slowest ? e.last_chunk : e.middle_chunk;

  // Exposed EP all-to-all per chunk visit (F + B), as sim/ places it (op_graph.cpp): each
  // all-to-all is split into a serialised (1 - overlap) share and a share that may run beside
  // compute, but only a partner chunk's compute: in DualPipe's F&B slots B.combine runs beside
  // F.attn, F.dispatch beside B.mlp, B.dispatch beside F.mlp and F.combine beside B.attn, and
  // whatever outlasts its partner piece is exposed; lone F and B slots (the DualPipes' warm-up
  // and cool-down, every slot of the 1F1B family) have no partner and expose their all-to-alls
  // whole. The DualPipes' counts are those of the rank nearest an end of the pipeline, which has
  // the most lone slots and holds the last stage (dual_pipe_slots). Megatron-Core's combined 1F1B
  // issues its steady-state F&B layers in the same order (F.attn, B.combine, F.dispatch, B.expert,
  // B.dispatch, F.expert, F.combine, B.attn: its EP A2A overlap guide); its counts are those of
  // the last rank, which holds the last stage and has the fewest lone slots (the earlier ranks'
  // longer warm-ups fall in the fill it waits through: combined_1f1b_slots).
  const double o = p.overlap;
  const bool dual = p.schedule == Schedule::DualPipe || p.schedule == Schedule::DualPipeV;
  // Exposed in an F&B pair: the forward of chunk f beside the backward of chunk b.
  const auto pair_exposed = [&](const ChunkCost& f, const ChunkCost& b) {
    const double b_mlp = b.mlp_backward_input_seconds + b.mlp_backward_weight_seconds;
    const double b_attn = b.attn_backward_input_seconds + b.attn_backward_weight_seconds;
    const auto beyond = [](double comm, double compute) { return std::max(0.0, comm - compute); };
    return (1.0 - o) * (f.a2a_forward_seconds() + b.a2a_forward_seconds()) +
           beyond(o * b.combine_seconds, f.attn_forward_seconds) + beyond(o * f.dispatch_seconds, b_mlp) +
           beyond(o * b.dispatch_seconds, f.mlp_forward_seconds) + beyond(o * f.combine_seconds, b_attn);
  };
  // Per visit (one F and one B) on that rank: its lone slots and F&B pairs per visit.
  PairedSlots slots{1, 1, 0};
  if (dual) slots = dual_pipe_slots(p.schedule, p.pp, p.micro_batches, 0);
  if (p.combined_1f1b) slots = combined_1f1b_slots(p.schedule, p.pp, p.micro_batches, p.virtual_stages);
  const double lone = slots.lone_forward + slots.lone_backward, visits = slots.lone_forward + slots.pairs;
  const auto& mid = e.middle_chunk;
  const auto& last = e.last_chunk;
  const double middle_exposed = (lone * mid.a2a_forward_seconds() + slots.pairs * pair_exposed(mid, mid)) / visits;
  // The DualPipes' end rank holds the last stage beside the first, and pairs one chunk's forward
  // with the other's backward (dualpipe.py's _forward_backward_chunk(0, 1) then (1, 0)): with the
  // middle chunk's visits at middle_exposed, the last chunk's carry the rest. Combined 1F1B's
  // last rank is priced the same way, an approximation: it pairs its last chunk mostly with
  // itself (p - 1 of every p v pairs, against 2 with a middle chunk); simulate, which runs its
  // pairs as generated, is within 2% of this step over PP 2-16, v 2-4 (sim/README.md).
  const double last_pairs = pair_exposed(mid, last) + pair_exposed(last, mid) - pair_exposed(mid, mid);
  const double last_exposed = (lone * last.a2a_forward_seconds() + slots.pairs * last_pairs) / visits;
  e.exposed_a2a_seconds = last_slowest ? last_exposed : middle_exposed;
  // The pipeline fills and drains through the stages before the last: their chunk's phases set
  // the 1F1B family's bubble (with one stage, the only chunk's). Fill and drain slots are lone,
  // so they carry their all-to-alls whole at any overlap, as the simulator runs them (the
  // overlap hid (1 - overlap) of them here, and 1F1B's bubble at overlap 1 came out a third
  // short of simulate's). F&B is a paired slot, what the DualPipes' formula prices; the
  // DualPipes keep these phases for the `bubble` verb's table.
  const ChunkCost& through = stages > 1 ? e.middle_chunk : e.last_chunk;
  e.phases.f = through.forward_seconds() + through.a2a_forward_seconds();
  e.phases.b = through.backward_seconds() + through.a2a_forward_seconds();
  e.phases.w = through.backward_weight_seconds();
  e.phases.fb = dual || p.combined_1f1b
                    ? through.forward_seconds() + through.backward_seconds() + pair_exposed(through, through)
                    : e.phases.f + e.phases.b;
  // The busiest rank's compute, each of its chunks at its own price (the last stage's rank
  // also runs middle chunks in interleaved 1F1B and the DualPipes), with the exposure above.
  const double middle_fb = fb(e.middle_chunk) + middle_exposed;
  const double last_fb = fb(e.last_chunk) + last_exposed;
  e.busiest_rank = pipeline_busiest_rank(p.schedule, p.pp, p.micro_batches, middle_fb, last_fb, p.virtual_stages);
  e.busy_seconds = e.busiest_rank.middle * middle_fb + e.busiest_rank.last * last_fb;
  e.exposed_a2a_per_rank_seconds = e.busiest_rank.middle * middle_exposed + e.busiest_rank.last * last_exposed;
  if (dual && p.pp <= schedules::kMaxLeastIdleRanks) {
    // The DualPipes' README formula holds for identical stages only; with the last stage at its
    // own price the end ranks' waits are differences of paths through the schedule with no
    // closed form (sim/README.md), so their bubble is read off the slot-level timeline, each
    // slot priced as above: lone slots expose their all-to-alls whole, F&B pairs what outlasts
    // the partner's compute. Past 64 ranks the timeline would cost tens of milliseconds to
    // seconds per shape, and the formula prices the bubble.
    const auto slot_prices = [&](const ChunkCost& c) {
      const double a2a = c.a2a_forward_seconds();
      schedules::SlotPrices sp;
      sp.forward_seconds = c.forward_seconds() + a2a;
      sp.backward_seconds = c.backward_seconds() + a2a;
      sp.backward_input_seconds = c.backward_seconds() - c.backward_weight_seconds() + a2a;
      sp.weight_seconds = c.backward_weight_seconds();
      return sp;
    };
    schedules::StageSlotPrices prices{slot_prices(mid), slot_prices(last), {}};
    for (int fl = 0; fl < 2; ++fl)
      for (int bl = 0; bl < 2; ++bl) {
        const ChunkCost& f = fl ? last : mid;
        const ChunkCost& b = bl ? last : mid;
        prices.forward_backward_seconds[fl][bl] = f.forward_seconds() + b.backward_seconds() + pair_exposed(f, b);
      }
    const schedules::ScheduleSpec spec{p.schedule, static_cast<int32_t>(p.pp), static_cast<int32_t>(p.micro_batches),
                                       1};
    e.bubble_seconds = std::max(0.0, schedules::dual_pipe_least_idle_seconds(spec, prices));
  } else {
    e.bubble_seconds = pipeline_bubble_seconds(p.schedule, p.pp, p.micro_batches, e.phases, p.virtual_stages);
  }

  // Stage-boundary transfers on the critical path (sim/README.md). DualPipe's reference commits
  // every slot with batch_isend_irecv and waits for it, so each F and B a rank runs waits for
  // its send: exposed communication. The 1F1B family sends asynchronously; its transfers delay
  // the fill and the drain, once per boundary and virtual round: bubble.
  const double send = (1.0 - p.pp_overlap) * through.pp_send_seconds;
  if (dual) {
    e.pp_exposed_seconds = 2.0 * (e.busiest_rank.middle + e.busiest_rank.last) * send;
  } else {
    e.bubble_seconds += 2.0 * static_cast<double>((p.pp - 1) * stages_per_rank(p.schedule, p.virtual_stages)) * send;
  }

  // ZeRO-1/2 reduce-scatter the gradients and all-gather the parameters, up to `overlap` of it
  // behind the rank's computation.
  // Each pipeline rank syncs its own parameters; the step waits for the slowest (rank 0's
  // embedding and head reduce over DP, the MoE ranks' experts over the expert-DP ranks).
  const auto replicas = parameter_replicas(p);
  const auto all_reduce_seconds = [&](double dense_bytes, double expert_bytes) {
    return dp_sync_seconds(s, dense_bytes, replicas.dense) + dp_sync_seconds(s, expert_bytes, replicas.experts);
  };
  double sync = 0;
  for (const auto& params : parameters_per_rank(s)) {
    const double grads = bytes_per_element(s.precision.grads);
    double rank_sync = all_reduce_seconds(params.dense * grads, params.experts * grads);
    // ZeRO-3 keeps 1/DP of the weights, so every micro-batch all-gathers them again before its
    // forward and before its backward: ZeRO (Rajbhandari et al., SC20, sec. 7) counts Psi of
    // parameter all-gather in the forward and Psi in the backward per forward-backward pass. A
    // ring all-gather moves half an all-reduce's bytes. The weights as held: the embedding and
    // head in BF16 beside FP8 weights.
    if (p.zero_stage >= 3)
      rank_sync += 2.0 * d(p.micro_batches) * 0.5 *
                   all_reduce_seconds(dense_weight_bytes(params, s.precision.weights),
                                      params.experts * bytes_per_element(s.precision.weights));
    sync = std::max(sync, rank_sync);
  }
  // Communication hides behind computation, so no more of it than the rank computes (its busy
  // time less the exposed all-to-all, when the NICs are taken): ZeRO-3's gathers at 2x its
  // compute leave the difference exposed at any overlap.
  e.dp_sync_seconds = sync - std::min(p.overlap * sync, e.busy_seconds - e.exposed_a2a_per_rank_seconds);

  e.step_seconds = e.busy_seconds + e.pp_exposed_seconds + e.bubble_seconds + e.dp_sync_seconds;
  e.tokens_per_step = d(p.dp * p.micro_batches * w.micro_batch_seqs * w.seq_len);
  e.tokens_per_second = e.tokens_per_step / e.step_seconds;
  e.training_flops_per_token = training_flops_per_token(s.model, w.seq_len, false);
  e.training_flops_per_token_causal = training_flops_per_token(s.model, w.seq_len, true);
  const double peak = d(s.hardware.gpus) * tflops_to_flops_per_second(s.hardware.gpu.bf16_tflops);
  e.mfu = e.training_flops_per_token * e.tokens_per_second / peak;
  e.mfu_causal = e.training_flops_per_token_causal * e.tokens_per_second / peak;
  e.gpu_hours_per_trillion_tokens = d(s.hardware.gpus) * (1e12 / e.tokens_per_second) / 3600.0;
  e.gpu_hours_for_budget = e.gpu_hours_per_trillion_tokens * w.token_budget / 1e12;
  return e;
}

}  // namespace mhcsim::cost
