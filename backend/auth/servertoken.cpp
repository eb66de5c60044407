#include "auth/servertoken.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

#include <array>

namespace {
constexpr auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
}

QString ServerToken::problemWith(const QByteArray& value)
{
    for (char c : value) {
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f')
            return QStringLiteral("contains whitespace");
        if (c < 0x21 || c > 0x7e)
            return QStringLiteral("contains a character that is not printable ASCII");
    }
    if (value.size() < MinimumLength)
        return QStringLiteral("is %1 characters long; a token needs at least %2 (a shorter one can be guessed)")
            .arg(value.size())
            .arg(MinimumLength);
    return {};
}

QByteArray ServerToken::generate(const Kind& kind)
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    return kind.prefix
        + QByteArray(reinterpret_cast<const char*>(words.data()), qsizetype(sizeof(words)))
              .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

bool ServerToken::resolve(const QString& stateDirectory, const QByteArray& environmentValue, ServerToken* token,
    QString* error, const Kind& kind)
{
    if (!environmentValue.isEmpty()) {
        if (const QString problem = problemWith(environmentValue); !problem.isEmpty()) {
            *error = QStringLiteral("%1 %2. Use at least %3 printable ASCII characters without "
                                    "whitespace, or unset it to use a generated token")
                         .arg(QLatin1String(kind.variable), problem)
                         .arg(MinimumLength);
            return false;
        }
        token->value = environmentValue;
        token->source = Source::Environment;
        token->variable = kind.variable;
        token->filePath.clear();
        return true;
    }

    if (!QDir().mkpath(stateDirectory)) {
        *error = QStringLiteral("cannot create the state directory %1").arg(stateDirectory);
        return false;
    }
    const QString path = QDir(stateDirectory).filePath(QLatin1String(kind.fileName));
    token->filePath = path;
    QFile file(path);
    if (file.exists()) {
        if (!file.open(QIODevice::ReadOnly)) {
            *error = QStringLiteral("cannot read the token file %1: %2").arg(path, file.errorString());
            return false;
        }
        const QByteArray stored = file.readAll().trimmed();
        file.close();
        if (!stored.isEmpty()) {
            if (const QString problem = problemWith(stored); !problem.isEmpty()) {
                *error = QStringLiteral("the token in %1 %2. Delete the file to have a new token generated, or "
                                        "write one of at least %3 printable ASCII characters without whitespace")
                             .arg(path, problem)
                             .arg(MinimumLength);
                return false;
            }
            // Someone loosened the file's mode: tighten it again, the token is a credential.
            if ((file.permissions() & ~(ownerOnly | QFileDevice::ReadUser | QFileDevice::WriteUser)) != 0)
                file.setPermissions(ownerOnly);
            token->value = stored;
            token->source = Source::StoredFile;
            return true;
        }
        file.remove();
    }
    // Created with owner-only permissions from the start: there is no moment when others can read it.
    if (!file.open(QIODevice::WriteOnly | QIODevice::NewOnly, ownerOnly)) {
        *error = QStringLiteral("cannot create the token file %1: %2").arg(path, file.errorString());
        return false;
    }
    const QByteArray value = generate(kind);
    if (file.write(value + '\n') != value.size() + 1 || !file.flush()) {
        *error = QStringLiteral("cannot write the token file %1: %2").arg(path, file.errorString());
        file.close();
        file.remove();
        return false;
    }
    file.close();
    token->value = value;
    token->source = Source::Generated;
    return true;
}

QString ServerToken::describeSource() const
{
    switch (source) {
    case Source::Environment:
        return QStringLiteral("from %1").arg(QLatin1String(variable));
    case Source::StoredFile:
        return QStringLiteral("stored in %1").arg(filePath);
    case Source::Generated:
        return QStringLiteral("generated and stored in %1").arg(filePath);
    }
    return {};
}
