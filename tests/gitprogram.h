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

// Writes `content` to `directory`/`relative`, making the folders it needs.
inline bool write(const QString& directory, const QString& relative, const QByteArray& content)
{
    const QString path = directory + QLatin1Char('/') + relative;
    QDir().mkpath(QFileInfo(path).path());
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(content) == content.size();
}

} // namespace GitProgram
