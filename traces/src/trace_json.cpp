#include "trace_json.h"

#include <fmt/format.h>

#include <array>
#include <cstring>

#include "mhcsim/error.h"
#include "mhcsim/input_file.h"

namespace mhcsim::traces::detail {
namespace {

constexpr size_t kBlockBytes = size_t{1} << 20;

}  // namespace

// Bytes that continue a number or literal; bytes a string's fast scan stops at.
constinit const std::array<bool, 256> JsonLexer::kBare = [] {
  std::array<bool, 256> t{};
  for (int c = '0'; c <= '9'; ++c) t[static_cast<size_t>(c)] = true;
  for (int c = 'a'; c <= 'z'; ++c) t[static_cast<size_t>(c)] = true;
  for (const char c : {'-', '+', '.', 'E'}) t[static_cast<unsigned char>(c)] = true;
  return t;
}();
constinit const std::array<bool, 256> JsonLexer::kStringStop = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[static_cast<size_t>(c)] = true;
  t['"'] = t['\\'] = true;
  return t;
}();

namespace {

bool is_bare(char c) { return JsonLexer::kBare[static_cast<unsigned char>(c)]; }
bool string_stop(char c) { return JsonLexer::kStringStop[static_cast<unsigned char>(c)]; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xc0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xe0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  } else {
    out += static_cast<char>(0xf0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3f));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
    out += static_cast<char>(0x80 | (cp & 0x3f));
  }
}

}  // namespace

JsonLexer::JsonLexer(std::streambuf& source, uint64_t max_bytes, uint64_t max_run_bytes)
    : source_(source), max_bytes_(max_bytes), max_run_bytes_(max_run_bytes), buf_(kBlockBytes) {
  p_ = end_ = buf_.data();
}

bool JsonLexer::refill() {
  consumed_ += static_cast<uint64_t>(end_ - buf_.data());
  p_ = end_ = buf_.data();
  const auto got = source_.sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()));
  if (got <= 0) return false;
  read_ += static_cast<uint64_t>(got);
  if (read_ > max_bytes_)
    throw InputError("", fmt::format("trace is larger than the {} limit of JSON (after decompression; raise it "
                                     "with --max-trace-bytes)", format_byte_count(max_bytes_)));
  end_ = buf_.data() + got;
  return true;
}

void JsonLexer::run_error() const {
  throw InputError("", fmt::format("more than {} in one string, number or run of whitespace and brackets "
                                   "(not a trace)", format_byte_count(max_run_bytes_)));
}

void JsonLexer::syntax_error(const std::string& what) const {
  throw InputError("", fmt::format("not valid JSON: {} at byte {}", what, offset()));
}

char JsonLexer::peek_slow() {
  for (;;) {
    while (p_ < end_ && is_space(*p_)) ++p_;
    if (p_ < end_) break;
    check_run();
    if (!refill()) return 0;
  }
  check_run();
  return *p_;
}

void JsonLexer::expect_failed(const char* what) const { syntax_error(fmt::format("expected {}", what)); }

void JsonLexer::next_in_failed(char close) const {
  syntax_error(close == '}' ? "expected ',' or '}' after a member" : "expected ',' or ']' after an element");
}

const char* JsonLexer::type_name() {
  switch (peek()) {
    case '"': return "a string";
    case '{': return "an object";
    case '[': return "an array";
    case 't':
    case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
  }
}

