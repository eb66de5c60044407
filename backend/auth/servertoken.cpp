#include "auth/servertoken.h"

#include <QDir>
#include <QFile>
#include <QRandomGenerator>

#include <array>

namespace {
constexpr auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
}

QByteArray ServerToken::generate()
{
    std::array<quint32, 8> words{};
    QRandomGenerator::system()->fillRange(words.data(), words.size());
    return "sb_"
        + QByteArray(reinterpret_cast<const char*>(words.data()), qsizetype(sizeof(words)))
              .toBase64(QByteArray::Base64UrlEncoding | QByteArray::OmitTrailingEquals);
}

bool ServerToken::resolve(
    const QString& stateDirectory, const QByteArray& environmentValue, ServerToken* token, QString* error)
{
    const QByteArray fromEnvironment = environmentValue.trimmed();
    if (!fromEnvironment.isEmpty()) {
        for (char c : fromEnvironment) {
            if (c < 0x21 || c > 0x7e) {
                *error = QStringLiteral("SWITCHBOARD_TOKEN must be printable ASCII without spaces");
                return false;
            }
        }
        token->value = fromEnvironment;
        token->source = Source::Environment;
        token->filePath.clear();
        return true;
    }

    if (!QDir().mkpath(stateDirectory)) {
        *error = QStringLiteral("cannot create the state directory %1").arg(stateDirectory);
        return false;
    }
    const QString path = QDir(stateDirectory).filePath(QStringLiteral("token"));
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
    const QByteArray value = generate();
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
        return QStringLiteral("from SWITCHBOARD_TOKEN");
    case Source::StoredFile:
        return QStringLiteral("stored in %1").arg(filePath);
    case Source::Generated:
        return QStringLiteral("generated and stored in %1").arg(filePath);
    }
    return {};
}
