#pragma once
// A read-only streambuf between a trace's bytes (plain or inflated) and the JSON parser that
// bounds what the parser can be made to hold: a 4 MB gzip can inflate to GiBs (issue 16, H5),
// and nlohmann::json's lexer keeps a whole string or number, and every byte of whitespace and
// brackets before the next token, in memory. Past either limit the stream ends and error()
// says why (the parser then fails on the cut; the caller reports error() instead).
#include <array>
#include <cstdint>
#include <streambuf>
#include <string>

namespace mhcsim::traces {

class BoundedJsonStreambuf : public std::streambuf {
 public:
  BoundedJsonStreambuf(std::streambuf& source, uint64_t max_bytes, uint64_t max_run_bytes)
      : source_(source), max_bytes_(max_bytes), max_run_bytes_(max_run_bytes) {}

  // Empty while within the limits; otherwise which limit was passed.
  const std::string& error() const { return error_; }

 protected:
  int_type underflow() override;

 private:
  static constexpr size_t kBlockBytes = 1 << 16;
  // Follows strings (with escapes) and bare tokens (numbers, literals) through the block;
  // false when the lexer would hold more than max_run_bytes.
  bool scan_tokens(const char* data, size_t n);

  std::streambuf& source_;
  uint64_t max_bytes_;
  uint64_t max_run_bytes_;
  uint64_t bytes_ = 0;
  uint64_t run_bytes_ = 0;      // since the current string, number or literal started
  bool in_string_ = false;
  bool escaped_ = false;        // the previous byte in a string was a backslash
  bool in_bare_token_ = false;  // inside a number or literal
  std::string error_;
  std::array<char, kBlockBytes> block_{};
};

}  // namespace mhcsim::traces
