// libFuzzer target: SchemaValidator with both the schema and the instance chosen by the input.
//
// The input is the schema, a line "----", and the instance (tool arguments), both JSON; each is
// parsed as JsonRpc parses a request body, as ToolRouter receives arguments. The validator must
// return (no crash, no exception, no endless recursion through $ref) and report at most the
// number of problems asked for, each naming where it is.

#include "protocol/jsonrpc.h"
#include "tools/schemavalidator.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view input(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view separator = "\n----\n";
    const auto split = input.find(separator);
    if (split == std::string_view::npos)
        return 0;
    const auto schemaText = input.substr(0, split);
    const auto instanceText = input.substr(split + separator.size());
    const auto schema = JsonRpc::parse(QByteArray::fromRawData(schemaText.data(), qsizetype(schemaText.size())));
    const auto instance = JsonRpc::parse(QByteArray::fromRawData(instanceText.data(), qsizetype(instanceText.size())));
    if (!schema.ok || !instance.ok)
        return 0;

    const int maxErrors = 1 + int(size % 8);
    const QStringList problems = SchemaValidator::validate(instance.value, schema.value, maxErrors);
    if (problems.size() > maxErrors) {
        std::fprintf(stderr, "fuzz_schemavalidator: %d problems reported, at most %d asked for\n", int(problems.size()),
            maxErrors);
        std::abort();
    }
    for (const QString& problem : problems) {
        if (problem.isEmpty()) {
            std::fprintf(stderr, "fuzz_schemavalidator: an empty problem\n");
            std::abort();
        }
    }
    return 0;
}
