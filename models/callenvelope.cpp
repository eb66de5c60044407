#include "callenvelope.h"

#include "boundedjson.h"

QString CallEnvelope::traceId() const
{
    return traceparent.section(QLatin1Char('-'), 1, 1);
}

CallEnvelope CallEnvelope::of(const QByteArray& request)
{
    CallEnvelope envelope;
    // Most calls are not of the revision, and the log sees thousands a second: those are told
    // apart without parsing.
    if (!request.contains("io.modelcontextprotocol/protocolVersion"))
        return envelope;
    const auto parsed = BoundedJson::parse(request, BoundedJson::Limits::record());
    if (!parsed.ok || !parsed.value.is_object())
        return envelope;
    const auto params = parsed.value.find("params");
    if (params == parsed.value.end() || !params->is_object())
        return envelope;
    const auto meta = params->find("_meta");
    if (meta == params->end() || !meta->is_object())
        return envelope;
    const auto text = [&meta](const char* key) {
        const auto value = meta->find(key);
        return value != meta->end() && value->is_string() ? QString::fromStdString(value->get<std::string>())
                                                          : QString();
    };
    envelope.version = text("io.modelcontextprotocol/protocolVersion");
    envelope.traceparent = text("traceparent");
    envelope.tracestate = text("tracestate");
    envelope.answersInput = params->contains("inputResponses");
    return envelope;
}
