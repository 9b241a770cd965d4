// MoE all-to-all (DESIGN.md "MoE all-to-all"; DeepEP README figures).
#include <catch2/catch.hpp>

#include <random>
#include <set>
#include <vector>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/error.h"
#include "models.h"

using namespace mhcsim;
using namespace mhcsim::cost;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {
Scenario v3_ep(int64_t ep, int64_t max_nodes) {
  Scenario s;
  s.model = test::deepseek_v3();
  s.hardware.gpus_per_node = 8;
  s.hardware.gpus = 2048;
  s.hardware.gpu.nvlink_gb_per_s = 200;
  s.hardware.nic_gb_per_s_per_gpu = 50;
  s.hardware.nvlink_latency_us = 3.33;
  s.hardware.nic_latency_us = 3.7;
  s.precision.dispatch = DType::FP8;
  s.precision.combine = DType::BF16;
  s.parallel.ep = ep;
  s.parallel.max_nodes_per_token = max_nodes;
  return s;
}
// Draw `picks` distinct items out of `items` (bins of items/bins), count distinct bins.
double monte_carlo_unique_bins(int64_t items, int64_t bins, int64_t picks, int trials) {
  std::mt19937_64 rng(12345);
  std::vector<int64_t> all(static_cast<size_t>(items));
  for (int64_t i = 0; i < items; ++i) all[static_cast<size_t>(i)] = i;
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    std::set<int64_t> seen;
    for (int64_t k = 0; k < picks; ++k) {  // partial Fisher-Yates
      std::uniform_int_distribution<int64_t> pick(k, items - 1);
      std::swap(all[static_cast<size_t>(k)], all[static_cast<size_t>(pick(rng))]);
      seen.insert(all[static_cast<size_t>(k)] / (items / bins));
    }
    sum += static_cast<double>(seen.size());
  }
  return sum / trials;
}
// The gate's group-limited choice, drawn: `chosen` of `groups` groups (every choice alike), then
// `picks` distinct experts among theirs; experts in order on GPUs of `per_gpu`.
double monte_carlo_grouped_gpus(int64_t groups, int64_t group_experts, int64_t chosen, int64_t picks, int64_t per_gpu,
                                int trials) {
  std::mt19937_64 rng(777);
  std::vector<int64_t> order(static_cast<size_t>(groups));
  double sum = 0;
  for (int t = 0; t < trials; ++t) {
    for (int64_t g = 0; g < groups; ++g) order[static_cast<size_t>(g)] = g;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int64_t> pool;
    for (int64_t c = 0; c < chosen; ++c)
      for (int64_t e = 0; e < group_experts; ++e) pool.push_back(order[static_cast<size_t>(c)] * group_experts + e);
    std::shuffle(pool.begin(), pool.end(), rng);
    std::set<int64_t> gpus;
    for (int64_t k = 0; k < picks; ++k) gpus.insert(pool[static_cast<size_t>(k)] / per_gpu);
    sum += static_cast<double>(gpus.size());
  }
  return sum / trials;
}
}  // namespace

TEST_CASE("DeepEP payloads: 7,408 B FP8 dispatch per selection, 14,336 B BF16 combine") {
  CHECK(dispatch_bytes_per_selection(7168, DType::FP8, 128) == 7408);  // 7168 + 56 x 4 + 16
  CHECK(combine_bytes_per_selection(7168, DType::BF16) == 14336);
  CHECK(dispatch_bytes_per_selection(7168, DType::BF16, 128) == 14336 + 16);
}

TEST_CASE("expected distinct nodes: closed form against a Monte-Carlo run") {
  struct Case {
    int64_t items, bins, picks;
  };
  const auto c = GENERATE(Case{256, 8, 8}, Case{128, 4, 8}, Case{64, 8, 2}, Case{16, 16, 16}, Case{288, 144, 8});
  const int trials = 200000;
  const double exact = expected_unique_bins(c.items, c.bins, c.picks);
  const double mc = monte_carlo_unique_bins(c.items, c.bins, c.picks, trials);
  INFO("items " << c.items << " bins " << c.bins << " picks " << c.picks);
  // Standard error of a count in [1, bins] over 2e5 trials is < bins / 900; 5 sigma.
  CHECK_THAT(mc, WithinAbs(exact, 5.0 * static_cast<double>(c.bins) / 900.0 + 1e-9));
}

TEST_CASE("expected distinct bins: exact corner cases") {
  CHECK(expected_unique_bins(256, 8, 1) == 1.0);
  CHECK(expected_unique_bins(16, 16, 16) == 16.0);
  CHECK(expected_unique_bins(256, 1, 8) == 1.0);
  CHECK(expected_unique_bins(256, 8, 0) == 0.0);
  CHECK_THROWS_AS(expected_unique_bins(256, 8, 257), SpecError);
}

