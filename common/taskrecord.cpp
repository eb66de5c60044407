#include "taskrecord.h"

#include "boundedjson.h"
#include "enumnames.h"
#include "statejsonreader.h"

#include <QDateTime>

using nlohmann::json;

namespace {

constexpr EnumNames<TaskRecord::Status, 5> statusNames{{
    {TaskRecord::Status::Working, "working"},
    {TaskRecord::Status::InputRequired, "input_required"},
    {TaskRecord::Status::Completed, "completed"},
    {TaskRecord::Status::Cancelled, "cancelled"},
    {TaskRecord::Status::Failed, "failed"},
}};

std::string isoTime(qint64 msSinceEpoch)
{
    return QDateTime::fromMSecsSinceEpoch(msSinceEpoch, Qt::UTC).toString(Qt::ISODateWithMs).toStdString();
}

// A member the record keeps as compact JSON text it wrote itself; a text that no longer parses
// (it cannot, short of a corrupt file that fromJson let through) reads as null rather than throwing.
json parsedMember(const QByteArray& text)
{
    BoundedJson::Result<json> parsed = BoundedJson::parse(text, BoundedJson::Limits::record());
    return parsed.ok ? std::move(parsed.value) : json(nullptr);
}

} // namespace

QString TaskRecord::statusName(Status status)
{
    return enumName(statusNames, status);
}

std::optional<TaskRecord::Status> TaskRecord::statusFromName(const QString& name)
{
    return enumFromName(statusNames, name);
}

std::optional<qint64> TaskRecord::expiresAtMs() const
{
    if (!ttlMs)
        return std::nullopt;
    return createdAtMs + *ttlMs;
}

json TaskRecord::toWire(bool detailed) const
{
    json task{{"taskId", id.toStdString()}, {"status", statusName(status).toStdString()},
        {"createdAt", isoTime(createdAtMs)}, {"lastUpdatedAt", isoTime(lastUpdatedAtMs)},
        {"ttlMs", ttlMs ? json(*ttlMs) : json(nullptr)}, {"pollIntervalMs", pollIntervalMs}};
    if (!statusMessage.isEmpty())
        task["statusMessage"] = statusMessage.toStdString();
    if (!detailed)
        return task;
    switch (status) {
    case Status::Completed:
        task["result"] = parsedMember(result);
        break;
    case Status::Failed:
        task["error"] = parsedMember(error);
        break;
    case Status::InputRequired:
        task["inputRequests"] = parsedMember(inputRequests);
        break;
    case Status::Working:
    case Status::Cancelled:
        break;
    }
    return task;
}

json TaskRecord::toJson() const
{
    json record{{"id", id.toStdString()}, {"owner", owner.toStdString()}, {"clientName", clientName.toStdString()},
        {"clientVersion", clientVersion.toStdString()}, {"status", statusName(status).toStdString()},
        {"statusMessage", statusMessage.toStdString()}, {"createdAtMs", createdAtMs},
        {"lastUpdatedAtMs", lastUpdatedAtMs}, {"pollIntervalMs", pollIntervalMs}, {"tool", tool.toStdString()},
        {"callId", callId}, {"request", request.toStdString()}, {"waitsOn", waitsOn.toStdString()},
        {"result", result.toStdString()}, {"error", error.toStdString()},
        {"inputRequests", inputRequests.toStdString()}};
    if (ttlMs)
        record["ttlMs"] = *ttlMs; // absent: unlimited
    return record;
}

bool TaskRecord::fromJson(const json& value, const QString& where, TaskRecord* task, QString* problem)
{
    TaskRecord read;
    QString status;
    qint64 ttl = -1;
    StateJsonReader reader(value, where, problem);
    reader
        .keys(
            {"id", "owner", "clientName", "clientVersion", "status", "statusMessage", "createdAtMs", "lastUpdatedAtMs",
                "pollIntervalMs", "tool", "callId", "request", "waitsOn", "result", "error", "inputRequests"},
            {"ttlMs"})
        .string("id", &read.id)
        .string("owner", &read.owner)
        .string("clientName", &read.clientName)
        .string("clientVersion", &read.clientVersion)
        .string("status", &status)
        .string("statusMessage", &read.statusMessage)
        .integer("createdAtMs", &read.createdAtMs)
        .integer("lastUpdatedAtMs", &read.lastUpdatedAtMs)
        .integer("pollIntervalMs", &read.pollIntervalMs)
        .string("tool", &read.tool)
        .integer("callId", &read.callId)
        .string("request", &read.request)
        .string("waitsOn", &read.waitsOn)
        .string("result", &read.result)
        .string("error", &read.error)
        .string("inputRequests", &read.inputRequests)
        .optionalInteger("ttlMs", &ttl);
    if (!reader.ok())
        return false;
    if (read.id.isEmpty() || read.owner.isEmpty() || read.tool.isEmpty()) {
        reader.fail(QStringLiteral("has an empty \"id\", \"owner\" or \"tool\""));
        return false;
    }
    const std::optional<Status> parsedStatus = statusFromName(status);
    if (!parsedStatus) {
        reader.fail(QStringLiteral("has an unknown status \"%1\"").arg(status));
        return false;
    }
    read.status = *parsedStatus;
    if (value.contains("ttlMs")) {
        if (ttl < 0) {
            reader.fail(QStringLiteral("has a negative \"ttlMs\""));
            return false;
        }
        read.ttlMs = ttl;
    }
    if (read.pollIntervalMs <= 0 || read.lastUpdatedAtMs < read.createdAtMs) {
        reader.fail(QStringLiteral("has a poll interval or times that cannot be"));
        return false;
    }
    // What the status's wire form carries must be JSON the program wrote.
    const auto member = [&](const QByteArray& text, const char* name, json::value_t type) {
        if (text.isEmpty())
            return true;
        const BoundedJson::Result<json> parsed = BoundedJson::parse(text, BoundedJson::Limits::record());
        if (parsed.ok && parsed.value.type() == type)
            return true;
        reader.fail(QStringLiteral("has a \"%1\" that is not a JSON object").arg(QLatin1String(name)));
        return false;
    };
    if (!member(read.request, "request", json::value_t::object) || !member(read.result, "result", json::value_t::object)
        || !member(read.error, "error", json::value_t::object)
        || !member(read.inputRequests, "inputRequests", json::value_t::object))
        return false;
    const bool hasOwnField = (read.status == Status::Completed && !read.result.isEmpty())
        || (read.status == Status::Failed && !read.error.isEmpty())
        || (read.status == Status::InputRequired && !read.inputRequests.isEmpty()) || read.status == Status::Working
        || read.status == Status::Cancelled;
    if (!hasOwnField) {
        reader.fail(QStringLiteral("is %1 without its %2")
                        .arg(status,
                            read.status == Status::Completed    ? QStringLiteral("result")
                                : read.status == Status::Failed ? QStringLiteral("error")
                                                                : QStringLiteral("input requests")));
        return false;
    }
    *task = std::move(read);
    return true;
}

qint64 TaskRecord::sizeInState() const
{
    return qint64(toJson().dump().size());
}
