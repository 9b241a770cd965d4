#include <stdexcept>

#include "bindings.h"

namespace mhcsim::python {

py::object to_python(const nlohmann::json& j) {
  using Type = nlohmann::json::value_t;
  switch (j.type()) {
    case Type::null:
      return py::none();
    case Type::boolean:
      return py::bool_(j.get<bool>());
    case Type::number_integer:
      return py::int_(j.get<int64_t>());
    case Type::number_unsigned:
      return py::int_(j.get<uint64_t>());
    case Type::number_float:
      return py::float_(j.get<double>());
    case Type::string:
      return py::str(j.get_ref<const std::string&>());
    case Type::array: {
      py::list list;
      for (const auto& item : j) list.append(to_python(item));
      return list;
    }
    case Type::object: {
      py::dict dict;
      for (const auto& [key, value] : j.items()) dict[py::str(key)] = to_python(value);
      return dict;
    }
    case Type::binary:
    case Type::discarded:
      break;
  }
  throw std::logic_error("to_python: a JSON value with no Python form");
}

}  // namespace mhcsim::python
