#pragma once
// A request to stop long work early: Ctrl-C in the Python module, whose own SIGINT handler runs
// only between bytecodes, never while a sweep, a search or a serving search holds the thread.
// Set from a signal handler (async-signal-safe), polled by those loops between their blocks,
// chunks and events; the CLI keeps SIGINT's default (the process ends).
#include <stdexcept>

namespace mhcsim {

struct Interrupted : std::runtime_error {
  Interrupted() : std::runtime_error("interrupted") {}
};

void request_interrupt() noexcept;  // async-signal-safe
void clear_interrupt() noexcept;
bool interrupt_requested() noexcept;
// Throws Interrupted while a request is pending (left pending, so that every thread stops).
void throw_if_interrupted();

}  // namespace mhcsim
