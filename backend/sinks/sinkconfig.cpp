#include "sinks/sinkconfig.h"

#include "tools/toolspec.h"

bool SinkConfig::isValidName(const QString& name)
{
    return ToolSpec::isValidOwnerName(name);
}

QString SinkConfig::typeName(Type type)
{
    switch (type) {
    case Type::File:
        return QStringLiteral("file");
    case Type::Jsonl:
        return QStringLiteral("jsonl");
    case Type::Webhook:
        return QStringLiteral("webhook");
    }
    return {};
}

qint64 SinkConfig::defaultMaxBytes(Type type)
{
    switch (type) {
    case Type::File:
        return DefaultFileMaxBytes;
    case Type::Jsonl:
        return DefaultRecordMaxBytes;
    case Type::Webhook:
        return DefaultPayloadMaxBytes;
    }
    return DefaultFileMaxBytes;
}
