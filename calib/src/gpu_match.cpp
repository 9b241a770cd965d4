#include "mhcsim/calib/gpu_match.h"

#include <cctype>
#include <set>

#include "mhcsim/scenarios/catalog.h"

namespace mhcsim::calib {
namespace {

char upper(char ch) { return char(std::toupper(static_cast<unsigned char>(ch))); }

std::set<std::string> upper_words(const std::string& text) {
  std::set<std::string> words;
  std::string word;
  for (char ch : text + ' ') {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word += upper(ch);
    } else if (!word.empty()) {
      words.insert(word);
      word.clear();
    }
  }
  return words;
}

}  // namespace

std::string catalog_key_for(const std::string& gpu_name) {
  const auto words = upper_words(gpu_name);
  for (const auto& e : scenarios::hardware_catalog()) {
    std::string key;
    for (char ch : e.key) key += upper(ch);
    if (words.count(key)) return e.key;
  }
  return {};
}

}  // namespace mhcsim::calib
