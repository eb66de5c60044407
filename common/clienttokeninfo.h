#pragma once

// ClientTokenInfo: a named client token as a console lists it: the name that is its client's
// identity, and when it was issued. Never the token itself: the backend keeps only a digest of it,
// and shows a token once, when it issues it.

#include <QList>
#include <QMetaType>
#include <QString>

struct ClientTokenInfo
{
    QString name;
    qint64 createdAtMs = 0; // ms since the Unix epoch

    friend bool operator==(const ClientTokenInfo&, const ClientTokenInfo&) = default;
};

using ClientTokenInfoList = QList<ClientTokenInfo>;

Q_DECLARE_METATYPE(ClientTokenInfo)
Q_DECLARE_METATYPE(ClientTokenInfoList)
