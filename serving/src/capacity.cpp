#include "mhcsim/serving/capacity.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "mhcsim/cost/serving_step.h"
#include "mhcsim/error.h"
#include "mhcsim/interrupt.h"

namespace mhcsim::serving {

bool meets_slos(const ServingResult& r, double slo_ttft_s, double slo_tpot_s) {
  return (slo_ttft_s <= 0 || r.ttft.p99_s <= slo_ttft_s) && (slo_tpot_s <= 0 || r.tpot.p99_s <= slo_tpot_s);
}

bool keeps_up(const ServingResult& r) { return kRunOverTtft * r.ttft.p99_s <= r.last_arrival_s; }

MaxRate search_max_rate(const std::function<ServingResult(double)>& run, double slo_ttft_s, double slo_tpot_s,
                        double start_rate_per_s, double min_rate_per_s, double relative_tolerance) {
  require(slo_ttft_s > 0 || slo_tpot_s > 0, "--max-rate",
          "needs an SLO to meet (expected --slo-ttft and/or --slo-tpot)");
  require(start_rate_per_s > 0, "--rate", "must be > 0");
  // Up to 43 halvings below the start (1e9 requests/s down to 1.1e-4) or 31 doublings above
  // it, and ~20 bisections.
  constexpr int kMaxRuns = 64;
  constexpr int kBisections = 20;
  MaxRate m;
  const auto probe = [&](double rate) {
    throw_if_interrupted();  // a run of few events never reaches the engine's own poll
    m.probes.push_back(run(rate));
    const bool ok = meets_slos(m.probes.back(), slo_ttft_s, slo_tpot_s) && keeps_up(m.probes.back());
    if (ok && rate > m.rate_per_s) {
      m.rate_per_s = rate;
      m.at_rate = m.probes.back();
    }
    return ok;
  };
  double lo = 0, hi = start_rate_per_s;
  // Bracket: [lo meets, hi misses].
  if (probe(hi)) {
    lo = hi;
    while (static_cast<int>(m.probes.size()) < kMaxRuns / 2 && probe(hi * 2)) lo = hi *= 2;
    hi *= 2;
  } else {
    // Down to min_rate_per_s (the floor the caller can simulate) or 43 halvings: from --rate 1e9,
    // 31 halvings stopped at 0.47 and missed the 0.058 that met them.
    while (static_cast<int>(m.probes.size()) < kMaxRuns - kBisections) {
      const double r = hi / 2;
      if (r < min_rate_per_s) break;
      if (probe(r)) {
        lo = r;
        break;
      }
      hi = r;
    }
  }
  if (lo <= 0) return m;  // nothing meets the SLOs and keeps up down to min_rate_per_s (or start / 2^43)
  while (static_cast<int>(m.probes.size()) < kMaxRuns && (hi - lo) > relative_tolerance * lo) {
    const double mid = 0.5 * (lo + hi);
    (probe(mid) ? lo : hi) = mid;
  }
  return m;
}

PoolUnits pool_units(const Scenario& s, std::string label) {
  PoolUnits u;
  u.label = std::move(label);
  const auto& p = s.parallel;
  u.gpus_per_replica = p.tp * p.pp;
  u.unit_gpus = cost::deployment_unit_gpus(s);
  u.replicas_per_unit = std::max<int64_t>(1, u.unit_gpus / u.gpus_per_replica);
  u.gpus_per_node = s.hardware.gpus_per_node;
  return u;
}

CapacityAnswer capacity_for(double target, double simulated, const std::vector<std::pair<PoolUnits, int64_t>>& pools,
                            const std::string& target_key) {
  CapacityAnswer a;
  a.target_per_s = target;
  a.simulated_per_s = simulated;
  if (target <= 0 || simulated <= 0) return a;
  a.scale = target / simulated;
  for (const auto& [units, replicas] : pools) {
    PoolCapacity c;
    c.units = units;
    // At least one replica however small the target; the 1e-9 keeps an exact multiple exact.
    const double needed = std::max(1.0, std::ceil(a.scale * static_cast<double>(replicas) - 1e-9));
    require(needed <= static_cast<double>(kMaxCapacityReplicas), target_key.c_str(),
            fmt::format("{:.4g} per second needs {:.3g} {} replicas, more than {} (expected a smaller target)", target,
                        needed, units.label, kMaxCapacityReplicas));
    c.deployment_units = static_cast<int64_t>(std::ceil(needed / static_cast<double>(units.replicas_per_unit)));
    c.replicas = c.deployment_units * units.replicas_per_unit;
    c.gpus = c.deployment_units * units.unit_gpus;
    a.gpus += c.gpus;
    const int64_t gpn = std::max(1, units.gpus_per_node);
    a.nodes += (c.gpus + gpn - 1) / gpn;
    a.pools.push_back(c);
  }
  return a;
}

}  // namespace mhcsim::serving
