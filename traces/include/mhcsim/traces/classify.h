#pragma once
// Op classes of the model (the pieces DeepSeek-V3 overlaps, report 3.2, plus the mHC kernels)
// and the kernel-name patterns that map a trace's events onto them. Patterns are RE2 regexes
// (linear time in the name's length, whatever the pattern: no backtracking, so no
// backreferences or lookaround) matched case-insensitively anywhere in the name, tried in
// class order; the first class whose pattern matches and whose exclude pattern does not wins,
// and an unmatched kernel is "other_compute". Defaults cover Kineto traces of FlashAttention /
// FlashMLA, DeepGEMM / grouped GEMMs, DeepEP, NCCL and mhcsim's own trace; a patterns file
// (TOML or JSON) replaces any of them.
//
// Where the trace's authors annotated their code (record_function / user_annotation ranges,
// or CPU ops with telling names), the annotation's name gives the class and the direction
// (kernel_timeline.h maps annotations to kernels); the name patterns are the fallback. All
// patterns of one kind run as one RE2::Set: one pass over a name whatever the number of
// classes, so a trace of all-distinct names reads at the same rate as one of a few names.
#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mhcsim/error.h"

namespace re2 {
class RE2;
}

namespace mhcsim::traces {

enum class OpClass : uint8_t {
  Mhc,        // mHC coefficient / Sinkhorn / F_post,res kernels
  Dispatch,   // MoE all-to-all dispatch
  Combine,    // MoE all-to-all combine
  PpComm,     // pipeline send / recv
  OtherComm,  // other collectives (DP all-reduce, all-gather, memcpy)
  Attention,
  Mlp,           // dense FFN and MoE expert GEMMs
  OtherCompute,  // every kernel no pattern matched
};
inline constexpr size_t kOpClasses = 8;
std::string_view to_string(OpClass c);
std::optional<OpClass> parse_op_class(std::string_view s);
bool is_communication(OpClass c);

// Forward, backward (input gradient) or weight gradient, from an annotation's name ("attn(F)",
// "dispatch(B)", "mlp(W)", "...Backward", "fwd"/"bwd"); Unknown when nothing says.
enum class Direction : uint8_t { Unknown, Forward, Backward, WeightGrad };
inline constexpr size_t kDirections = 4;
std::string_view to_string(Direction d);  // "", "forward", "backward", "weight_grad"

// What an annotation's name says.
struct AnnotationClass {
  OpClass op_class = OpClass::OtherCompute;
  Direction direction = Direction::Unknown;
};

struct ClassPatterns {
  std::array<std::string, kOpClasses> pattern;  // per class; empty = never matches
  std::array<std::string, kOpClasses> exclude;  // per class; names matching it are not of the class
  // Per class, for the names of annotation ranges and CPU ops (`[annotations]`); empty = never.
  std::array<std::string, kOpClasses> annotation;
  // Kernels of communication libraries (NCCL, DeepEP, NVSHMEM, their notify kernels): a kernel
  // matching it whose class is a compute class is other_comm instead.
  std::string communication;
  std::vector<std::string> ignore_categories;  // events of these `cat`s are not kernels
};
ClassPatterns default_patterns();

// Reads a patterns file over the defaults: TOML (`[patterns] attention = "flash|attn"`,
// `[exclude] dispatch = "flash"`, `ignore_categories = [...]`) or JSON with the same keys
// (chosen by the .json extension). Throws InputError `file:line: key: reason` on unknown
// classes, wrong types or invalid regexes (with RE2's reason).
ClassPatterns load_patterns(const std::filesystem::path& path);
// The same from a patterns file's text; `file_name` names it in errors and its extension picks
// the format (the fuzz target's entry point).
ClassPatterns parse_patterns(const std::string& text, const std::filesystem::path& file_name);

using Regex = std::shared_ptr<const re2::RE2>;  // compiled once, shared by copies (thread-safe)
// Compiles a case-insensitive pattern; throws InputError(key, "'...' is not a valid regex
// (RE2: reason)", at).
Regex compile_pattern(const std::string& pattern, const std::string& key, const SourceLocation& at = {});

// Compiles the patterns once, as two RE2::Sets (kernel names; annotation names), shared by
// copies. classify() also caches the class of each distinct name, capped in names and bytes;
// the timeline builder keeps its own table of names instead.
class Classifier {
 public:
  explicit Classifier(const ClassPatterns& patterns);  // throws InputError on a bad regex
  // nullopt: an ignored category (CPU op, annotation, ...), not a kernel.
  std::optional<OpClass> classify(const std::string& name, const std::string& cat);
  bool ignored(std::string_view cat) const;
  // The class of a kernel name: one pass of the kernel set, no cache.
  OpClass kernel_class(std::string_view name) const;
  // What an annotation's (or CPU op's) name says; nullopt when no class matches.
  std::optional<AnnotationClass> annotation_class(std::string_view name) const;

 private:
  struct Sets;
  std::shared_ptr<const Sets> sets_;
  std::vector<std::string> ignore_;
  std::unordered_map<std::string, OpClass> cache_;
  size_t cached_name_bytes_ = 0;
};

}  // namespace mhcsim::traces
