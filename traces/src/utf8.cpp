#include "utf8.h"

#include <cstdint>
#include <cstring>

#include <rapidjson/encodings.h>
#include <rapidjson/memorystream.h>

namespace mhcsim::traces {
namespace {
// RapidJSON's validator copies each byte it reads to an output stream; nothing needs them here.
struct Discard {
  using Ch = char;
  void Put(char) {}
};
}  // namespace

bool valid_utf8(std::string_view s) {
  // ASCII eight bytes at a time: kernel names nearly always are. The rest goes to RapidJSON's
  // UTF-8 validator (Hoehrmann's DFA: no overlong forms, no surrogates, nothing past U+10FFFF).
  size_t ascii = 0;
  for (uint64_t w = 0; ascii + 8 <= s.size(); ascii += 8) {
    std::memcpy(&w, s.data() + ascii, 8);
    if ((w & 0x8080808080808080ULL) != 0) break;
  }
  rapidjson::MemoryStream in(s.data() + ascii, s.size() - ascii);
  Discard out;
  while (in.Tell() < s.size() - ascii)
    if (!rapidjson::UTF8<>::Validate(in, out)) return false;  // a cut sequence reads '\0': invalid
  return true;
}

}  // namespace mhcsim::traces
