#include "decisiontext.h"

#include "boundedjson.h"
#include "callcolumns.h"

#include <QCoreApplication>

#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("DecisionText", text);
}

QString stringOf(const json& object, const char* key)
{
    const auto it = object.find(key);
    return it != object.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
}

QString timeOf(const json& object)
{
    const auto it = object.find("atMs");
    return it != object.end() && it->is_number_integer() ? CallColumns::formatTimeOrDate(it->get<qint64>()) : QString();
}

QString scopeOf(const json& decision)
{
    const auto it = decision.find("scope");
    if (it == decision.end() || !it->is_object())
        return {};
    const json& scope = *it;
    const bool everyClient = scope.value("everyClient", false);
    const bool anyArguments = scope.value("anyArguments", false);
    const QString client = everyClient ? tr("every client") : stringOf(scope, "client");
    const QString arguments = anyArguments ? tr("any arguments") : tr("these arguments only");
    const QString session = stringOf(scope, "session");
    if (!session.isEmpty())
        return tr("%1, session %2").arg(client, session.left(8) + QStringLiteral("…"));
    return tr("%1, %2").arg(client, arguments);
}

} // namespace

QString DecisionText::describe(const QByteArray& bytes)
{
    if (bytes.isEmpty())
        return {};
    const json decision = BoundedJson::parse(bytes, BoundedJson::Limits::record()).value;
    if (!decision.is_object() || !decision.contains("what"))
        return QString::fromUtf8(bytes);
    const QString what = stringOf(decision, "what");
    const QString via = stringOf(decision, "via");
    const QString by = stringOf(decision, "by");
    const QString at = timeOf(decision);
    const QString scope = scopeOf(decision);
    const QString grant = stringOf(decision, "grant");

    QString who;
    if (!by.isEmpty() && !at.isEmpty())
        who = tr(" by %1 at %2").arg(by, at);
    else if (!by.isEmpty())
        who = tr(" by %1").arg(by);
    else if (!at.isEmpty())
        who = tr(" at %1").arg(at);

    if (via == QLatin1String("grant")) {
        const QString kind = what == QLatin1String("allow_session") ? tr("an \"allow for this session\" grant")
                                                                    : tr("an \"always allow\" grant");
        return tr("Ran without asking: %1 (%2; %3) given%4.").arg(kind, scope, grant, who);
    }
    if (via == QLatin1String("rule")) {
        const QString rule = stringOf(decision, "rule");
        return what == QLatin1String("deny") ? tr("Denied by the configuration (%1).").arg(rule)
                                             : tr("Allowed by the configuration (%1).").arg(rule);
    }
    QString text;
    if (what == QLatin1String("allow_once"))
        text = tr("Allowed once%1").arg(who);
    else if (what == QLatin1String("allow_session"))
        text = tr("Allowed for this session%1 (%2; %3)").arg(who, scope, grant);
    else if (what == QLatin1String("allow_always"))
        text = tr("Always allowed%1 (%2; %3)").arg(who, scope, grant);
    else if (what == QLatin1String("deny"))
        text = tr("Denied%1").arg(who);
    else if (what == QLatin1String("answered"))
        text = tr("Answered%1").arg(who);
    else if (what == QLatin1String("declined"))
        text = tr("Declined%1").arg(who);
    else
        text = what + who;
    const QString reason = stringOf(decision, "reason");
    if (!reason.isEmpty())
        text += tr(": \"%1\"").arg(reason);
    if (via == QLatin1String("client")) {
        // The client's own user, through input_required: the retry that carried the answer is this call.
        const auto round = decision.find("round");
        text += round != decision.end() && round->is_number_integer()
            ? tr(", through input_required (round %1)").arg(round->get<qint64>())
            : tr(", through input_required");
    }
    if (via == QLatin1String("stored"))
        text += tr(", while an earlier identical call waited (question %1)").arg(stringOf(decision, "interaction"));
    return text + QLatin1Char('.');
}
