#pragma once

// ThrownException: what a tool's code threw, in words, whatever it threw. Tool code (a handler, a
// serialization key, a details source, a cancellation handler) runs on the backend thread and on
// the executor's workers; an exception it lets out is caught with catch (...) where it is called,
// never left to reach an event loop (which aborts the process), and becomes a tool error that says
// this.

#include <QString>

#include <exception>

namespace ThrownException {

// A std::exception's message; for anything else (`throw 42;`), the type that was thrown and that it
// is not a std::exception.
QString describe(std::exception_ptr thrown);

} // namespace ThrownException
