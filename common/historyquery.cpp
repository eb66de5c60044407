#include "historyquery.h"

#include <algorithm>
#include <limits>

using nlohmann::json;

namespace {

json strings(const QStringList& list)
{
    json array = json::array();
    for (const QString& item : list)
        array.push_back(item.toStdString());
    return array;
}

bool readStrings(const json& value, const char* key, QStringList* out, QString* problem)
{
    const auto it = value.find(key);
    if (it == value.end())
        return true;
    if (!it->is_array()) {
        *problem = QStringLiteral("%1 is a list of strings").arg(QLatin1String(key));
        return false;
    }
    for (const json& item : *it) {
        if (!item.is_string()) {
            *problem = QStringLiteral("%1 is a list of strings").arg(QLatin1String(key));
            return false;
        }
        out->append(QString::fromStdString(item.get_ref<const std::string&>()));
    }
    return true;
}

bool readInteger(const json& value, const char* key, qint64 min, qint64 max, qint64* out, QString* problem)
{
    const auto it = value.find(key);
    if (it == value.end())
        return true;
    if (!it->is_number_integer() || it->get<qint64>() < min || it->get<qint64>() > max) {
        *problem = QStringLiteral("%1 is a whole number from %2 to %3").arg(QLatin1String(key)).arg(min).arg(max);
        return false;
    }
    *out = it->get<qint64>();
    return true;
}

} // namespace

json HistoryQuery::toJson() const
{
    json statuses = json::array();
    for (const CallStatus status : search.statuses)
        statuses.push_back(callStatusName(status).toStdString());
    return json{{"words", strings(search.words)}, {"statuses", std::move(statuses)},
        {"adapter", search.adapter.toStdString()}, {"tools", strings(search.tools)},
        {"clients", strings(search.clients)}, {"beforeId", beforeId}, {"callId", callId}, {"limit", limit},
        {"bodyPreviewBytes", qint64(bodyPreviewBytes)}};
}

std::optional<HistoryQuery> HistoryQuery::fromJson(const json& value, QString* problem)
{
    if (!value.is_object()) {
        *problem = QStringLiteral("a history query is a JSON object");
        return std::nullopt;
    }
    static const std::initializer_list<const char*> known
        = {"words", "statuses", "adapter", "tools", "clients", "beforeId", "callId", "limit", "bodyPreviewBytes"};
    for (auto it = value.begin(); it != value.end(); ++it) {
        if (std::none_of(known.begin(), known.end(), [&](const char* key) { return it.key() == key; })) {
            *problem = QStringLiteral("a history query has no member \"%1\"").arg(QString::fromStdString(it.key()));
            return std::nullopt;
        }
    }
    HistoryQuery query;
    QStringList statuses;
    qint64 limit = query.limit;
    qint64 preview = 0;
    if (!readStrings(value, "words", &query.search.words, problem)
        || !readStrings(value, "statuses", &statuses, problem)
        || !readStrings(value, "tools", &query.search.tools, problem)
        || !readStrings(value, "clients", &query.search.clients, problem)
        || !readInteger(value, "beforeId", 0, std::numeric_limits<qint64>::max(), &query.beforeId, problem)
        || !readInteger(value, "callId", 0, std::numeric_limits<qint64>::max(), &query.callId, problem)
        || !readInteger(value, "limit", 1, 1000, &limit, problem)
        || !readInteger(value, "bodyPreviewBytes", 0, qint64(1) << 30, &preview, problem))
        return std::nullopt;
    if (const auto adapter = value.find("adapter"); adapter != value.end()) {
        if (!adapter->is_string()) {
            *problem = QStringLiteral("adapter is a string");
            return std::nullopt;
        }
        query.search.adapter = QString::fromStdString(adapter->get_ref<const std::string&>());
    }
    for (const QString& name : std::as_const(statuses)) {
        CallStatus status;
        if (!callStatusFromName(name, &status)) {
            *problem = QStringLiteral("\"%1\" is no call status").arg(name);
            return std::nullopt;
        }
        query.search.statuses.append(status);
    }
    query.limit = int(limit);
    query.bodyPreviewBytes = qsizetype(preview);
    return query;
}
