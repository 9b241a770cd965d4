// Patterns files: TOML or JSON with the same keys, read over the defaults.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/input_file.h"
#include "mhcsim/toml_nesting.h"
#include "mhcsim/traces/classify.h"

namespace mhcsim::traces {
namespace {

constexpr const char* kExpectedClasses = "mhc|dispatch|combine|pp_comm|other_comm|attention|mlp|other_compute";

constexpr const char* kExpectedKeys = "expected patterns, exclude, annotations, communication or ignore_categories";

// The two tables of class = regex: which array of ClassPatterns each fills.
using ClassRegexes = std::array<std::string, kOpClasses> ClassPatterns::*;
ClassRegexes class_table(const std::string& key) {
  if (key == "patterns") return &ClassPatterns::pattern;
  if (key == "exclude") return &ClassPatterns::exclude;
  if (key == "annotations") return &ClassPatterns::annotation;
  return nullptr;
}

// Checked here, where the line is known, so a bad regex names its file:line.
void set_pattern(ClassPatterns& p, ClassRegexes table, const std::string& table_key, const std::string& cls,
                 const std::string& re, const SourceLocation& at) {
  const std::string key = table_key + "." + cls;
  const auto c = parse_op_class(cls);
  if (!c) throw InputError(key, fmt::format("unknown op class (expected one of {})", kExpectedClasses), at);
  compile_pattern(re, key, at);
  (p.*table)[static_cast<size_t>(*c)] = re;
}

void from_json(ClassPatterns& p, const std::string& text, const std::string& file) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  const SourceLocation at{file, 0};
  if (doc.is_discarded() || !doc.is_object()) throw InputError("", "not a JSON object", at);
  for (const auto& [key, value] : doc.items()) {
    if (const ClassRegexes table = class_table(key)) {
      if (!value.is_object()) throw InputError(key, "expected an object of class: regex", at);
      for (const auto& [cls, re] : value.items()) {
        if (!re.is_string()) throw InputError(key + "." + cls, "expected a regex string", at);
        set_pattern(p, table, key, cls, re.get<std::string>(), at);
      }
    } else if (key == "communication") {
      if (!value.is_string()) throw InputError(key, "expected a regex string", at);
      compile_pattern(value.get<std::string>(), key, at);
      p.communication = value.get<std::string>();
    } else if (key == "ignore_categories") {
      if (!value.is_array()) throw InputError(key, "expected an array of strings", at);
      p.ignore_categories.clear();
      for (const auto& c : value) {
        if (!c.is_string()) throw InputError(key, "expected an array of strings", at);
        p.ignore_categories.push_back(c.get<std::string>());
      }
    } else {
      throw InputError(key, fmt::format("unknown key ({})", kExpectedKeys), at);
    }
  }
}

SourceLocation where(const toml::node& n, const std::string& file) {
  return {file, static_cast<int>(n.source().begin.line)};
}

void from_toml(ClassPatterns& p, const std::string& text, const std::string& file) {
  check_toml_nesting(text, file);
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError("", fmt::format("TOML syntax error: {}", e.description()),
                     {file, static_cast<int>(e.source().begin.line)});
  }
  for (const auto& [k, node] : root) {
    const std::string key(k.str());
    if (const ClassRegexes table = class_table(key)) {
      const auto* entries = node.as_table();
      if (!entries) throw InputError(key, "expected a table of class = \"regex\"", where(node, file));
      for (const auto& [cls, re] : *entries) {
        const auto v = re.value_exact<std::string>();
        if (!v) throw InputError(key + "." + std::string(cls.str()), "expected a regex string", where(re, file));
        set_pattern(p, table, key, std::string(cls.str()), *v, where(re, file));
      }
    } else if (key == "communication") {
      const auto v = node.value_exact<std::string>();
      if (!v) throw InputError(key, "expected a regex string", where(node, file));
      compile_pattern(*v, key, where(node, file));
      p.communication = *v;
    } else if (key == "ignore_categories") {
      const auto* arr = node.as_array();
      if (!arr) throw InputError(key, "expected an array of strings", where(node, file));
      p.ignore_categories.clear();
      for (const auto& c : *arr) {
        const auto v = c.value_exact<std::string>();
        if (!v) throw InputError(key, "expected an array of strings", where(c, file));
        p.ignore_categories.push_back(*v);
      }
    } else {
      throw InputError(key, fmt::format("unknown key ({})", kExpectedKeys), where(node, file));
    }
  }
}

}  // namespace

ClassPatterns load_patterns(const std::filesystem::path& path) {
  return parse_patterns(read_input_file(path, {.what = "patterns file", .max_bytes = kMaxHandWrittenInputBytes}), path);
}

ClassPatterns parse_patterns(const std::string& text, const std::filesystem::path& file_name) {
  ClassPatterns p = default_patterns();
  if (file_name.extension() == ".json")
    from_json(p, text, file_name.string());
  else
    from_toml(p, text, file_name.string());
  return p;
}

}  // namespace mhcsim::traces
