#include "bounded_json_streambuf.h"

#include <fmt/format.h>

#include "mhcsim/input_file.h"

namespace mhcsim::traces {

BoundedJsonStreambuf::int_type BoundedJsonStreambuf::underflow() {
  if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
  if (!error_.empty()) return traits_type::eof();
  const auto got = source_.sgetn(block_.data(), static_cast<std::streamsize>(block_.size()));
  if (got <= 0) return traits_type::eof();
  const auto n = static_cast<size_t>(got);
  bytes_ += n;
  if (bytes_ > max_bytes_) {
    error_ = fmt::format("trace is larger than the {} limit of JSON (after decompression; raise it "
                         "with --max-trace-bytes)", format_byte_count(max_bytes_));
    return traits_type::eof();
  }
  if (!scan_tokens(block_.data(), n)) {
    error_ = fmt::format("more than {} in one string, number or run of whitespace and brackets (not a trace)",
                         format_byte_count(max_run_bytes_));
    return traits_type::eof();
  }
  setg(block_.data(), block_.data(), block_.data() + n);
  return traits_type::to_int_type(*gptr());
}

// nlohmann's lexer keeps every byte it reads (for its error messages) until the next string,
// number or literal starts, and a string or number whole: so whitespace and brackets count
// too, up to the start of the next token.
bool BoundedJsonStreambuf::scan_tokens(const char* data, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const char c = data[i];
    if (in_string_) {
      if (escaped_) escaped_ = false;
      else if (c == '\\') escaped_ = true;
      else if (c == '"') in_string_ = false;
    } else if (c == '"') {
      in_string_ = true;
      in_bare_token_ = false;
      run_bytes_ = 0;
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',' || c == ':' || c == '[' ||
               c == ']' || c == '{' || c == '}') {
      in_bare_token_ = false;
    } else if (!in_bare_token_) {  // a number or literal starts
      in_bare_token_ = true;
      run_bytes_ = 0;
    }
    if (++run_bytes_ > max_run_bytes_) return false;
  }
  return true;
}

}  // namespace mhcsim::traces