void JsonLexer::read_escape(std::string& out) {
  auto next = [&]() -> char {
    if (p_ == end_ && !refill()) syntax_error("unexpected end of input in a string");
    return *p_++;
  };
  auto hex4 = [&]() {
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char h = next();
      v <<= 4;
      if (h >= '0' && h <= '9') v |= static_cast<uint32_t>(h - '0');
      else if (h >= 'a' && h <= 'f') v |= static_cast<uint32_t>(h - 'a' + 10);
      else if (h >= 'A' && h <= 'F') v |= static_cast<uint32_t>(h - 'A' + 10);
      else syntax_error("invalid \\u escape in a string");
    }
    return v;
  };
  switch (next()) {
    case '"': out += '"'; break;
    case '\\': out += '\\'; break;
    case '/': out += '/'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'n': out += '\n'; break;
    case 'r': out += '\r'; break;
    case 't': out += '\t'; break;
    case 'u': {
      uint32_t cp = hex4();
      if (cp >= 0xd800 && cp <= 0xdbff) {  // a surrogate pair
        if (next() != '\\' || next() != 'u') syntax_error("unpaired surrogate in a string");
        const uint32_t lo = hex4();
        if (lo < 0xdc00 || lo > 0xdfff) syntax_error("unpaired surrogate in a string");
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
      } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        syntax_error("unpaired surrogate in a string");
      }
      append_utf8(out, cp);
      break;
    }
    default: syntax_error("invalid escape in a string");
  }
}

void JsonLexer::read_string(std::string& out) {
  expect('"', "a string");
  start_token();
  out.clear();
  for (;;) {
    const char* s = p_;
    while (p_ < end_ && !string_stop(*p_)) ++p_;
    out.append(s, p_);
    if (p_ == end_) {
      check_run();
      if (!refill()) syntax_error("unexpected end of input in a string");
      continue;
    }
    const char c = *p_++;
    if (c == '"') break;
    if (c == '\\') read_escape(out);
    else syntax_error("control character in a string");
  }
  check_run();
}

void JsonLexer::skip_string() {
  expect('"', "a string");
  start_token();
  for (;;) {
    while (p_ < end_ && !string_stop(*p_)) ++p_;
    if (p_ == end_) {
      check_run();
      if (!refill()) syntax_error("unexpected end of input in a string");
      continue;
    }
    const char c = *p_++;
    if (c == '"') return check_run();
    if (c != '\\') syntax_error("control character in a string");
    if (p_ == end_ && !refill()) syntax_error("unexpected end of input in a string");
    ++p_;  // the escaped byte (a \u's hex digits are plain bytes)
  }
}

void JsonLexer::read_number_text(std::string& out) {
  peek();
  start_token();
  out.clear();
  for (;;) {
    const char* s = p_;
    while (p_ < end_ && is_bare(*p_)) ++p_;
    out.append(s, p_);
    if (p_ < end_) break;
    check_run();
    if (!refill()) break;
  }
  check_run();
  if (out.empty()) syntax_error("expected a value");
}

void JsonLexer::skip_bare() {
  const char first = peek();
  start_token();
  const char* lit = first == 't' ? "true" : first == 'f' ? "false" : first == 'n' ? "null" : nullptr;
  size_t n = 0;
  bool ok = true;
  for (;;) {
    while (p_ < end_ && is_bare(*p_)) {
      if (lit) ok = ok && lit[n] != 0 && lit[n] == *p_;
      ++p_;
      ++n;
    }
    if (p_ < end_) break;
    check_run();
    if (!refill()) break;
  }
  check_run();
  if (n == 0 || (lit && (!ok || lit[n] != 0)) || (!lit && !(first == '-' || (first >= '0' && first <= '9'))))
    syntax_error("invalid literal");
}

void JsonLexer::skip_value() {
  stack_.clear();
  for (;;) {
    // A value starts.
    const char c = peek();
    if (c == '{' || c == '[') {
      ++p_;
      const bool object = c == '{';
      if (peek() == (object ? '}' : ']')) {
        ++p_;
      } else {
        stack_.push_back(object);
        if (object) {
          skip_string();
          expect(':', "':' after a key");
        }
        continue;
      }
    } else if (c == '"') {
      skip_string();
    } else if (c == 0) {
      syntax_error("unexpected end of input");
    } else {
      skip_bare();
    }
    // After a value: close containers until one continues.
    for (;;) {
      if (stack_.empty()) return;
      const bool object = stack_.back();
      if (next_in(object ? '}' : ']')) {
        if (object) {
          skip_string();
          expect(':', "':' after a key");
        }
        break;
      }
      stack_.pop_back();
    }
  }
}

}  // namespace mhcsim::traces::detail
