#include "mhcsim/api/a2a.h"

#include <algorithm>
#include <cmath>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/serving_step.h"

namespace mhcsim::api {

std::vector<reports::Quantity> a2a_quantities(const Scenario& s, int64_t tokens_option) {
  const auto& w = s.workload;
  const bool serving = w.mode == WorkloadMode::Serve;
  // A decode batch takes DeepEP's low-latency kernels, as `step` and `serve` price it (one
  // micro-batch of the overlapped pair per all-to-all); training and prefill the normal ones.
  const auto batch = serving ? cost::workload_batch(s) : cost::BatchShape{};
  const bool low_latency = serving && cost::ServingStepModel::low_latency(s, batch);
  // Serving: one micro-batch of the iteration, each TP rank dispatching its share (as the
  // serving step prices it): a decode batch's sequences, a prefill batch's prompt tokens.
  const auto serving_tokens = [&] {
    const double micro_batches = static_cast<double>(cost::ServingStepModel::time_once(s, batch).micro_batches);
    return static_cast<int64_t>(
        std::ceil(batch.tokens() / micro_batches / static_cast<double>(std::max<int64_t>(1, s.parallel.tp))));
  };
  // Training: one micro-batch on a CP rank (cost::micro_batch_tokens, what a chunk dispatches)
  // over TP.
  const auto training_tokens = [&] {
    return static_cast<int64_t>(
        std::ceil(cost::micro_batch_tokens(s) / static_cast<double>(std::max<int64_t>(1, s.parallel.tp))));
  };
  const int64_t tokens = tokens_option > 0 ? tokens_option : serving ? serving_tokens() : training_tokens();
  const auto t = cost::a2a_traffic_per_token(s);
  std::vector<reports::Quantity> q{
      {"kernel", "kernel", low_latency ? "DeepEP low-latency (decode)" : "DeepEP normal", ""},
      {"ep", "EP group", s.parallel.ep, "GPUs"},
      {"ep_nodes", "nodes in the EP group", t.ep_nodes, "nodes"},
      {"nodes_limit", "nodes a token may reach", t.nodes_limit, "nodes"},
      {"nodes_per_token", "expected destination nodes", t.nodes_per_token, "nodes"},
      {"remote_nodes_per_token", "expected remote nodes", t.remote_nodes_per_token, "nodes"},
      {"gpus_per_token", "expected destination GPUs", t.gpus_per_token, "GPUs"},
      {"dispatch_nvlink_bytes", "dispatch NVLink per token", t.dispatch_nvlink_bytes, "KB", 1e-3, 2},
      {"dispatch_nic_bytes", "dispatch IB per token", t.dispatch_nic_bytes, "KB", 1e-3, 2},
      {"combine_nvlink_bytes", "combine NVLink per token", t.combine_nvlink_bytes, "KB", 1e-3, 2},
      {"combine_nic_bytes", "combine IB per token", t.combine_nic_bytes, "KB", 1e-3, 2},
      {"dispatch_logical_bytes", "dispatch logical (top-k x payload)", t.dispatch_logical_bytes, "KB", 1e-3, 2},
      {"combine_logical_bytes", "combine logical", t.combine_logical_bytes, "KB", 1e-3, 2},
      {"tokens", "tokens per GPU per MoE layer", tokens, "tokens"}};
  if (low_latency) {
    // The low-latency kernels write every selection over RDMA, NVLink peers included: no
    // NVLink/IB split, their published time per EP size (cost::low_latency_a2a_seconds).
    const auto ll = cost::low_latency_a2a_seconds(s, static_cast<double>(tokens));
    q.push_back({"dispatch_s", "dispatch per MoE layer", ll.dispatch, "us", 1e6, 1});
    q.push_back({"combine_s", "combine per MoE layer", ll.combine, "us", 1e6, 1});
    return q;
  }
  const auto time = cost::a2a_time(s, static_cast<double>(tokens));
  q.push_back({"dispatch_nvlink_s", "dispatch NVLink time", time.dispatch_nvlink_seconds, "us", 1e6, 1});
  q.push_back({"dispatch_nic_s", "dispatch IB time", time.dispatch_nic_seconds, "us", 1e6, 1});
  q.push_back({"combine_nvlink_s", "combine NVLink time", time.combine_nvlink_seconds, "us", 1e6, 1});
  q.push_back({"combine_nic_s", "combine IB time", time.combine_nic_seconds, "us", 1e6, 1});
  q.push_back({"dispatch_s", "dispatch per MoE layer", time.dispatch_seconds(), "us", 1e6, 1});
  q.push_back({"combine_s", "combine per MoE layer", time.combine_seconds(), "us", 1e6, 1});
  return q;
}

}  // namespace mhcsim::api
