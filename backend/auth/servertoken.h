#pragma once

// ServerToken: the bearer token clients must present. Taken from SWITCHBOARD_TOKEN when set;
// otherwise read from the state directory, or generated there on first run and stored owner-only.
// A token from the environment or the file must be at least MinimumLength printable ASCII
// characters without whitespace; anything else is refused with a clear error, never used.

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
    static constexpr int MinimumLength = 32;

    static QByteArray generate();
    // Why `value` cannot be a token (too short, whitespace, not printable ASCII); empty when it can.
    static QString problemWith(const QByteArray& value);
    QString describeSource() const;
};
