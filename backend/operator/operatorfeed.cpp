#include "operator/operatorfeed.h"

#include "events/backendevents.h"

#include <QDateTime>

#include <algorithm>

using nlohmann::json;

namespace {

template<typename List>
json jsonArray(const List& items)
{
    json array = json::array();
    for (const auto& item : items)
        array.push_back(item.toJson());
    return array;
}

template<typename Map>
json mapValues(const Map& map)
{
    json array = json::array();
    for (const auto& [key, value] : map)
        array.push_back(value.toJson());
    return array;
}

// Newest state per key, in `map`, from a batch of them.
template<typename Map, typename List>
void keep(Map& map, const List& states)
{
    for (const auto& state : states)
        map.insert_or_assign(state.key(), state);
}

} // namespace

OperatorFeed::OperatorFeed(BackendEvents* events, Sources sources, QObject* parent)
    : QObject(parent)
    , m_sources(std::move(sources))
{
    connect(events, &BackendEvents::callsUpdated, this, [this](const ToolCallList& calls) {
        json previews = json::array();
        for (const ToolCall& call : calls) {
            const ToolCall preview = call.preview(PreviewBytes);
            previews.push_back(preview.toJson());
            const auto known = std::find_if(m_recentCalls.begin(), m_recentCalls.end(),
                [&](const ToolCall& recent) { return recent.id == call.id; });
            if (known != m_recentCalls.end()) {
                *known = preview;
                continue;
            }
            m_recentCalls.push_back(preview);
            if (m_recentCalls.size() > size_t(MaxRecentCalls))
                m_recentCalls.pop_front();
        }
        emitChange("calls", json{{"calls", std::move(previews)}});
    });
    connect(events, &BackendEvents::questionsUpdated, this, [this](const QuestionUpdateList& updates) {
        json list = json::array();
        for (const QuestionUpdate& update : updates) {
            json entry{{"id", update.id.toStdString()}, {"raised", update.raised}};
            if (update.state)
                entry["state"] = update.state->toJson();
            if (update.resolved)
                entry["resolved"] = interactionOutcomeName(*update.resolved).toStdString();
            list.push_back(std::move(entry));
        }
        emitChange("questions", json{{"updates", std::move(list)}});
    });
    connect(events, &BackendEvents::adapterStatusesChanged, this, [this](const AdapterStatusList& statuses) {
        keep(m_adapters, statuses);
        emitChange("adapters", json{{"adapters", jsonArray(statuses)}});
    });
    connect(events, &BackendEvents::breakerStatesChanged, this, [this](const BreakerStateList& states) {
        keep(m_breakers, states);
        emitChange("breakers", json{{"breakers", jsonArray(states)}});
    });
    connect(events, &BackendEvents::repositoryStatesChanged, this, [this](const RepositoryStateList& states) {
        keep(m_repositories, states);
        emitChange("repositories", json{{"repositories", jsonArray(states)}});
    });
    connect(events, &BackendEvents::transfersChanged, this, [this](const TransferProgressList& transfers) {
        for (const TransferProgress& transfer : transfers) {
            if (transfer.finished)
                m_transfers.erase(transfer.key());
            else
                m_transfers.insert_or_assign(transfer.key(), transfer);
        }
        emitChange("transfers", json{{"transfers", jsonArray(transfers)}});
    });
    connect(events, &BackendEvents::sessionStatesChanged, this, [this](const SessionStateList& sessions) {
        emitChange("sessions", json{{"sessions", jsonArray(sessions)}});
    });
    connect(events, &BackendEvents::securityEventsRecorded, this, [this](const SecurityEventList& securityEvents) {
        for (const SecurityEvent& event : securityEvents) {
            m_securityEvents.push_back(event);
            if (m_securityEvents.size() > size_t(MaxSecurityEvents))
                m_securityEvents.pop_front();
        }
        emitChange("security", json{{"security", jsonArray(securityEvents)}});
    });
}

json OperatorFeed::state() const
{
    json notices = json::array();
    for (const Notice& notice : m_notices)
        notices.push_back(notice.toJson());
    return json{{"sequence", m_sequence}, {"server", m_sources.server ? m_sources.server() : json::object()},
        {"questions", jsonArray(m_sources.questions ? m_sources.questions() : PendingInteractionList())},
        {"sessions", jsonArray(m_sources.sessions ? m_sources.sessions() : SessionStateList())},
        {"adapters", mapValues(m_adapters)}, {"breakers", mapValues(m_breakers)},
        {"repositories", mapValues(m_repositories)}, {"transfers", mapValues(m_transfers)},
        {"securityEvents", jsonArray(m_securityEvents)},
        {"grants", jsonArray(m_sources.grants ? m_sources.grants() : PermissionEntryList())},
        {"recentCalls", jsonArray(m_recentCalls)}, {"notices", std::move(notices)}};
}

QStringList OperatorFeed::warnings() const
{
    QStringList warnings;
    for (const Notice& notice : m_notices) {
        if (notice.level == QLatin1String("warning"))
            warnings << notice.message;
    }
    return warnings;
}

void OperatorFeed::publishGrants(const PermissionEntryList& grants)
{
    emitChange("grants", json{{"grants", jsonArray(grants)}});
}

json OperatorFeed::Notice::toJson() const
{
    json value{{"atMs", atMs}, {"kind", kind.toStdString()}, {"level", level.toStdString()},
        {"message", message.toStdString()}};
    if (count >= 0)
        value["count"] = count;
    return value;
}

void OperatorFeed::publishNotice(const QString& kind, const QString& level, const QString& message, qint64 count)
{
    const Notice notice{QDateTime::currentMSecsSinceEpoch(), kind, level, message, count};
    m_notices.push_back(notice);
    if (m_notices.size() > size_t(MaxNotices))
        m_notices.pop_front();
    emitChange("notice", notice.toJson());
}

void OperatorFeed::publishHistoryPruned(qint64 total)
{
    // History lets its oldest calls go all the time on a busy server: told live, never kept, so that
    // it does not push the notices worth reading out of the state.
    emitChange("notice",
        Notice{QDateTime::currentMSecsSinceEpoch(), QStringLiteral("historyPruned"), QStringLiteral("info"),
            QStringLiteral("History let its oldest calls go (%1 over its life).").arg(total), total}
            .toJson());
}

void OperatorFeed::publishToolsChanged()
{
    emitChange("tools", json::object());
}

void OperatorFeed::publishRepositoryRemoved(const QString& path)
{
    m_repositories.erase(path);
    emitChange("repositoryRemoved", json{{"path", path.toStdString()}});
}

void OperatorFeed::emitChange(const char* event, const json& data)
{
    ++m_sequence;
    // Text from clients and tools may hold invalid UTF-8: replaced, never thrown on.
    Q_EMIT changed(m_sequence, QByteArray(event),
        QByteArray::fromStdString(data.dump(-1, ' ', false, json::error_handler_t::replace)));
}