TEST_CASE("DeepSeek-V3 EP64 over 8 nodes, at most 4 nodes per token: NVLink vs IB split") {
  const auto t = a2a_traffic_per_token(v3_ep(64, 4));
  CHECK(t.ep_nodes == 8);
  CHECK(t.nodes_limit == 4);
  CHECK(t.nodes_per_token <= 4.0);
  CHECK_THAT(t.remote_nodes_per_token, WithinRel(t.nodes_per_token * 7.0 / 8.0, 1e-12));
  CHECK_THAT(t.dispatch_nic_bytes, WithinRel(t.remote_nodes_per_token * 7408, 1e-12));
  CHECK_THAT(t.combine_nic_bytes, WithinRel(t.remote_nodes_per_token * 14336, 1e-12));
  CHECK(t.dispatch_logical_bytes == 8 * 7408.0);
  // Node-limited routing sends fewer IB copies than unlimited routing over 8 nodes (a gate
  // without expert groups; DeepSeek-V3's own 4-of-8 groups limit it to 4 nodes here, as 4 does).
  auto ungrouped = v3_ep(64, 0);
  ungrouped.model.expert_groups = 1;
  ungrouped.model.max_groups_per_token = 1;
  CHECK(a2a_traffic_per_token(ungrouped).nodes_limit == 8);
  CHECK(t.dispatch_nic_bytes < a2a_traffic_per_token(ungrouped).dispatch_nic_bytes);
  CHECK(a2a_traffic_per_token(v3_ep(64, 0)).dispatch_nic_bytes == t.dispatch_nic_bytes);
  // Deduplication per node: IB carries at most one copy per remote node, fewer than top-k.
  CHECK(t.dispatch_nic_bytes < t.dispatch_logical_bytes);
}

// DeepSeek-V3's gate picks 4 of 8 groups of 32 experts. One group per node (EP64 over 8 nodes)
// reaches 4 nodes; EP144 over 18 nodes (day 6's decode deployment) holds 15 distinct experts
// per node, so a group spans 3 and a token reaches up to 12 (8 if the 32 replicas filled the
// 16 slots with the group's own experts); EP256, 4 per node: 16.
// A scenario that asks for fewer than the routing reaches is refused (the shipped serving
// scenario said 4 at EP144, a probe found, and the IB bytes were 45% short).
TEST_CASE("group-limited routing sets the nodes a token reaches; fewer cannot be asked for") {
  const auto m = test::deepseek_v3();
  const auto at = [&](int64_t ep, int64_t redundant) { return routing_nodes(m, ep, redundant, 8); };
  CHECK(at(64, 0).reach == 4);
  CHECK(at(64, 0).fewest == 4);
  // 15 of the 256 experts per node (16 slots with the replicas): 3 nodes per group, 2 at best.
  CHECK(at(144, 32).reach == 12);
  CHECK(at(144, 32).fewest == 8);
  CHECK(at(256, 0).reach == 16);
  CHECK(at(8, 0).reach == 1);
  // EP72 over 9 nodes with 32 replicas: 29 distinct experts per node, 32 slots, so SGLang's
  // max_nodes_per_token = 4 can be routed (a group per node) and caps the 8 of the default.
  CHECK(at(72, 32).reach == 8);
  CHECK(at(72, 32).fewest == 4);
  // Without groups the EP nodes are reached, and a node-limited gate may ask for as few as hold
  // the top-8 (DeepSeek-V2's device-limited routing): 1 node of 32 experts at EP64.
  auto ungrouped = m;
  ungrouped.expert_groups = 1;
  ungrouped.max_groups_per_token = 1;
  CHECK(routing_nodes(ungrouped, 64, 0, 8).reach == 8);
  CHECK(routing_nodes(ungrouped, 64, 0, 8).fewest == 1);
  auto v2_style = v3_ep(64, 4);
  v2_style.model = ungrouped;
  CHECK(a2a_traffic_per_token(v2_style).nodes_limit == 4);
  auto ep144 = v3_ep(144, 0);
  ep144.parallel.redundant_experts = 32;
  CHECK(a2a_traffic_per_token(ep144).nodes_limit == 12);
  ep144.parallel.max_nodes_per_token = 4;
  try {
    a2a_traffic_per_token(ep144);
    FAIL("max_nodes_per_token = 4 at EP144 was taken");
  } catch (const SpecError& e) {
    CHECK(e.key() == "parallel.max_nodes_per_token");
    CHECK_THAT(e.what(), Catch::Matchers::Contains("at least 8"));
  }
  ep144.parallel.max_nodes_per_token = 8;  // a placement that packs the replicas in-group
  CHECK(a2a_traffic_per_token(ep144).nodes_limit == 8);
  ep144.parallel.max_nodes_per_token = 16;  // looser than the routing: the routing's 12
  CHECK(a2a_traffic_per_token(ep144).nodes_limit == 12);
}

