#pragma once

// The git program and files in a test's repository, for tests that compare with what git says.

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace GitProgram {

// Runs git in `directory`; its output and errors. `exitCode` is -1 when it crashed or hung.
inline QString run(const QString& directory, const QStringList& arguments, int* exitCode = nullptr)
{
    QProcess process;
    process.setWorkingDirectory(directory);
    process.start(QStringLiteral("git"), arguments);
    if (!process.waitForFinished(60'000)) {
        process.kill();
        process.waitForFinished();
    }
    if (exitCode)
        *exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    return QString::fromUtf8(process.readAllStandardOutput() + process.readAllStandardError());
}

// A new repository at `directory` on branch main, with a committer: true when git agreed.
inline bool initRepository(const QString& directory)
{
    int init = -1;
    int name = -1;
    int email = -1;
    run(directory, {QStringLiteral("init"), QStringLiteral("-q"), QStringLiteral("-b"), QStringLiteral("main")}, &init);
    run(directory, {QStringLiteral("config"), QStringLiteral("user.name"), QStringLiteral("Test")}, &name);
    run(directory, {QStringLiteral("config"), QStringLiteral("user.email"), QStringLiteral("test@example.com")},
        &email);
    return init == 0 && name == 0 && email == 0;
}

// Writes `content` to `directory`/`relative`, making the folders it needs.
inline bool write(const QString& directory, const QString& relative, const QByteArray& content)
{
    const QString path = directory + QLatin1Char('/') + relative;
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
}

} // namespace GitProgram
