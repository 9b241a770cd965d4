#pragma once
// How errors name a verb's arguments: as the CLI's flags (--target-rate) or as the Python
// module's keywords (target_rate). The API functions take the convention with the request, so
// a message names the argument the way its caller wrote it.
#include <span>
#include <string>
#include <string_view>

#include "mhcsim/error.h"

namespace mhcsim::api {

enum class ArgumentNames { Flags, Keywords };

// One argument's names: the CLI's flag and the Python keyword.
struct ArgumentName {
  std::string_view flag, keyword;
  std::string in(ArgumentNames names) const { return std::string(names == ArgumentNames::Flags ? flag : keyword); }
};

// Inside a catch of `e`: the model libraries name the CLI's flags in their errors (--rate,
// --requests-file); with Keywords an error keyed by one of `arguments`' flags is thrown again
// under its keyword, anything else is rethrown as it is.
[[noreturn]] void rethrow_named(const InputError& e, ArgumentNames names, std::span<const ArgumentName> arguments);

// f(), its InputErrors renamed as rethrow_named does.
template <class F>
auto with_named_errors(ArgumentNames names, std::span<const ArgumentName> arguments, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const InputError& e) {
    rethrow_named(e, names, arguments);
  }
}

}  // namespace mhcsim::api
