// mhcsim.Error (a ValueError) for mhcsim::InputError and SpecError: the message is the CLI's
// one line, `file:line: key: what is wrong (expected ...)`, and the parts are attributes.
#include <exception>

#include "bindings.h"
#include "mhcsim/error.h"
#include "mhcsim/interrupt.h"

namespace mhcsim::python {

namespace {
extern "C" void on_sigint(int) { request_interrupt(); }

// SIGINT to mhcsim's request while a call runs; Python's handler back afterwards. Only on the main
// thread (Python runs its signal handlers there) and only over Python's default handler: an
// ignored SIGINT (nohup) stays ignored, and a handler of the user's own runs as before, after.
bool install_sigint(struct sigaction& previous) {
  const auto threading = py::module_::import("threading");
  if (!threading.attr("current_thread")().is(threading.attr("main_thread")())) return false;
  const auto signal = py::module_::import("signal");
  if (!signal.attr("getsignal")(signal.attr("SIGINT")).is(signal.attr("default_int_handler"))) return false;
  struct sigaction action {};
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  return sigaction(SIGINT, &action, &previous) == 0;
}
}  // namespace

LongCall::LongCall() : installed_(install_sigint(previous_)) {}

LongCall::~LongCall() {
  if (!installed_) return;
  sigaction(SIGINT, &previous_, nullptr);
  if (!interrupt_requested()) return;
  clear_interrupt();
  // The Ctrl-C goes on to Python's own handler (PyErr_SetInterrupt needs no GIL), whatever ended
  // the call: the translator runs it at once for Interrupted, Python at its next bytecode else.
  PyErr_SetInterrupt();
}

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
    } catch (const Interrupted&) {
      // Python's handler raises KeyboardInterrupt for the SIGINT LongCall passed on.
      if (PyErr_CheckSignals() == 0) PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
  });
}

}  // namespace mhcsim::python
