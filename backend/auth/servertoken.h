#pragma once

// ServerToken: a bearer token of the server: the one MCP clients present (SWITCHBOARD_TOKEN, file
// `token`), or the operator's (SWITCHBOARD_OPERATOR_TOKEN, file `operator-token`). Taken from the
// variable when set; otherwise read from the state directory, or generated there on first run and
// stored owner-only.
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
    const char* variable = Client.variable; // the variable it came from, for Environment

    // Which token: the variable that may carry it and the file it is kept in otherwise.
    struct Kind
    {
        const char* variable;
        const char* fileName;
        const char* prefix; // of a generated token, so that a person can tell the two apart
    };
    static constexpr Kind Client{"SWITCHBOARD_TOKEN", "token", "sb_"};
    static constexpr Kind Operator{"SWITCHBOARD_OPERATOR_TOKEN", "operator-token", "sbop_"};

    // Resolves the token. `environmentValue` is the value of the kind's variable (empty if unset).
    static bool resolve(const QString& stateDirectory, const QByteArray& environmentValue, ServerToken* token,
        QString* error, const Kind& kind = Client);
    static constexpr int MinimumLength = 32;

    static QByteArray generate(const Kind& kind = Client);
    // Why `value` cannot be a token (too short, whitespace, not printable ASCII); empty when it can.
    static QString problemWith(const QByteArray& value);
    QString describeSource() const;
};
