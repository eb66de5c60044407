#pragma once

// LoopbackReplyHandler: the redirect target of an OAuth sign-in: a listener on 127.0.0.1 (never
// another interface) on a port the system picks. Two things differ from QOAuthHttpServerReplyHandler:
// the redirect URI always names 127.0.0.1, the address actually bound (RFC 8252 §8.3; Qt 6.5 and
// later say "localhost", which may resolve to ::1 where nothing listens), and it keeps its port
// after close(); and token endpoint failures are reported (tokenRequestFailed) instead of only
// being logged as Qt 6.4 does, so a flow never hangs on an HTTP 400 or a body that is not JSON.

#include <QOAuthHttpServerReplyHandler>
#include <QUrl>

class LoopbackReplyHandler : public QOAuthHttpServerReplyHandler
{
    Q_OBJECT
public:
    explicit LoopbackReplyHandler(QObject* parent = nullptr);

    QString callback() const override;
    QUrl redirectUri() const { return QUrl(callback()); }

public Q_SLOTS:
    // The token endpoint's answer: tokensReceived() with its fields on success, otherwise
    // tokenRequestFailed() with a message that names the server's error but never a token.
    void networkReplyFinished(QNetworkReply* reply) override;

Q_SIGNALS:
    void tokenRequestFailed(const QString& message);

private:
    quint16 m_port = 0; // kept: callback() must not change after close()
};
