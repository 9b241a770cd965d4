#pragma once
// Op classes of the model (the pieces DeepSeek-V3 overlaps, report 3.2, plus the mHC kernels)
// and the kernel-name patterns that map a trace's events onto them. Patterns are RE2 regexes
// (linear time in the name's length, whatever the pattern: no backtracking, so no
// backreferences or lookaround) matched case-insensitively anywhere in the name, tried in
// class order; the first class whose pattern matches and whose exclude pattern does not wins,
// and an unmatched kernel is "other_compute". Defaults cover Kineto traces of FlashAttention /
// FlashMLA, DeepGEMM / grouped GEMMs, DeepEP, NCCL and mhcsim's own trace; a patterns file
// (TOML or JSON) replaces any of them.
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
  Mhc,           // mHC coefficient / Sinkhorn / F_post,res kernels
  Dispatch,      // MoE all-to-all dispatch
  Combine,       // MoE all-to-all combine
  PpComm,        // pipeline send / recv
  OtherComm,     // other collectives (DP all-reduce, all-gather, memcpy)
  Attention,
  Mlp,           // dense FFN and MoE expert GEMMs
  OtherCompute,  // every kernel no pattern matched
};
inline constexpr size_t kOpClasses = 8;
std::string_view to_string(OpClass c);
std::optional<OpClass> parse_op_class(std::string_view s);
bool is_communication(OpClass c);

struct ClassPatterns {
  std::array<std::string, kOpClasses> pattern;  // per class; empty = never matches
  std::array<std::string, kOpClasses> exclude;  // per class; names matching it are not of the class
  std::vector<std::string> ignore_categories;   // events of these `cat`s are not kernels
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

// Compiles the patterns once and caches the class of each distinct kernel name (traces repeat
// a few hundred names millions of times); the cache is capped in names and bytes so memory
// stays bounded.
class Classifier {
 public:
  explicit Classifier(const ClassPatterns& patterns);  // throws InputError on a bad regex
  // nullopt: an ignored category (CPU op, annotation, ...), not a kernel.
  std::optional<OpClass> classify(const std::string& name, const std::string& cat);

 private:
  bool matches(size_t op_class, const std::string& name) const;

  std::array<Regex, kOpClasses> pattern_;
  std::array<Regex, kOpClasses> exclude_;
  std::vector<std::string> ignore_;
  std::unordered_map<std::string, OpClass> cache_;
  size_t cached_name_bytes_ = 0;
};

}  // namespace mhcsim::traces
