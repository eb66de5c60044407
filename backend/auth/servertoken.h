#pragma once

// ServerToken: the bearer token clients must present. Taken from SWITCHBOARD_TOKEN when set;
// otherwise read from the state directory, or generated there on first run and stored owner-only.

#include <QByteArray>
#include <QString>

struct ServerToken
{
    enum class Source {
        Environment,
        StoredFile,
        Generated,
    };

    QByteArray value;
    Source source = Source::Generated;
    QString filePath; // for StoredFile and Generated

    // Resolves the token. `environmentValue` is the value of SWITCHBOARD_TOKEN (empty if unset).
    static bool resolve(
        const QString& stateDirectory, const QByteArray& environmentValue, ServerToken* token, QString* error);
    static QByteArray generate();
    QString describeSource() const;
};
