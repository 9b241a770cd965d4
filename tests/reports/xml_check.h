#pragma once
// A small well-formedness check for the SVG the reports write: every tag closes in order,
// attribute values are quoted, '&' starts an entity. Returns "" when well-formed, else why.
#include <string>
#include <string_view>
#include <vector>

namespace mhcsim::test {

inline std::string xml_problem(std::string_view xml) {
  std::vector<std::string> open;
  size_t i = 0;
  if (xml.substr(0, 5) == "<?xml") i = xml.find("?>") + 2;
  while (i < xml.size()) {
    if (xml[i] == '&') {
      const size_t semi = xml.find(';', i);
      if (semi == std::string_view::npos || semi - i > 8) return "bare '&' at " + std::to_string(i);
      i = semi + 1;
      continue;
    }
    if (xml[i] != '<') {
      if (xml[i] == '>') return "stray '>' at " + std::to_string(i);
      ++i;
      continue;
    }
    const size_t end = xml.find('>', i);
    if (end == std::string_view::npos) return "unterminated tag at " + std::to_string(i);
    std::string_view tag = xml.substr(i + 1, end - i - 1);
    // Quotes must pair up inside the tag.
    size_t quotes = 0;
    for (char ch : tag) quotes += ch == '"';
    if (quotes % 2) return "unbalanced quotes in <" + std::string(tag) + ">";
    if (!tag.empty() && tag[0] == '/') {
      const std::string name(tag.substr(1));
      if (open.empty() || open.back() != name) return "</" + name + "> closes nothing open";
      open.pop_back();
    } else if (!tag.empty() && tag.back() != '/') {
      open.emplace_back(tag.substr(0, tag.find_first_of(" \n\t")));
    }
    i = end + 1;
  }
  return open.empty() ? "" : "<" + open.back() + "> never closed";
}

}  // namespace mhcsim::test
