#include "mhcsim/cost/all_to_all.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mhcsim/cost/rates.h"
#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

double expected_experts_hit(const ModelSpec& m, double tokens) {
  const double e = static_cast<double>(m.routed_experts);
  return e * (1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / e, tokens));
}

double expected_unique_bins(int64_t items, int64_t bins, int64_t picks) {
  check(bins >= 1 && items >= bins && items % bins == 0, "experts",
        "items must split evenly over bins (expected experts divisible by nodes/GPUs)");
  check(picks >= 0 && picks <= items, "model.moe.top_k", "must be in [0, experts]");
  // P(a given bin is missed) = C(items - per_bin, picks) / C(items, picks), as a product.
  const int64_t per_bin = items / bins;
  double miss = 1.0;
  for (int64_t i = 0; i < picks; ++i) miss *= d(items - per_bin - i) / d(items - i);
  return d(bins) * (1.0 - std::max(0.0, miss));
}

double gpus_hit_by_whole_groups(int64_t gpus, int64_t groups, int64_t groups_per_gpu, int64_t chosen_groups,
                                int64_t group_experts, int64_t picks) {
  check(gpus >= 1 && groups_per_gpu >= 1 && gpus * groups_per_gpu == groups, "parallel.ep",
        "each GPU must hold the same whole number of expert groups");
  check(chosen_groups >= 1 && chosen_groups <= groups, "model.moe.max_groups_per_token", "must be in [1, groups]");
  check(picks >= 0 && picks <= chosen_groups * group_experts, "model.moe.top_k",
        "must be at most the experts of the groups a token reaches");
  const auto choose = [](int64_t n, int64_t k) {  // C(n, k) as a double; 0 outside 0 <= k <= n
    if (k < 0 || k > n) return 0.0;
    double c = 1;
    for (int64_t i = 1; i <= k; ++i) c = c * d(n - k + i) / d(i);
    return c;
  };
  // P(a GPU is missed) = sum over k of P(k of its groups are among the chosen: hypergeometric)
  // x P(none of the picks, drawn from the chosen groups' experts, falls in those k groups).
  const int64_t pool = chosen_groups * group_experts;
  double miss = 0;
  for (int64_t k = 0; k <= std::min(groups_per_gpu, chosen_groups); ++k) {
    double none_there = 1;
    for (int64_t i = 0; i < picks; ++i) none_there *= std::max(0.0, d(pool - k * group_experts - i) / d(pool - i));
    miss += choose(groups_per_gpu, k) * choose(groups - groups_per_gpu, chosen_groups - k) /
            choose(groups, chosen_groups) * none_there;
  }
  return d(gpus) * (1.0 - miss);
}

double dispatch_bytes_per_selection(int64_t hidden, DType dispatch, int64_t tile) {
  check(hidden >= 1, "model.hidden", "must be >= 1");
  check(tile >= 1, "precision.fp8_tile", "must be >= 1");
  const double scales = dispatch == DType::FP8 ? d((hidden + tile - 1) / tile) * 4.0 : 0.0;
  return d(hidden) * bytes_per_element(dispatch) + scales + kDispatchMetadataBytes;
}

double combine_bytes_per_selection(int64_t hidden, DType combine) {
  check(hidden >= 1, "model.hidden", "must be >= 1");
  return d(hidden) * bytes_per_element(combine);
}

RoutingNodes routing_nodes(const ModelSpec& m, int64_t ep, int64_t redundant_experts, int64_t node_gpus) {
  const int64_t gpn = std::max<int64_t>(1, node_gpus);
  const int64_t ep_nodes = (std::max<int64_t>(1, ep) + gpn - 1) / gpn;
  // Without groups the gate itself may be node-limited (DeepSeek-V2's device-limited routing):
  // it can send a token to as few nodes as hold its top-k experts.
  if (m.expert_groups <= 1) {
    const int64_t slots = std::max<int64_t>(1, (m.routed_experts + redundant_experts) / ep_nodes);
    return {ep_nodes, std::min(ep_nodes, (m.top_k + slots - 1) / slots)};
  }
  const int64_t group_experts = m.routed_experts / m.expert_groups;
  // Nodes a group of `per_node`-expert nodes spans at least, and what max_groups_per_token of
  // them reach.
  const auto reach = [&](int64_t per_node) {
    per_node = std::max<int64_t>(1, per_node);
    return std::min(ep_nodes, m.max_groups_per_token * ((group_experts + per_node - 1) / per_node));
  };
  // Distinct experts per node (the replicas add none): the default. Slots per node, replicas
  // filled with the group's own experts: the fewest any placement reaches.
  return {reach((m.routed_experts + ep_nodes - 1) / ep_nodes),
          reach((m.routed_experts + redundant_experts) / ep_nodes)};
}

