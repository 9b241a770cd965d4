#pragma once
// The JSON underneath the trace reader: a pull lexer over a streambuf, written for Chrome
// traces (issue 15, item 5: nlohmann's SAX parser read ~40 MB/s, 150k Kineto events/s). It
// reads 1 MiB blocks, copies only the strings the reader asks for (names, categories, ids),
// skips everything else without building it, and bounds what it can be made to do: bytes after
// decompression, and 16 MiB per string, number or run of whitespace and brackets (counted from
// the start of the last string, number or literal, as nlohmann's lexer would hold them).
// Errors throw InputError with no file (the reader adds it) and never quote the input.
#include <cstdint>
#include <streambuf>
#include <string>
#include <vector>

namespace mhcsim::traces::detail {

class JsonLexer {
 public:
  JsonLexer(std::streambuf& source, uint64_t max_bytes, uint64_t max_run_bytes);

  // Skips whitespace; the next byte, or 0 at the end of the input.
  char peek() {
    while (p_ < end_ && is_space(*p_)) ++p_;
    if (p_ == end_) return peek_slow();
    check_run();
    return *p_;
  }
  // Consumes the next non-whitespace byte, which must be `c`; else a syntax error naming what.
  void expect(char c, const char* what) {
    if (peek() != c) expect_failed(what);
    ++p_;
  }
  // After a value inside a container: true on ',' (another follows), false on `close`.
  bool next_in(char close) {
    const char c = peek();
    ++p_;
    if (c == ',') return true;
    if (c == close) return false;
    --p_;
    next_in_failed(close);
  }
  // A string value (the next non-whitespace byte must be '"'), unescaped into `out`.
  void read_string(std::string& out);
  // A number's literal text into `out` (the next byte must start a number).
  void read_number_text(std::string& out);
  // Skips one value of any type, nested to any depth.
  void skip_value();
  // "a string", "a number", "an object", ... for the value that starts at peek().
  const char* type_name();

  [[noreturn]] void syntax_error(const std::string& what) const;
  uint64_t offset() const { return consumed_ + static_cast<uint64_t>(p_ - buf_.data()); }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
  bool refill();  // false at the end of the input
  char peek_slow();
  [[noreturn]] void expect_failed(const char* what) const;
  [[noreturn]] void next_in_failed(char close) const;
  [[noreturn]] void run_error() const;
  void start_token() { run_start_ = offset(); }
  void check_run() const {
    if (offset() - run_start_ > max_run_bytes_) run_error();
  }
  void skip_string();
  void skip_bare();  // a number or literal
  void read_escape(std::string& out);

  std::streambuf& source_;
  uint64_t max_bytes_;
  uint64_t max_run_bytes_;
  std::vector<char> buf_;
  const char* p_ = nullptr;
  const char* end_ = nullptr;
  uint64_t consumed_ = 0;  // bytes before buf_
  uint64_t read_ = 0;      // bytes read from the source
  uint64_t run_start_ = 0;
  std::vector<bool> stack_;  // skip_value's containers: true = object
};

}  // namespace mhcsim::traces::detail
