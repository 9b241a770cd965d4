// Capacity questions: the max-rate search (vidur's binary search over QPS) and the deployment
// units a target load is rounded to.
#include <catch2/catch.hpp>

#include <algorithm>

#include "mhcsim/error.h"
#include "mhcsim/serving/capacity.h"
#include "mhcsim/serving/simulate.h"
#include "scenarios.h"

using namespace mhcsim;
using namespace mhcsim::serving;
using Catch::Matchers::WithinRel;

TEST_CASE("max-rate search brackets and bisects to the SLO boundary") {
  // A synthetic service whose p99 TTFT is its rate in seconds: the boundary is at 3.3 requests/s.
  int runs = 0;
  const auto run = [&](double rate) {
    ++runs;
    ServingResult r;
    r.rate_per_s = rate;
    r.ttft.p99_s = rate;
    r.last_arrival_s = 1e6;
    return r;
  };
  const auto up = search_max_rate(run, 3.3, 0, 0.25);
  CHECK(up.rate_per_s <= 3.3);
  CHECK(up.rate_per_s >= 3.3 * 0.98);
  CHECK(up.at_rate.rate_per_s == up.rate_per_s);
  CHECK(static_cast<int>(up.probes.size()) == runs);
  const auto down = search_max_rate(run, 3.3, 0, 100.0);  // starts past the boundary: halves first
  CHECK(down.rate_per_s <= 3.3);
  CHECK(down.rate_per_s >= 3.3 * 0.98);
  // From 1e9 the boundary is 2^38 below: 31 halvings stopped at 0.47 and found no rate.
  const auto far = search_max_rate(run, 0.0058, 0, 1e9);
  CHECK(far.rate_per_s <= 0.0058);
  CHECK(far.rate_per_s >= 0.0058 * 0.98);
  CHECK_THROWS_WITH(search_max_rate(run, 0, 0, 1.0), Catch::Contains("needs an SLO"));
  // The floor: halving stops at min_rate_per_s (the simulated clock's range), not 2^31 below.
  runs = 0;
  const auto floor = search_max_rate(run, 0.01, 0, 1.0, /*min_rate_per_s=*/0.1);
  CHECK(floor.rate_per_s == 0);
  CHECK(runs == 4);  // 1, 0.5, 0.25, 0.125; 0.0625 is below the floor
}

TEST_CASE("max-rate search: a rate the service falls behind at is not served, however loose the SLO") {
  // A finite run of N requests past capacity levels its p99 off (its queue grows only while they
  // arrive): this service serves 2 requests/s and its p99 TTFT is the backlog the last arrival
  // finds, (rate - 2) x N / rate / 2 s, under the 1,000 s SLO at any rate with N = 1,000.
  const auto run = [](double rate) {
    ServingResult r;
    r.rate_per_s = rate;
    r.last_arrival_s = 1000.0 / rate;
    r.ttft.p99_s = std::max(0.1, (rate - 2.0) * r.last_arrival_s / 2.0);
    return r;
  };
  const auto m = search_max_rate(run, 1000.0, 0, 1.0);
  CHECK(m.rate_per_s >= 2.0);
  CHECK(m.rate_per_s <= 2.0 / (1.0 - 2.0 / kRunOverTtft));  // the p99 at a tenth of the run
}

TEST_CASE("max-rate search on the simulator: the rate found meets the SLOs, 20% more does not") {
  const Deployment d(test::deepseek_serve());
  ServingConfig c;
  c.slo_ttft_s = 2.0;
  c.slo_tpot_s = 0.1;
  const auto run = [&](double rate) {
    PoissonSource source(rate, 600, {LengthDistribution::Kind::Fixed, 1000}, {LengthDistribution::Kind::Fixed, 200}, 5);
    return simulate(d, c, source);
  };
  const auto m = search_max_rate(run, c.slo_ttft_s, c.slo_tpot_s, 1.0);
  REQUIRE(m.rate_per_s > 0);
  CHECK(meets_slos(m.at_rate, c.slo_ttft_s, c.slo_tpot_s));
  CHECK_FALSE(meets_slos(run(1.2 * m.rate_per_s), c.slo_ttft_s, c.slo_tpot_s));
  CHECK(keeps_up(m.at_rate));
  CHECK_FALSE(keeps_up(run(4.0 * m.rate_per_s)));  // far past capacity: its queue holds the run
}

TEST_CASE("deployment units: the EP group in whole nodes, or the replica") {
  const auto ep = pool_units(test::deepseek_serve(), "decode");  // EP144, one GPU per replica
  CHECK(ep.gpus_per_replica == 1);
  CHECK(ep.unit_gpus == 144);
  CHECK(ep.replicas_per_unit == 144);
  const auto prefill = pool_units(test::deepseek_serve({{"parallel.ep", "32"}, {"hardware.gpus", "32"}}), "prefill");
  CHECK(prefill.unit_gpus == 32);                              // DeepSeek's 4-node prefill unit
  const auto tp = pool_units(test::llama_serve(), "serving");  // TP 8 dense: a node per replica
  CHECK(tp.unit_gpus == 8);
  CHECK(tp.replicas_per_unit == 1);

  // 1,000 tokens/s wanted, 10 replicas served 300: 34 replicas -> one EP144 unit.
  const auto a = capacity_for(1000, 300, {{ep, 10}}, "--target-rate");
  CHECK_THAT(a.scale, WithinRel(10.0 / 3, 1e-12));
  REQUIRE(a.pools.size() == 1);
  CHECK(a.pools[0].replicas == 144);
  CHECK(a.pools[0].deployment_units == 1);
  CHECK(a.gpus == 144);
  CHECK(a.nodes == 18);
  // Two pools scale together: 4 prefill + 12 decode replicas serving a third of the load.
  const auto b = capacity_for(3000, 1000, {{prefill, 4}, {ep, 12}}, "--target-rate");
  CHECK(b.pools[0].replicas == 32);
  CHECK(b.pools[1].replicas == 144);
  CHECK(b.gpus == 176);
  CHECK(b.nodes == 22);
  // Each pool in servers of its own: a prefill pool on 4-GPU GB200 trays takes 8 of them.
  auto gb200 = test::deepseek_serve({{"parallel.ep", "32"}, {"hardware.gpus", "32"}, {"hardware.gpu", "GB200"}});
  const auto c = capacity_for(3000, 1000, {{pool_units(gb200, "prefill"), 4}, {ep, 12}}, "--target-rate");
  CHECK(c.gpus == 176);
  CHECK(c.nodes == 32 / 4 + 144 / 8);
  CHECK(capacity_for(0, 300, {{ep, 10}}, "--target-rate").gpus == 0);  // no target, no answer
  // However small the target, a whole unit (1e-300 of a replica once rounded to none).
  CHECK(capacity_for(1e-300, 300, {{ep, 10}}, "--target-rate").pools[0].replicas == 144);
  // A target past any fleet is an input error naming its key, not an int64 overflow.
  CHECK_THROWS_AS(capacity_for(1e300, 300, {{ep, 10}}, "--target-rate"), InputError);
  CHECK_THROWS_WITH(capacity_for(1e300, 300, {{ep, 10}}, "--target-rate"), Catch::Contains("--target-rate"));
}
