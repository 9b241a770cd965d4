#include "mhcsim/traces/classify.h"

#include <fmt/format.h>
#include <re2/re2.h>
#include <re2/set.h>

#include <algorithm>
#include <bitset>

namespace mhcsim::traces {
namespace {

constexpr std::array<std::string_view, kOpClasses> kNames = {"mhc",        "dispatch",  "combine", "pp_comm",
                                                             "other_comm", "attention", "mlp",     "other_compute"};
constexpr size_t kMaxCachedNames = 1 << 16;
constexpr size_t kMaxCachedNameBytes = size_t{64} << 20;  // names can be MBs long in a bad trace
// RE2's DFA cache for a set; past it RE2 falls back to slower matching, never to wrong answers.
constexpr int64_t kSetMemoryBytes = int64_t{64} << 20;

// Patterns and RE2's errors quote the pattern, which can be long: enough of it to find it.
std::string excerpt(const std::string& s) {
  constexpr size_t kMaxChars = 80;
  return s.size() <= kMaxChars ? s : s.substr(0, kMaxChars) + "...";
}

RE2::Options options() {
  RE2::Options o;
  o.set_case_sensitive(false);
  o.set_log_errors(false);  // errors are thrown as one line, not logged to stderr
  o.set_max_mem(kSetMemoryBytes);
  return o;
}

// Direction words of annotation names, strongest first (a weight-gradient range is also a
// backward one): "mlp(W)", "wgrad"; "attn(B)", "...Backward", "bwd", "dgrad"; "(F)", "fwd".
constexpr std::array<const char*, 3> kDirectionPatterns = {R"(\(w\)|wgrad|weight_?grad|(^|[^a-z0-9])w([^a-z0-9]|$))",
                                                           R"(\(b\)|backward|bwd|dgrad|(^|[^a-z0-9])b([^a-z0-9]|$))",
                                                           R"(\(f\)|forward|fwd|(^|[^a-z0-9])f([^a-z0-9]|$))"};
constexpr std::array<Direction, 3> kDirectionOf = {Direction::WeightGrad, Direction::Backward, Direction::Forward};

}  // namespace

// Kernel set: class patterns at [0, 8), excludes at [8, 16), the communication libraries at
// 16. Annotation set: class patterns at [0, 8), directions at [8, 11).
struct Classifier::Sets {
  Sets() : kernel(options(), RE2::UNANCHORED), annotation(options(), RE2::UNANCHORED) {}
  RE2::Set kernel;
  RE2::Set annotation;
  std::vector<Regex> kernel_each, annotation_each;  // the same patterns alone (nullptr: empty)
  bool any_annotation = false;
};

std::string_view to_string(OpClass c) { return kNames[static_cast<size_t>(c)]; }

std::string_view to_string(Direction d) {
  switch (d) {
    case Direction::Forward:
      return "forward";
    case Direction::Backward:
      return "backward";
    case Direction::WeightGrad:
      return "weight_grad";
    case Direction::Unknown:
      break;
  }
  return "";
}

std::optional<OpClass> parse_op_class(std::string_view s) {
  const auto it = std::find(kNames.begin(), kNames.end(), s);
  if (it == kNames.end()) return std::nullopt;
  return static_cast<OpClass>(it - kNames.begin());
}

bool is_communication(OpClass c) {
  return c == OpClass::Dispatch || c == OpClass::Combine || c == OpClass::PpComm || c == OpClass::OtherComm;
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
  for (const OpClass c : {OpClass::Dispatch, OpClass::Combine}) p.exclude[static_cast<size_t>(c)] = "flash|splitkv|mla";
  // NCCL point-to-point (ncclDevKernel_SendRecv, ncclKernel_SendRecv_...); mhcsim: "send".
  set(OpClass::PpComm, "(^|[^a-z])send($|[^a-z])|sendrecv|send_recv|(^|[^a-z])recv($|[^a-z])|p2p");
  // mhcsim: "DP grad sync", the exposed gradient reduce-scatter / all-gather closing a step.
  set(OpClass::OtherComm, "nccl|all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|^memcpy|^memset|grad sync");
  // FlashAttention, FlashMLA, cuDNN/CUTLASS fmha, PyTorch SDPA; mhcsim: "F attn".
  set(OpClass::Attention, "attn|attention|flash|fmha|mla|sdpa|softmax|rotary|rope");
  // Grouped / expert GEMMs (DeepGEMM m_grouped_*, fused_moe, gmm), SwiGLU FFN; mhcsim: "F mlp".
  set(OpClass::Mlp, "moe|expert|grouped_?gemm|m_grouped|gmm|mlp|ffn|swiglu|silu|gelu|permute");
  // NCCL / RCCL, DeepEP (deep_ep::, and DeepSeek's dpsk::ep:: in its published traces, with its
  // notify_dispatch / cached_notify kernels), NVSHMEM.
  p.communication = "nccl|rccl|deep_?ep|dpsk::ep|nvshmem|notify";
  // Annotation names: DeepSeek's profile-data ranges ("attn(F)", "mlp(B)", "dispatch(F)",
  // "combine(W)"), Megatron / torchtitan module names, autograd ops ("...DispatchBackward").
  auto ann = [&](OpClass c, std::string re) { p.annotation[static_cast<size_t>(c)] = std::move(re); };
  ann(OpClass::Mhc, "mhc|sinkhorn|hyper_?conn");
  ann(OpClass::Dispatch, "dispatch");
  ann(OpClass::Combine, "combine");
  ann(OpClass::PpComm, "(^|[^a-z])(send|recv|isend|irecv)($|[^a-z])|send_?recv|p2p|pp_comm");
  ann(OpClass::OtherComm, "all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|nccl|c10d");
  ann(OpClass::Attention, "attn|attention|mla|sdpa");
  ann(OpClass::Mlp, "mlp|moe|expert|ffn|gmm");
  // Kineto's host-side and annotation events share the trace with the kernels.
  p.ignore_categories = {"cpu_op",
                         "python_function",
                         "user_annotation",
                         "gpu_user_annotation",
                         "cuda_runtime",
                         "cuda_driver",
                         "cuda_profiler_range",
                         "Trace",
                         "fwdbwd",
                         "ac2g",
                         "Runtime",
                         "Operator",
                         "overhead"};
  return p;
}

Regex compile_pattern(const std::string& pattern, const std::string& key, const SourceLocation& at) {
  auto re = std::make_shared<const RE2>(pattern, options());
  if (!re->ok())
    throw InputError(key, fmt::format("'{}' is not a valid regex (RE2: {})", excerpt(pattern), excerpt(re->error())),
                     at);
  return re;
}

Classifier::Classifier(const ClassPatterns& patterns) : ignore_(patterns.ignore_categories) {
  auto sets = std::make_shared<Sets>();
  // Each pattern is compiled alone first, for an error naming its key (and for matching alone
  // should the set run out of memory); the set then holds it at a fixed index (an empty
  // pattern holds a never-matching one, so indices stay fixed).
  auto add = [](RE2::Set& set, std::vector<Regex>& each, const std::string& re, const std::string& key) {
    each.push_back(re.empty() ? nullptr : compile_pattern(re, key));
    std::string error;
    const int at = set.Add(re.empty() ? "[^\\x00-\\x{10FFFF}]" : re, &error);
    if (at != static_cast<int>(each.size()) - 1)
      throw InputError(key, fmt::format("'{}' is not a valid regex (RE2: {})", excerpt(re), excerpt(error)));
  };
  for (size_t c = 0; c < kOpClasses; ++c)
    add(sets->kernel, sets->kernel_each, patterns.pattern[c], "patterns." + std::string(kNames[c]));
  for (size_t c = 0; c < kOpClasses; ++c)
    add(sets->kernel, sets->kernel_each, patterns.exclude[c], "exclude." + std::string(kNames[c]));
  add(sets->kernel, sets->kernel_each, patterns.communication, "communication");
  for (size_t c = 0; c < kOpClasses; ++c) {
    add(sets->annotation, sets->annotation_each, patterns.annotation[c], "annotations." + std::string(kNames[c]));
    sets->any_annotation = sets->any_annotation || !patterns.annotation[c].empty();
  }
  for (const char* re : kDirectionPatterns) add(sets->annotation, sets->annotation_each, re, "direction");
  if (!sets->kernel.Compile() || !sets->annotation.Compile())
    throw InputError("patterns", "the patterns do not fit RE2's memory budget together (simplify them)");
  sets_ = std::move(sets);
}

bool Classifier::ignored(std::string_view cat) const {
  return !cat.empty() && std::find(ignore_.begin(), ignore_.end(), cat) != ignore_.end();
}

namespace {

// The set's matches as bits. A set whose DFA runs out of memory (a pathological name against
// many patterns) says so instead of answering: the patterns then run one by one, still in
// linear time.
template <size_t N>
std::bitset<N> match(const RE2::Set& set, const std::vector<Regex>& each, std::string_view text) {
  thread_local std::vector<int> hits;
  hits.clear();
  std::bitset<N> bits;
  const re2::StringPiece piece(text.data(), text.size());
  RE2::Set::ErrorInfo info{};
  if (!set.Match(piece, &hits, &info) && info.kind != RE2::Set::kNoError) {
    for (size_t i = 0; i < each.size() && i < N; ++i)
      if (each[i] && RE2::PartialMatch(piece, *each[i])) bits.set(i);
    return bits;
  }
  for (const int h : hits)
    if (h >= 0 && static_cast<size_t>(h) < N) bits.set(static_cast<size_t>(h));
  return bits;
}

}  // namespace

OpClass Classifier::kernel_class(std::string_view name) const {
  const auto hit = match<2 * kOpClasses + 1>(sets_->kernel, sets_->kernel_each, name);
  OpClass found = OpClass::OtherCompute;
  for (size_t c = 0; c < kOpClasses; ++c)
    if (hit[c] && !hit[kOpClasses + c]) {
      found = static_cast<OpClass>(c);
      break;
    }
  if (!is_communication(found) && hit[2 * kOpClasses]) found = OpClass::OtherComm;
  return found;
}

std::optional<AnnotationClass> Classifier::annotation_class(std::string_view name) const {
  if (!sets_->any_annotation) return std::nullopt;
  const auto hit = match<kOpClasses + 3>(sets_->annotation, sets_->annotation_each, name);
  for (size_t c = 0; c < kOpClasses; ++c)
    if (hit[c]) {
      AnnotationClass a{static_cast<OpClass>(c), Direction::Unknown};
      for (size_t d = 0; d < kDirectionOf.size(); ++d)
        if (hit[kOpClasses + d]) {
          a.direction = kDirectionOf[d];
          break;
        }
      return a;
    }
  return std::nullopt;
}

std::optional<OpClass> Classifier::classify(const std::string& name, const std::string& cat) {
  if (ignored(cat)) return std::nullopt;
  if (const auto it = cache_.find(name); it != cache_.end()) return it->second;
  const OpClass found = kernel_class(name);
  if (cache_.size() < kMaxCachedNames && cached_name_bytes_ + name.size() <= kMaxCachedNameBytes) {
    cache_.emplace(name, found);
    cached_name_bytes_ += name.size();
  }
  return found;
}

}  // namespace mhcsim::traces
