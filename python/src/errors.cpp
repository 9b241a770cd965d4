// mhcsim.Error (a ValueError) for mhcsim::InputError and SpecError: the message is the CLI's
// one line, `file:line: key: what is wrong (expected ...)`, and the parts are attributes.
#include "bindings.h"
#include "mhcsim/error.h"

namespace mhcsim::python {

void register_errors(py::module_& m) {
  static py::exception<InputError> error(m, "Error", PyExc_ValueError);
  error.doc() =
      "Bad input (a scenario key, an override, an argument): str(e) is "
      "'file:line: key: what is wrong (expected ...)'; e.key, e.file, e.line, e.reason hold the parts.";
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      py::object value = py::handle(error.ptr())(e.what());
      value.attr("key") = e.key();
      value.attr("reason") = e.reason();
      value.attr("file") = e.where().file;
      value.attr("line") = e.where().line;
      PyErr_SetObject(error.ptr(), value.ptr());
    }
  });
}

}  // namespace mhcsim::python
