#include "mhcsim/stability/study.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "mhcsim/error.h"

namespace mhcsim::stability {
namespace {

// Per-depth values of one variant over all samples, depth-major so that each depth's samples
// are contiguous for the quantiles.
struct CurveValues {
  int64_t samples = 0;
  std::vector<float> forward, backward;  // [l * samples + s]
  std::vector<double> peak, max_forward, max_backward, spectral;
};

void record(CurveValues& c, int64_t sample, const GainCurve& g) {
  for (size_t l = 0; l < g.forward.size(); ++l) {
    const auto at = static_cast<size_t>(static_cast<int64_t>(l) * c.samples + sample);
    c.forward[at] = static_cast<float>(g.forward[l]);
    c.backward[at] = static_cast<float>(g.backward[l]);
  }
  c.peak.push_back(g.peak());
  c.max_forward.push_back(g.max_forward);
  c.max_backward.push_back(g.max_backward);
  c.spectral.push_back(g.spectral_norm);
}

std::vector<Distribution> per_depth(const std::vector<float>& values, int64_t samples, int64_t depth) {
  std::vector<Distribution> out;
  out.reserve(static_cast<size_t>(depth));
  std::vector<double> column(static_cast<size_t>(samples));
  for (int64_t l = 0; l < depth; ++l) {
    const auto first = values.begin() + l * samples;
    std::copy(first, first + samples, column.begin());
    out.push_back(distribution(column));
  }
  return out;
}

VariantGain summarise(const Variant& v, CurveValues& c, int64_t depth) {
  VariantGain g;
  g.variant = v;
  g.peak = distribution(c.peak);
  g.max_forward = distribution(c.max_forward);
  g.max_backward = distribution(c.max_backward);
  g.spectral_norm = distribution(c.spectral);
  g.forward = per_depth(c.forward, c.samples, depth);
  g.backward = per_depth(c.backward, c.samples, depth);
  return g;
}

// Runs every draw through every variant; `next_raw(raw)` fills the sample's raw matrices.
template <class NextRaw>
std::vector<VariantGain> run_study(int64_t n, int64_t depth, int64_t samples, const std::vector<Variant>& variants,
                                   NextRaw next_raw) {
  check_study_size(n, depth, samples, variants);
  std::vector<CurveValues> values(variants.size());
  for (auto& c : values) {
    c.samples = samples;
    c.forward.resize(static_cast<size_t>(depth * samples));
    c.backward.resize(static_cast<size_t>(depth * samples));
  }
  MappingStack raw, mapped;
  ProjectionScratch scratch;
  GainCurve curve;
  for (int64_t s = 0; s < samples; ++s) {
    next_raw(raw);
    for (size_t v = 0; v < variants.size(); ++v) {
      residual_mappings(raw, variants[v], mapped, scratch);
      composite_gain(mapped, curve);
      record(values[v], s, curve);
    }
  }
  std::vector<VariantGain> out;
  for (size_t v = 0; v < variants.size(); ++v) out.push_back(summarise(variants[v], values[v], depth));
  return out;
}

// Median of the HC peak gain over the draws `z` (noise 1) scaled by `noise`.
double median_hc_peak(const std::vector<MappingStack>& z, double noise, double identity_bias) {
  MappingStack raw;
  GainCurve curve;
  std::vector<double> peaks;
  for (const auto& draw : z) {
    raw = draw;
    for (double& x : raw.values) x *= noise;
    for (int64_t l = 0; l < raw.layers; ++l) {
      for (int64_t i = 0; i < raw.n; ++i) raw.layer(l)[i * raw.n + i] += identity_bias;
    }
    composite_gain(raw, curve);
    peaks.push_back(curve.peak());
  }
  return distribution(peaks).median;
}

}  // namespace

void sample_raw(const RandomModel& model, std::mt19937_64& rng, MappingStack& out) {
  out.n = model.n;
  out.layers = model.depth;
  const auto count = static_cast<size_t>(model.n * model.n * model.depth);
  out.values.resize(count);
  // Standard normals by Marsaglia's polar method (Marsaglia & Bray 1964), two per accepted
  // point of the unit disc, from 53-bit uniforms: the same draws on every standard library
  // (std::normal_distribution's are implementation-defined) and a third of its time here.
  const auto uniform = [&rng] { return static_cast<double>(rng() >> 11) * 0x1p-52 - 1.0; };  // [-1, 1)
  for (size_t k = 0; k < count; k += 2) {
    double u = 0, v = 0, r2 = 0;
    do {
      u = uniform();
      v = uniform();
      r2 = u * u + v * v;
    } while (r2 >= 1.0 || r2 == 0.0);
    const double f = std::sqrt(-2.0 * std::log(r2) / r2);
    out.values[k] = model.noise * u * f;
    if (k + 1 < count) out.values[k + 1] = model.noise * v * f;
  }
  for (int64_t l = 0; l < model.depth; ++l) {
    for (int64_t i = 0; i < model.n; ++i) out.layer(l)[i * model.n + i] += model.identity_bias;
  }
}

Distribution distribution(std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("distribution: no values");
  std::sort(values.begin(), values.end());
  // Type 7: h = (N - 1) p, interpolate between x[floor h] and x[floor h + 1].
  const auto quantile = [&](double p) {
    const double h = static_cast<double>(values.size() - 1) * p;
    const auto lo = static_cast<size_t>(std::floor(h));
    const size_t hi = std::min(lo + 1, values.size() - 1);
    const double frac = h - static_cast<double>(lo), a = values[lo], b = values[hi];
    // An overflowed gain is inf: inf - inf and 0 x inf would make the quantile nan.
    return frac == 0 || a == b ? a : a + frac * (b - a);
  };
  return {quantile(0.5), quantile(0.99), values.back()};
}

std::vector<Variant> standard_variants(const std::vector<int>& sinkhorn_iters) {
  std::vector<Variant> v = {{MappingKind::HC, 0}};
  for (const int t : sinkhorn_iters) {
    v.push_back({MappingKind::MhcFp32, t});
    v.push_back({MappingKind::MhcBf16, t});
  }
  return v;
}

double study_element_operations(int64_t n, int64_t depth, int64_t samples, const std::vector<Variant>& variants) {
  const double nd = static_cast<double>(n);
  double per_mapping = 0;
  for (const auto& v : variants) {
    per_mapping += nd * nd * nd + 2 * nd * nd;  // P_l = H^l P_{l-1}, row and column sums
    if (v.kind != MappingKind::HC)
      per_mapping += nd * nd * (1 + 4.0 * v.sinkhorn_iters);  // exp, 2t steps of sum + divide
  }
  return per_mapping * static_cast<double>(depth) * static_cast<double>(samples);
}

void check_study_size(int64_t n, int64_t depth, int64_t samples, const std::vector<Variant>& variants) {
  if (n < 1 || depth < 1 || samples < 1 || variants.empty())
    throw SpecError("stability", "needs n >= 1, depth >= 1, samples >= 1 and a variant");
  const double values =
      static_cast<double>(samples) * static_cast<double>(depth) * static_cast<double>(variants.size());
  if (values > static_cast<double>(kMaxCurveValues))
    throw SpecError("--samples", fmt::format("{} samples x {} mappings x {} variants = {:.3g} curve values, over the "
                                             "limit of {} (lower --samples, --layers or the --sinkhorn-iters list)",
                                             samples, depth, variants.size(), values, kMaxCurveValues));
  const double ops = study_element_operations(n, depth, samples, variants);
  if (ops > kMaxElementOperations)
    throw SpecError("--samples", fmt::format("{} samples x {} mappings of n = {} through {} variants is {:.3g} element "
                                             "operations, over the limit of {:.3g} (about a minute; lower --samples, "
                                             "--layers, --n or the --sinkhorn-iters)",
                                             samples, depth, n, variants.size(), ops, kMaxElementOperations));
}

std::vector<VariantGain> random_study(const RandomModel& model, int64_t samples, uint64_t seed,
                                      const std::vector<Variant>& variants) {
  std::mt19937_64 rng(seed);
  return run_study(model.n, model.depth, samples, variants, [&](MappingStack& raw) { sample_raw(model, rng, raw); });
}

std::vector<VariantGain> stack_study(const MappingStack& raw, const std::vector<Variant>& variants) {
  return run_study(raw.n, raw.layers, 1, variants, [&](MappingStack& out) { out = raw; });
}

double noise_for_median_peak(double target_gain, int64_t n, int64_t depth, int64_t samples, uint64_t seed,
                             double identity_bias) {
  if (!(target_gain > 1)) throw std::invalid_argument("noise_for_median_peak: the target gain must be > 1");
  RandomModel unit{n, depth, 0.0, 1.0};  // Z alone: raw = bias I + noise Z is built per trial
  std::mt19937_64 rng(seed);
  std::vector<MappingStack> z(static_cast<size_t>(samples));
  for (auto& draw : z) sample_raw(unit, rng, draw);
  double lo = std::log(1e-3), hi = std::log(10.0);
  for (int i = 0; i < 40; ++i) {
    const double mid = 0.5 * (lo + hi);
    (median_hc_peak(z, std::exp(mid), identity_bias) < target_gain ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

}  // namespace mhcsim::stability
