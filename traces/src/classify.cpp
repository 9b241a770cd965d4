#include "mhcsim/traces/classify.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include <algorithm>

namespace mhcsim::traces {
namespace {

constexpr std::array<std::string_view, kOpClasses> kNames = {
    "mhc", "dispatch", "combine", "pp_comm", "other_comm", "attention", "mlp", "other_compute"};
constexpr size_t kMaxCachedNames = 1 << 16;
constexpr size_t kMaxCachedNameBytes = size_t{64} << 20;  // names can be MBs long in a bad trace

// Patterns and RE2's errors quote the pattern, which can be long: enough of it to find it.
std::string excerpt(const std::string& s) {
  constexpr size_t kMaxChars = 80;
  return s.size() <= kMaxChars ? s : s.substr(0, kMaxChars) + "...";
}

}  // namespace

std::string_view to_string(OpClass c) { return kNames[static_cast<size_t>(c)]; }

std::optional<OpClass> parse_op_class(std::string_view s) {
  const auto it = std::find(kNames.begin(), kNames.end(), s);
  if (it == kNames.end()) return std::nullopt;
  return static_cast<OpClass>(it - kNames.begin());
}

bool is_communication(OpClass c) {
  return c == OpClass::Dispatch || c == OpClass::Combine || c == OpClass::PpComm ||
         c == OpClass::OtherComm;
}

ClassPatterns default_patterns() {
  ClassPatterns p;
  auto set = [&](OpClass c, std::string re) { p.pattern[static_cast<size_t>(c)] = std::move(re); };
  // mHC (arXiv 2512.24880 sec. 4.3): coefficient GEMV, Sinkhorn-Knopp, fused F_post,res.
  set(OpClass::Mhc, "mhc|sinkhorn|hyper_?conn|post_res");
  // DeepEP: intranode/internode/low_latency dispatch and combine; mhcsim: "F dispatch". Not
  // FlashAttention's / FlashMLA's split-KV "combine" kernels, which are attention.
  set(OpClass::Dispatch, "dispatch");
  set(OpClass::Combine, "combine");
  for (const OpClass c : {OpClass::Dispatch, OpClass::Combine})
    p.exclude[static_cast<size_t>(c)] = "flash|splitkv|mla";
  // NCCL point-to-point (ncclDevKernel_SendRecv, ncclKernel_SendRecv_...); mhcsim: "send".
  set(OpClass::PpComm, "(^|[^a-z])send($|[^a-z])|sendrecv|send_recv|(^|[^a-z])recv($|[^a-z])|p2p");
  set(OpClass::OtherComm, "nccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|^memcpy|^memset");
  // FlashAttention, FlashMLA, cuDNN/CUTLASS fmha, PyTorch SDPA; mhcsim: "F attn".
  set(OpClass::Attention, "attn|attention|flash|fmha|mla|sdpa|softmax|rotary|rope");
  // Grouped / expert GEMMs (DeepGEMM m_grouped_*, fused_moe, gmm), SwiGLU FFN; mhcsim: "F mlp".
  set(OpClass::Mlp, "moe|expert|grouped_?gemm|m_grouped|gmm|mlp|ffn|swiglu|silu|gelu|permute");
  // Kineto's host-side and annotation events share the trace with the kernels.
  p.ignore_categories = {"cpu_op", "python_function", "user_annotation", "gpu_user_annotation",
                         "cuda_runtime", "cuda_driver", "cuda_profiler_range", "Trace", "fwdbwd",
                         "ac2g", "Runtime", "Operator", "overhead"};
  return p;
}

Regex compile_pattern(const std::string& pattern, const std::string& key, const SourceLocation& at) {
  RE2::Options options;
  options.set_case_sensitive(false);
  options.set_log_errors(false);  // the error is thrown as one line, not logged to stderr
  auto re = std::make_shared<const RE2>(pattern, options);
  if (!re->ok())
    throw InputError(key, fmt::format("'{}' is not a valid regex (RE2: {})", excerpt(pattern), excerpt(re->error())), at);
  return re;
}

Classifier::Classifier(const ClassPatterns& patterns) : ignore_(patterns.ignore_categories) {
  for (size_t c = 0; c < kOpClasses; ++c) {
    const std::string name(kNames[c]);
    if (!patterns.pattern[c].empty()) pattern_[c] = compile_pattern(patterns.pattern[c], "patterns." + name);
    if (!patterns.exclude[c].empty()) exclude_[c] = compile_pattern(patterns.exclude[c], "exclude." + name);
  }
}

bool Classifier::matches(size_t op_class, const std::string& name) const {
  return pattern_[op_class] && RE2::PartialMatch(name, *pattern_[op_class]) &&
         !(exclude_[op_class] && RE2::PartialMatch(name, *exclude_[op_class]));
}

std::optional<OpClass> Classifier::classify(const std::string& name, const std::string& cat) {
  if (!cat.empty() && std::find(ignore_.begin(), ignore_.end(), cat) != ignore_.end())
    return std::nullopt;
  if (const auto it = cache_.find(name); it != cache_.end()) return it->second;
  OpClass found = OpClass::OtherCompute;
  for (size_t c = 0; c < kOpClasses; ++c)
    if (matches(c, name)) {
      found = static_cast<OpClass>(c);
      break;
    }
  if (cache_.size() < kMaxCachedNames && cached_name_bytes_ + name.size() <= kMaxCachedNameBytes) {
    cache_.emplace(name, found);
    cached_name_bytes_ += name.size();
  }
  return found;
}

}  // namespace mhcsim::traces
