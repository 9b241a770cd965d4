#pragma once
// MoE expert-parallel all-to-all (DeepSeek-V3 report 3.2.2; DeepEP README): bytes per token
// and MoE layer for dispatch and combine, split into NVLink (intra-node) and IB (inter-node)
// traffic as DeepEP's normal kernels move it (one IB copy per destination node, then NVLink
// forwarding to each destination GPU in that node), and an alpha-beta time. A "node" here is an
// NVLink domain (hardware.nvlink_domain()): a server of 8 H800s, or a whole GB200 NVL72 rack.
#include <cstdint>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

// E[distinct bins] when `picks` distinct items are drawn uniformly from `items` items spread
// evenly over `bins` bins: bins (1 - C(items - items/bins, picks) / C(items, picks)).
double expected_unique_bins(int64_t items, int64_t bins, int64_t picks);
// Expected GPUs a token's `picks` experts land on when each of `gpus` GPUs holds
// `groups_per_gpu` whole groups of `group_experts` experts (in order, no replicas) and the gate
// picks them among `chosen_groups` of the `groups`, every choice alike (DeepSeek-V3's
// group-limited routing). SpecError naming the key on impossible counts.
double gpus_hit_by_whole_groups(int64_t gpus, int64_t groups, int64_t groups_per_gpu, int64_t chosen_groups,
                                int64_t group_experts, int64_t picks);

// Routed experts of one MoE layer that at least one of `tokens` tokens picks, each token
// choosing top_k distinct experts uniformly: E (1 - (1 - k/E)^tokens).
double expected_experts_hit(const ModelSpec& m, double tokens);

// DeepEP's dispatch payload per selected expert: the hidden in the dispatch dtype, with FP8
// one fp32 scale per `tile` elements, and 16 B of routing metadata (7,408 B for DeepSeek-V3).
double dispatch_bytes_per_selection(int64_t hidden, DType dispatch, int64_t tile);
double combine_bytes_per_selection(int64_t hidden, DType combine);  // 14,336 B at BF16
inline constexpr double kDispatchMetadataBytes = 16;

struct A2aTraffic {
  int64_t ep_nodes = 0;        // nodes spanned by the EP group
  int64_t nodes_limit = 0;     // nodes a token may reach (node-limited routing)
  double nodes_per_token = 0;  // expected distinct destination nodes
  double remote_nodes_per_token = 0;
  double gpus_per_token = 0;         // expected distinct destination GPUs
  double dispatch_nvlink_bytes = 0;  // per token per MoE layer
  double dispatch_nic_bytes = 0;
  double combine_nvlink_bytes = 0;
  double combine_nic_bytes = 0;
  double dispatch_logical_bytes = 0;  // top_k x payload (DeepEP's "logical" accounting)
  double combine_logical_bytes = 0;
};

// Throws SpecError when the scenario has no experts, EP < 1 or top-k > experts.
A2aTraffic a2a_traffic_per_token(const Scenario& s);

// The nodes group-limited routing (DeepSeek-V3's gate: max_groups_per_token of the expert
// groups, report sec. 2.1.2) sends a token to when EP `ep` spreads the experts over nodes of
// `node_gpus` GPUs: each group of routed / groups experts spans at least ceil(group / experts
// per node) nodes. `reach` counts a node's distinct experts (the default for
// parallel.max_nodes_per_token = 0); `fewest` its slots, redundant replicas filled with the
// group's own experts, the fewest any placement reaches: a max_nodes_per_token below it cannot
// be routed (a2a_traffic_per_token refuses it, search prunes it). Without groups, the EP nodes
// reach and a node-limited gate may bring a token down to the nodes its top-k experts fill.
struct RoutingNodes {
  int64_t reach = 0;
  int64_t fewest = 0;
};
RoutingNodes routing_nodes(const ModelSpec& m, int64_t ep, int64_t redundant_experts, int64_t node_gpus);

struct A2aTime {
  double dispatch_nvlink_seconds = 0;
  double dispatch_nic_seconds = 0;
  double combine_nvlink_seconds = 0;
  double combine_nic_seconds = 0;
  // NVLink forwarding overlaps the IB transfer (DeepEP): each direction takes the slower.
  double dispatch_seconds() const;
  double combine_seconds() const;
};

// One MoE layer's dispatch and combine for `tokens` tokens per GPU. Pairwise exchange
// (DESIGN.md, nccl-tests): T = (peers) alpha + bytes / bandwidth per link class.
A2aTime a2a_time(const Scenario& s, double tokens);

}  // namespace mhcsim::cost
