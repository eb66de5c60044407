#pragma once

// BoundedJson: the one parser for JSON that enters the process: a client's request, an upstream's
// message, a command tool's stdout, the runner's stdin and its own answers, files (the state, an
// exported NDJSON, a secret), history read back, text a person typed. It refuses nesting deeper
// than a limit, more values than a limit and more bytes than a limit while parsing, before the
// document grows past them: a hostile document is never built.
//
// Why depth matters: nlohmann's parser keeps its nesting on the heap, but copying, serialising and
// comparing a value recurse once per level (about 150 bytes of stack a level, 3 KB under
// AddressSanitizer), and so do the project's own walks (redaction, schema validation, the
// inspector's tree). No document is ever deeper than MaxDepth, whatever a caller asks for, so
// that all of them together stay far inside a thread's stack (8 MiB by default; 2 MiB is plenty).
// Why values matter: each costs tens of bytes as a DOM, so 8 MB of "{}" would become 500 MB.

#include <QByteArrayView>

#include <nlohmann/json.hpp>

#include <string>

namespace BoundedJson {

// The deepest any parsed document may be: deeper limits are lowered to this.
inline constexpr int MaxDepth = 128;

struct Limits
{
    int maxDepth = 64; // objects and arrays nested deeper than this are refused (at most MaxDepth)
    int maxValues = 100'000; // every object, array, string, number and literal counts one; keys do not
    qint64 maxBytes = qint64(1) << 30; // longer text is refused before it is read

    // A message from outside: a client's request, an upstream's message or event, a command tool's
    // stdout, the runner's envelope, an OAuth server's reply, a stored secret, text a person typed.
    static constexpr Limits message() { return {64, 100'000, qint64(1) << 30}; }
    // A record Switchboard wrote and reads back: a history row's request, response, details and
    // timeline, an exported call, a stored answer or grant, the answer the runner's backend gave.
    // Deeper than a message by what wrapping adds (a tool's output in a response in a record) and
    // with more values (a record holds a request and its response).
    static constexpr Limits record() { return {MaxDepth, 1'000'000, qint64(1) << 30}; }
    // The workspace state file as a whole: every pending question, stored answer and grant.
    static constexpr Limits stateFile() { return {MaxDepth, 4'000'000, qint64(1) << 30}; }
};

// Why a text was refused.
enum class Problem {
    None,
    Malformed, // not one JSON value: syntax, invalid UTF-8, trailing text
    TooDeep,
    TooManyValues,
    TooLarge,
};

template<typename Json>
struct Result
{
    bool ok = false;
    Json value; // null unless ok: nothing half-built is handed on
    Problem problem = Problem::None;
    std::string error; // what was wrong, readable ("JSON is nested deeper than 64 levels")
    std::size_t position = 0; // Malformed: the number of bytes read when the error was found
};

Result<nlohmann::json> parse(QByteArrayView text, const Limits& limits);
// The same, keeping the order of keys (what a person reads: arguments, schemas, the inspector).
Result<nlohmann::ordered_json> parseOrdered(QByteArrayView text, const Limits& limits);

// Checks `text` as parse() would, building nothing: why parse() would refuse it, or an empty
// string when it would not.
std::string refusal(QByteArrayView text, const Limits& limits);

// For a value built in code from pieces (not parsed here): the first limit it exceeds, measured
// without recursion, or an empty string when it is within them. Bytes are not measured.
std::string exceeded(const nlohmann::json& value, const Limits& limits);
std::string exceeded(const nlohmann::ordered_json& value, const Limits& limits);

} // namespace BoundedJson
