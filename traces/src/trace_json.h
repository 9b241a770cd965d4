#pragma once
// The JSON underneath the trace reader: a pull lexer over a streambuf, written for Chrome
// traces (issue 15, item 5: nlohmann's SAX parser read ~40 MB/s, 150k Kineto events/s). It
// reads 1 MiB blocks, copies only the strings the reader asks for (names, categories, ids),
// skips everything else without building it, and bounds what it can be made to do: bytes after
// decompression, and 16 MiB per string, number or run of whitespace and brackets (counted from
// the start of the last string, number or literal, as nlohmann's lexer would hold them).
// Errors throw InputError with no file (the reader adds it) and never quote the input.
#include <array>
#include <cstdint>
#include <streambuf>
#include <string>
#include <string_view>
#include <vector>

namespace mhcsim::traces::detail {

class JsonLexer {
 public:
  // Bytes that continue a number or literal; bytes a string's fast scan stops at.
  static const std::array<bool, 256> kBare, kStringStop;

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
  // A key (a string), as a view valid until the next call: into the input block when the key
  // lies in it unescaped, else into a copy.
  std::string_view read_key() {
    if (peek() == '"') {
      const char* s = p_ + 1;
      const char* q = s;
      while (q < end_ && !kStringStop[static_cast<unsigned char>(*q)]) ++q;
      if (q < end_ && *q == '"') {
        start_token();
        p_ = q + 1;
        return {s, static_cast<size_t>(q - s)};
      }
    }
    read_string(key_copy_);
    return key_copy_;
  }
  // A number's literal text, as a view valid until the next call (the next byte must start a
  // number).
  std::string_view read_number_text() {
    peek();
    const char* q = p_;
    while (q < end_ && kBare[static_cast<unsigned char>(*q)]) ++q;
    if (q < end_ && q > p_) {
      start_token();
      const std::string_view v(p_, static_cast<size_t>(q - p_));
      p_ = q;
      return v;
    }
    read_number_text(number_copy_);
    return number_copy_;
  }
  // Skips one value of any type, nested to any depth.
  void skip_value();
  // "a string", "a number", "an object", ... for the value that starts at peek().
  const char* type_name();

  [[noreturn]] void syntax_error(const std::string& what) const;
  uint64_t offset() const { return consumed_ + static_cast<uint64_t>(p_ - buf_.data()); }

 private:
  void read_number_text(std::string& out);
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
  std::string key_copy_, number_copy_;
};

}  // namespace mhcsim::traces::detail