A2aTraffic a2a_traffic_per_token(const Scenario& s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  check(m.is_moe(), "model.moe.routed_experts", "all-to-all needs a MoE model (experts > 0)");
  check(m.top_k >= 1 && m.top_k <= m.routed_experts, "model.moe.top_k", "must be in [1, routed_experts]");
  check_parallel_ranges(p);
  const int64_t gpn = std::max(1, s.hardware.nvlink_domain());
  A2aTraffic t;
  t.ep_nodes = (p.ep + gpn - 1) / gpn;
  const int64_t gpus_in_node = std::min<int64_t>(p.ep, gpn);
  // Expert slots (routed + redundant replicas) on the nodes a token may reach: node-limited
  // routing picks those nodes first.
  const int64_t slots = m.routed_experts + p.redundant_experts;
  const int64_t experts_per_node = slots / t.ep_nodes;
  check(experts_per_node * t.ep_nodes == slots && experts_per_node % gpus_in_node == 0, "parallel.ep",
        "routed + redundant experts must split evenly over the EP nodes and GPUs");
  // DeepSeek's training placed one expert group per node (EP64 over 8 nodes: a token reaches
  // 4); at EP144 over 18 nodes a node holds 15 of the 256 experts (16 slots with the replicas),
  // so a group of 32 spans 3 nodes and a token reaches up to 12 (no placement fewer than 8).
  const auto routing = routing_nodes(m, p.ep, p.redundant_experts, gpn);
  check(p.max_nodes_per_token == 0 || p.max_nodes_per_token >= routing.fewest, "parallel.max_nodes_per_token", [&] {
    if (m.expert_groups <= 1)
      return fmt::format("{} nodes cannot hold a token's top-{} experts with {} expert slots per node: at least {}",
                         p.max_nodes_per_token, m.top_k, experts_per_node, routing.fewest);
    return fmt::format(
        "{} nodes cannot hold the {} of {} expert groups a token reaches (model.moe.max_groups_per_token) with "
        "{} expert slots per node: at least {}, or 0 for the routing's own limit",
        p.max_nodes_per_token, m.max_groups_per_token, m.expert_groups, experts_per_node, routing.fewest);
  });
  t.nodes_limit = p.max_nodes_per_token > 0 ? std::min(p.max_nodes_per_token, routing.reach) : routing.reach;
  const int64_t reachable = experts_per_node * t.nodes_limit;
  t.nodes_per_token = expected_unique_bins(reachable, t.nodes_limit, m.top_k);
  t.remote_nodes_per_token = t.nodes_per_token * d(t.ep_nodes - 1) / d(t.ep_nodes);
  // Within the nodes reached the token's experts may sit on every GPU: EPLB packs a node's
  // experts and their replicas onto its GPUs by load, not by group (DeepSeek's EPLB README,
  // hierarchical policy). Without replicas the experts are placed in order (expert e on EP rank
  // e / experts-per-GPU, as Megatron-Core and DeepSeek's training place them), so where a group
  // fills whole GPUs only its max_groups_per_token groups' GPUs are reached: at EP 8 one group
  // per GPU, 4 of the 8 GPUs (3.63 expected for top-8, where any GPU gave 5.30).
  const int64_t per_gpu = experts_per_node / gpus_in_node;
  int64_t gpu_reach = t.nodes_limit * gpus_in_node;
  t.gpus_per_token = -1;
  if (m.expert_groups > 1 && p.redundant_experts == 0) {
    const int64_t group_experts = m.routed_experts / m.expert_groups;
    gpu_reach = std::min(gpu_reach, m.max_groups_per_token * ((group_experts + per_gpu - 1) / per_gpu));
    // A GPU holding two or more whole groups can receive several of the token's groups, so the
    // chosen groups cover fewer GPUs than max_groups_per_token (EP 4: 2.93, not 3.61).
    if (per_gpu > group_experts && per_gpu % group_experts == 0 && t.nodes_limit >= t.ep_nodes)
      t.gpus_per_token = gpus_hit_by_whole_groups(p.ep, m.expert_groups, per_gpu / group_experts,
                                                  m.max_groups_per_token, group_experts, m.top_k);
  }
  if (t.gpus_per_token < 0) t.gpus_per_token = expected_unique_bins(per_gpu * gpu_reach, gpu_reach, m.top_k);
  const double nvlink_copies = t.gpus_per_token * (1.0 - 1.0 / d(gpus_in_node));
  const double disp = dispatch_bytes_per_selection(m.hidden, s.precision.dispatch, s.precision.fp8_tile);
  const double comb = combine_bytes_per_selection(m.hidden, s.precision.combine);
  t.dispatch_nvlink_bytes = nvlink_copies * disp;
  t.dispatch_nic_bytes = t.remote_nodes_per_token * disp;
  t.combine_nvlink_bytes = nvlink_copies * comb;
  t.combine_nic_bytes = t.remote_nodes_per_token * comb;
  t.dispatch_logical_bytes = d(m.top_k) * disp;
  t.combine_logical_bytes = d(m.top_k) * comb;
  return t;
}

double A2aTime::dispatch_seconds() const { return std::max(dispatch_nvlink_seconds, dispatch_nic_seconds); }
double A2aTime::combine_seconds() const { return std::max(combine_nvlink_seconds, combine_nic_seconds); }

A2aTime a2a_time(const Scenario& s, double tokens) {
  check(tokens >= 0, "tokens", "must be >= 0");
  const auto t = a2a_traffic_per_token(s);
  const double intra_peers = d(std::min<int64_t>(s.parallel.ep, s.hardware.nvlink_domain()) - 1);
  const double inter_peers = d(t.ep_nodes - 1);
  A2aTime r;
  if (intra_peers > 0) {
    const auto nv = nvlink_rate(s);
    r.dispatch_nvlink_seconds = nv.seconds(tokens * t.dispatch_nvlink_bytes, intra_peers);
    r.combine_nvlink_seconds = nv.seconds(tokens * t.combine_nvlink_bytes, intra_peers);
  }
  if (inter_peers > 0) {
    const auto ib = nic_rate(s);
    r.dispatch_nic_seconds = ib.seconds(tokens * t.dispatch_nic_bytes, inter_peers);
    r.combine_nic_seconds = ib.seconds(tokens * t.combine_nic_bytes, inter_peers);
  }
  return r;
}

}  // namespace mhcsim::cost