TEST_CASE("intra-node EP8 uses NVLink only; alpha-beta time from the catalog or calibration") {
  auto s = v3_ep(8, 0);
  const auto t = a2a_traffic_per_token(s);
  CHECK(t.dispatch_nic_bytes == 0);
  CHECK(t.dispatch_nvlink_bytes > 0);
  const double tokens = 4096;
  const auto time = a2a_time(s, tokens);
  CHECK(time.dispatch_nic_seconds == 0);
  CHECK_THAT(time.dispatch_seconds(),
             WithinRel(7 * 3.33e-6 + tokens * t.dispatch_nvlink_bytes / (200e9 * 0.77), 1e-12));
  s.calibration = CalibrationProfile{};
  s.calibration->collectives["alltoall_intra"] = CollectiveFit{1e-5, 100, 4, 0, 0, "test"};
  CHECK_THAT(a2a_time(s, tokens).dispatch_seconds(),
             WithinRel(7 * 1e-5 + tokens * t.dispatch_nvlink_bytes / 100e9, 1e-12));
}

// DeepSeek-V3's gate picks 4 of 8 groups of 32 experts, then its top 8 among those 128. Placed
// in order (no replicas), at EP 8 a group is one GPU: the token's experts fall on 4 GPUs, not on
// any of the 8 (3.63 expected where uniform routing gives 5.30); at EP 16 on 8 of the 16 GPUs.
// EPLB's replicas are packed onto a node's GPUs by load, so with them any GPU of a reached node
// may hold a selected expert.
TEST_CASE("group-limited routing also limits the GPUs a token reaches inside a node") {
  const auto gpus = [](int64_t ep, int64_t redundant) {
    auto s = v3_ep(ep, 0);
    s.parallel.redundant_experts = redundant;
    return a2a_traffic_per_token(s).gpus_per_token;
  };
  CHECK_THAT(gpus(8, 0), WithinRel(expected_unique_bins(128, 4, 8), 1e-12));
  CHECK_THAT(gpus(8, 0), WithinRel(monte_carlo_unique_bins(128, 4, 8, 20000), 0.02));
  CHECK_THAT(gpus(8, 0), WithinAbs(3.629, 1e-3));
  CHECK_THAT(gpus(16, 0), WithinRel(expected_unique_bins(128, 8, 8), 1e-12));
  // EP 64: a group fills a node's 8 GPUs, so the group limit at the node level already gave it.
  CHECK_THAT(gpus(64, 0), WithinRel(expected_unique_bins(128, 32, 8), 1e-12));
  CHECK_THAT(gpus(8, 32), WithinRel(expected_unique_bins(288, 8, 8), 1e-12));
  // EP 4: a GPU holds two groups, and a token's four groups may share GPUs. Exact:
  // 4 x (1 - [15/70 + 40/70 x C(96,8)/C(128,8) + 15/70 x C(64,8)/C(128,8)]) = 2.928, not the 3.61
  // that four GPUs of 64 experts each would give.
  CHECK_THAT(gpus(4, 0), WithinAbs(2.928, 1e-3));
  CHECK_THAT(gpus(4, 0), WithinRel(monte_carlo_grouped_gpus(8, 32, 4, 8, 64, 40000), 0.02));
  // Where a GPU holds one group the same count gives what the EP 8 line above does.
  CHECK_THAT(gpus_hit_by_whole_groups(8, 8, 1, 4, 32, 8), WithinRel(gpus(8, 0), 1e-12));
  CHECK_THROWS_WITH(gpus_hit_by_whole_groups(3, 8, 2, 4, 32, 8), Catch::Contains("parallel.ep"));
}

TEST_CASE("all-to-all rejects dense models and top-k > experts, naming the key") {
  auto s = v3_ep(64, 4);
  s.model.top_k = 300;
  CHECK_THROWS_WITH(a2a_traffic_per_token(s), Catch::Contains("model.moe.top_k"));
  s.model.routed_experts = 0;
  CHECK_THROWS_AS(a2a_traffic_per_token(s), SpecError);
}

TEST_CASE("the NVLink domain, not the server, decides what crosses the NICs (GB200 NVL72)") {
  // EP64 in 4-GPU trays: on 8-GPU servers 8 nodes and IB traffic; in one 72-GPU NVLink domain
  // every copy stays on NVLink, as NVIDIA's NVL72 joins the trays' GPUs with NVLink switches.
  auto s = v3_ep(64, 0);
  s.hardware.gpus_per_node = 4;
  s.hardware.nvlink_domain_gpus = 72;
  const auto rack = a2a_traffic_per_token(s);
  CHECK(rack.ep_nodes == 1);
  CHECK(rack.dispatch_nic_bytes == 0);
  CHECK(a2a_time(s, 4096).dispatch_nic_seconds == 0);
  s.hardware.nvlink_domain_gpus = 0;  // one server per domain: 16 trays, most copies over IB
  const auto trays = a2a_traffic_per_token(s);
  CHECK(trays.ep_nodes == 16);
  CHECK(trays.dispatch_nic_bytes > 0);
}
