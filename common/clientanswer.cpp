#include "clientanswer.h"

using nlohmann::json;

namespace ClientAnswer {

json connected(const QString& provider, const QString& account)
{
    return json{{"connected", true}, {"provider", provider.toStdString()}, {"account", account.toStdString()}};
}

json notConnected(const QString& reason)
{
    return json{{"connected", false}, {"reason", reason.toStdString()}};
}

json confirmed(bool yes)
{
    return json{{"confirmed", yes}};
}

json chosen(const QString& choice)
{
    return json{{"choice", choice.toStdString()}};
}

json submitted(const json& values)
{
    return json{{"submitted", true}, {"values", values}};
}

json declined(RenderHint render)
{
    switch (render) {
    case RenderHint::Choice:
        return json{{"choice", nullptr}, {"reason", "declined"}};
    case RenderHint::Form:
        return json{{"submitted", false}, {"reason", "declined"}};
    case RenderHint::Confirm:
        return confirmed(false);
    case RenderHint::Approval:
    case RenderHint::Connect:
        break;
    }
    return notConnected(QStringLiteral("declined"));
}

} // namespace ClientAnswer
