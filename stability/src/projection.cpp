#include "mhcsim/stability/projection.h"

#include <stdexcept>

#include "mhcsim/kernels/ref/sinkhorn_ref.h"

namespace mhcsim::stability {

std::string_view to_string(MappingKind kind) { return kind == MappingKind::HC ? "HC" : "mHC"; }

std::string_view precision_name(MappingKind kind) {
  switch (kind) {
    case MappingKind::HC:
      return "-";
    case MappingKind::MhcFp32:
      return "fp32";
    case MappingKind::MhcBf16:
      return "bf16";
  }
  return "?";
}

void residual_mappings(const MappingStack& raw, const Variant& v, MappingStack& out, ProjectionScratch& scratch) {
  if (static_cast<int64_t>(raw.values.size()) != raw.n * raw.n * raw.layers)
    throw std::invalid_argument("residual_mappings: the stack needs n*n*layers values");
  out.n = raw.n;
  out.layers = raw.layers;
  if (v.kind == MappingKind::HC) {  // HC's H_res is the raw matrix itself (mHC paper Eq. 5)
    out.values = raw.values;
    return;
  }
  if (v.sinkhorn_iters < 1) throw std::invalid_argument("residual_mappings: mHC needs t_max >= 1");
  out.values.resize(raw.values.size());
  const int64_t nn = raw.n * raw.n;
  scratch.logits.resize(static_cast<size_t>(nn));
  scratch.h.resize(static_cast<size_t>(nn));
  const auto storage =
      v.kind == MappingKind::MhcBf16 ? kernels::ref::SinkhornStorage::Bf16 : kernels::ref::SinkhornStorage::Native;
  for (int64_t l = 0; l < raw.layers; ++l) {
    const double* in = raw.layer(l);
    for (int64_t i = 0; i < nn; ++i) scratch.logits[static_cast<size_t>(i)] = static_cast<float>(in[i]);
    // H_res = SK(exp(H~_res)), mHC paper Eq. 9, in the kernels' fp32 reference.
    kernels::ref::sinkhorn_forward(scratch.logits.data(), scratch.h.data(), raw.n, v.sinkhorn_iters, storage);
    double* o = out.layer(l);
    for (int64_t i = 0; i < nn; ++i) o[i] = static_cast<double>(scratch.h[static_cast<size_t>(i)]);
  }
}

MappingStack residual_mappings(const MappingStack& raw, const Variant& v) {
  MappingStack out;
  ProjectionScratch scratch;
  residual_mappings(raw, v, out, scratch);
  return out;
}

}  // namespace mhcsim::stability
