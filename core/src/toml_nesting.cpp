#include "mhcsim/toml_nesting.h"

#include <fmt/format.h>

#include <vector>

#include "mhcsim/error.h"

namespace mhcsim {
namespace {

// One pass over the text, tracking the depth of the key part or value being read. A statement
// starts at the depth of its table header; each '.' of a key, and each '[' or '{' of a value,
// goes one deeper; a ',' inside an array or inline table returns to its first element's depth.
class NestingScanner {
 public:
  NestingScanner(std::string_view text, const std::string& file, int max_levels)
      : text_(text), file_(file), max_levels_(max_levels) {}

  void run() {
    start_statement();
    while (pos_ < text_.size()) step();
  }

 private:
  struct Open {
    int level;   // depth of the array / inline table itself
    bool table;  // '{' (keys follow its ',') or '[' (values follow)
  };

  void step() {
    const char c = text_[pos_++];
    const bool at_line_start = blank_;
    if (c != ' ' && c != '\t' && c != '\r') blank_ = false;
    switch (c) {
      case '\n':
        newline();
        break;
      case '#':
        skip_to_line_end();
        break;
      case '"':
      case '\'':
        skip_string(c);
        break;
      case '.':
        if (key_) deeper();
        break;
      case '=':
        key_ = false;
        break;
      case '[':
        at_line_start&& open_.empty() ? start_header() : open_nested(false);
        break;
      case '{':
        open_nested(true);
        break;
      case ']':
      case '}':
        close_nested(c);
        break;
      case ',':
        next_element();
        break;
      default:
        break;
    }
  }

  void start_statement() {
    key_ = true;
    blank_ = true;
    level_ = header_level_ + 1;
    statement_start_ = pos_;
  }
  void newline() {
    ++line_;
    header_ = false;                       // an unclosed header is the parser's error to report
    if (open_.empty()) start_statement();  // a multi-line array goes on
  }
  void skip_to_line_end() {
    while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
  }

  void deeper() {
    if (++level_ > max_levels_) fail();
  }
  void start_header() {
    if (pos_ < text_.size() && text_[pos_] == '[') ++pos_;  // [[array of tables]]
    header_ = true;
    statement_start_ = pos_;
    level_ = 1;
  }
  void open_nested(bool table) {
    open_.push_back({level_, table});
    key_ = table;
    deeper();
  }
  void close_nested(char c) {
    if (header_ && c == ']') {
      header_ = false;
      header_level_ = level_;
      key_ = false;
    } else if (!open_.empty()) {
      level_ = open_.back().level;
      open_.pop_back();
      key_ = false;
    }
  }
  void next_element() {
    if (open_.empty()) return;
    key_ = open_.back().table;
    level_ = open_.back().level + 1;
  }

  // Strings may hold '.', '[', '#' and (multi-line) newlines; none of them nest.
  void skip_string(char quote) {
    const bool basic = quote == '"';  // basic strings have escapes, literal ones do not
    if (pos_ + 1 < text_.size() && text_[pos_] == quote && text_[pos_ + 1] == quote) {
      pos_ += 2;
      skip_multiline_string(quote, basic);
      return;
    }
    while (pos_ < text_.size() && text_[pos_] != '\n') {
      const char c = text_[pos_++];
      if (c == quote) return;
      if (basic && c == '\\' && pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
    }
  }
  void skip_multiline_string(char quote, bool basic) {
    const std::string closing(3, quote);
    while (pos_ < text_.size()) {
      if (text_.compare(pos_, 3, closing) == 0) {
        pos_ += 3;
        for (int extra = 0; extra < 2 && pos_ < text_.size() && text_[pos_] == quote; ++extra) ++pos_;
        return;
      }
      const char c = text_[pos_++];
      if (c == '\n')
        ++line_;
      else if (basic && c == '\\' && pos_ < text_.size() && text_[pos_] != '\n')
        ++pos_;
    }
  }

  // The start of the statement's key, enough to find it in the file.
  std::string key_excerpt() const {
    constexpr size_t kMaxChars = 32;
    std::string key;
    for (size_t i = statement_start_; i < text_.size() && key.size() <= kMaxChars; ++i) {
      const char c = text_[i];
      if (c == '=' || c == '\n' || c == ']' || c == '[' || c == '{') break;
      if (c != ' ' && c != '\t' && c != '\r') key += c;
    }
    if (key.size() > kMaxChars) key = key.substr(0, kMaxChars) + "...";
    return key;
  }
  [[noreturn]] void fail() const {
    throw InputError(key_excerpt(),
                     fmt::format("nesting deeper than {} levels (expected at most {} table-header and "
                                 "dotted-key parts, arrays and inline tables around a value)",
                                 max_levels_, max_levels_),
                     {file_, line_});
  }

  std::string_view text_;
  const std::string& file_;
  int max_levels_;
  size_t pos_ = 0;
  int line_ = 1;
  int level_ = 1;         // depth of the key part or value being read
  int header_level_ = 0;  // parts of the current [table] header
  bool key_ = true;       // before the statement's '=' (or after an inline table's '{' / ',')
  bool header_ = false;   // inside [table] or [[array of tables]]
  bool blank_ = true;     // only whitespace so far on this line
  size_t statement_start_ = 0;
  std::vector<Open> open_;  // arrays and inline tables around the value; at most max_levels
};

}  // namespace

void check_toml_nesting(std::string_view text, const std::string& file, int max_levels) {
  NestingScanner(text, file, max_levels).run();
}

}  // namespace mhcsim
