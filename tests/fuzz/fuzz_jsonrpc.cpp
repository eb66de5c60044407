// libFuzzer target: a POST body through JsonRpc as McpHttpServer takes it (parse with the default
// limits, classify each message of a batch or the single message, shape the answer) and the
// answer back to JSON. What JsonRpc::serialize writes must parse again.

#include "protocol/jsonrpc.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

// The reply nests a message one or two levels deeper than the parse limit allowed it.
void checkParsesAgain(const JsonRpc::json& reply)
{
    const QByteArray text = JsonRpc::serialize(reply);
    if (!JsonRpc::parse(text, {JsonRpc::ParseLimits().maxDepth + 2}).ok) {
        std::fprintf(
            stderr, "fuzz_jsonrpc: serialize wrote JSON that does not parse: %s\n", text.left(300).constData());
        std::abort();
    }
}

void answer(const JsonRpc::Message& message)
{
    JsonRpc::json reply;
    switch (message.kind) {
    case JsonRpc::Kind::Request:
        reply
            = JsonRpc::makeResult(message.id, JsonRpc::json{{"method", message.method}, {"params", message.params()}});
        break;
    case JsonRpc::Kind::Notification:
        reply = JsonRpc::makeNotification(message.method, message.params());
        break;
    case JsonRpc::Kind::Response:
        reply = *message.raw;
        break;
    case JsonRpc::Kind::Invalid:
        reply = JsonRpc::makeError(message.id, JsonRpc::InvalidRequest, message.invalidReason);
        break;
    }
    checkParsesAgain(reply);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray body = QByteArray::fromRawData(reinterpret_cast<const char*>(data), qsizetype(size));
    const JsonRpc::ParseResult parsed = JsonRpc::parse(body);
    if (!parsed.ok) {
        if (parsed.error.empty()) {
            std::fprintf(stderr, "fuzz_jsonrpc: a parse error without a message\n");
            std::abort();
        }
        // The message quotes what nlohmann read, which may be any bytes.
        checkParsesAgain(JsonRpc::makeError(nullptr, JsonRpc::ParseError, "Parse error: " + parsed.error));
        return 0;
    }
    if (parsed.value.is_array()) {
        for (const auto& item : parsed.value)
            answer(JsonRpc::classify(item));
    } else {
        answer(JsonRpc::classify(parsed.value));
    }
    return 0;
}
