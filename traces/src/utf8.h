#pragma once
// UTF-8 validation of the strings a trace reader keeps (RapidJSON, without its slower
// kParseValidateEncodingFlag, copies strings as bytes; names reach JSON output, which must be
// valid UTF-8).
#include <string_view>

namespace mhcsim::traces {

// Well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF).
bool valid_utf8(std::string_view s);

}  // namespace mhcsim::traces
