#include "mhcsim/api/argument_names.h"

namespace mhcsim::api {

void rethrow_named(const InputError& e, ArgumentNames names, std::span<const ArgumentName> arguments) {
  if (names == ArgumentNames::Keywords)
    for (const auto& a : arguments)
      if (e.key() == a.flag) throw InputError(a.in(names), e.reason(), e.where());
  throw;
}

}  // namespace mhcsim::api
