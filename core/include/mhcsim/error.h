#pragma once
// One exception type for bad input. It carries the file, line and key so the CLI can print
// `file:line: key: what is wrong (expected ...)` and exit with code 2 (DeepEP's EPException
// and FlashMLA's CHECK_CUDA carry their location the same way).
#include <stdexcept>
#include <string>
#include <string_view>

namespace mhcsim {

struct SourceLocation {
  std::string file;  // empty when the value did not come from a file (e.g. --set)
  int line = 0;      // 1-based; 0 when unknown
};

inline constexpr int kExitInputError = 2;

class InputError : public std::runtime_error {
 public:
  InputError(std::string key, std::string reason, SourceLocation where = {});
  const std::string& key() const { return key_; }
  const std::string& reason() const { return reason_; }
  const SourceLocation& where() const { return where_; }

 private:
  std::string key_;
  std::string reason_;
  SourceLocation where_;
};

// Raised by pure functions when a spec is impossible (zero sizes, PP > layers, ...). Same
// formatting as InputError; the key names the offending spec field.
class SpecError : public InputError {
 public:
  using InputError::InputError;
};

// A configuration that is valid but does not fit its GPUs (out of memory, a batch whose KV
// cache is too large). Verbs print their result all the same, then throw it; the CLI prints
// `does not fit: <reason>` as one line on stderr and exits with kExitInfeasible.
inline constexpr int kExitInfeasible = 3;
class InfeasibleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// nlohmann::json's parse_error text made fit for a one-line error about an input file: without
// the exception id, and without the "last read: '...'" excerpt, which would echo the start of
// whatever file a path pointed at (a scenario's calibration.profile may name any readable file,
// /etc/shadow included). "parse error at line 1, column 1: syntax error while parsing value -
// invalid literal" keeps the position and the reason.
std::string json_syntax_error(std::string_view what);

// Throws SpecError(key, reason) unless `ok`.
void require(bool ok, const char* key, const std::string& reason);

}  // namespace mhcsim
