// Patterns files: TOML or JSON with the same two keys, read over the defaults.
#include <fmt/format.h>
#include <toml++/toml.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mhcsim/error.h"
#include "mhcsim/traces/classify.h"

namespace mhcsim::traces {
namespace {

constexpr const char* kExpectedClasses =
    "mhc|dispatch|combine|pp_comm|other_comm|attention|mlp|other_compute";

void set_pattern(ClassPatterns& p, const std::string& cls, const std::string& re, const SourceLocation& at) {
  const auto c = parse_op_class(cls);
  if (!c) throw InputError("patterns." + cls, fmt::format("unknown op class (expected one of {})", kExpectedClasses), at);
  p.pattern[static_cast<size_t>(*c)] = re;
}

void from_json(ClassPatterns& p, const std::string& text, const std::string& file) {
  const auto doc = nlohmann::json::parse(text, nullptr, false);
  const SourceLocation at{file, 0};
  if (doc.is_discarded() || !doc.is_object()) throw InputError("", "not a JSON object", at);
  for (const auto& [key, value] : doc.items()) {
    if (key == "patterns") {
      if (!value.is_object()) throw InputError(key, "expected an object of class: regex", at);
      for (const auto& [cls, re] : value.items()) {
        if (!re.is_string()) throw InputError("patterns." + cls, "expected a regex string", at);
        set_pattern(p, cls, re.get<std::string>(), at);
      }
    } else if (key == "ignore_categories") {
      if (!value.is_array()) throw InputError(key, "expected an array of strings", at);
      p.ignore_categories.clear();
      for (const auto& c : value) {
        if (!c.is_string()) throw InputError(key, "expected an array of strings", at);
        p.ignore_categories.push_back(c.get<std::string>());
      }
    } else {
      throw InputError(key, "unknown key (expected patterns or ignore_categories)", at);
    }
  }
}

SourceLocation where(const toml::node& n, const std::string& file) {
  return {file, static_cast<int>(n.source().begin.line)};
}

void from_toml(ClassPatterns& p, const std::string& text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError("", fmt::format("TOML syntax error: {}", e.description()),
                     {file, static_cast<int>(e.source().begin.line)});
  }
  for (const auto& [k, node] : root) {
    const std::string key(k.str());
    if (key == "patterns") {
      const auto* table = node.as_table();
      if (!table) throw InputError(key, "expected a table of class = \"regex\"", where(node, file));
      for (const auto& [cls, re] : *table) {
        const auto v = re.value_exact<std::string>();
        if (!v) throw InputError("patterns." + std::string(cls.str()), "expected a regex string", where(re, file));
        set_pattern(p, std::string(cls.str()), *v, where(re, file));
      }
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
      throw InputError(key, "unknown key (expected patterns or ignore_categories)", where(node, file));
    }
  }
}

}  // namespace

ClassPatterns load_patterns(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec))
    throw InputError("", "cannot open patterns file (no such file or not readable)", {path.string(), 0});
  std::ostringstream text;
  text << in.rdbuf();
  ClassPatterns p = default_patterns();
  if (path.extension() == ".json") from_json(p, text.str(), path.string());
  else from_toml(p, text.str(), path.string());
  try {
    Classifier{p};  // reject a bad regex now, naming the file
  } catch (const InputError& e) {
    throw InputError(e.key(), e.reason(), {path.string(), 0});
  }
  return p;
}

}  // namespace mhcsim::traces
