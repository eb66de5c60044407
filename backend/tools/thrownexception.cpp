#include "tools/thrownexception.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <typeinfo>

namespace {

// The type of the exception being handled, demangled ("int", "MyError"), as the C++ ABI of GCC and
// Clang keeps it; empty when unknown.
QString currentExceptionType()
{
    const std::type_info* type = abi::__cxa_current_exception_type();
    if (!type)
        return {};
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(type->name(), nullptr, nullptr, &status), &std::free);
    return QString::fromUtf8(status == 0 && demangled ? demangled.get() : type->name());
}

} // namespace

QString ThrownException::describe(std::exception_ptr thrown)
{
    if (!thrown)
        return QStringLiteral("no exception");
    try {
        std::rethrow_exception(thrown);
    } catch (const std::exception& e) {
        return QString::fromUtf8(e.what());
    } catch (...) {
        const QString type = currentExceptionType();
        return type.isEmpty() ? QStringLiteral("an exception that is not a std::exception")
                              : QStringLiteral("an exception of type %1 (not a std::exception)").arg(type);
    }
}
