#include "git/gittoolresult.h"

#include "policy/giturlpolicy.h"

using nlohmann::json;

namespace {

bool mayHoldCredentials(const std::string& text)
{
    return text.find('@') != std::string::npos && text.find(':') != std::string::npos;
}

std::string redacted(const std::string& text)
{
    return GitUrlPolicy::redact(QString::fromStdString(text)).toStdString();
}

} // namespace

void GitToolResult::redact(json& value)
{
    if (value.is_string()) {
        auto& text = value.get_ref<std::string&>();
        if (mayHoldCredentials(text))
            text = redacted(text);
    } else if (value.is_array()) {
        for (json& item : value)
            redact(item);
    } else if (value.is_object()) {
        json rebuilt = json::object();
        bool keysChanged = false;
        for (auto it = value.begin(); it != value.end(); ++it) {
            redact(it.value());
            if (mayHoldCredentials(it.key()))
                keysChanged = true;
        }
        if (keysChanged) {
            for (auto it = value.begin(); it != value.end(); ++it)
                rebuilt[mayHoldCredentials(it.key()) ? redacted(it.key()) : it.key()] = std::move(it.value());
            value = std::move(rebuilt);
        }
    }
}

ToolResult GitToolResult::success(const QString& message, json fields)
{
    return make(true, message, std::move(fields));
}

ToolResult GitToolResult::failure(const QString& message, json fields)
{
    return make(false, message, std::move(fields));
}

ToolResult GitToolResult::make(bool ok, const QString& message, json fields)
{
    json structured = json::object();
    structured["status"] = ok ? "success" : "failure";
    structured["message"] = message.toStdString();
    if (fields.is_object()) {
        for (auto it = fields.begin(); it != fields.end(); ++it)
            structured[it.key()] = std::move(it.value());
    }
    redact(structured);
    ToolResult result;
    result.isError = !ok;
    // The message first (what the call log's one-line summary and a reader of text see), then the
    // same JSON as structuredContent, for clients that read only text.
    result.content.push_back(json{{"type", "text"}, {"text", structured["message"]}});
    result.content.push_back(
        json{{"type", "text"}, {"text", structured.dump(-1, ' ', false, json::error_handler_t::replace)}});
    result.structuredContent = std::move(structured);
    return result;
}
