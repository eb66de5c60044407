#include "git/localobjectcopy.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>

#include <cerrno>
#include <cstring>
#include <unistd.h>

#include <utility>
#include <vector>

namespace {

constexpr qint64 ChunkBytes = 1024 * 1024;

bool isLooseDirectoryName(const QString& name)
{
    const auto hex = [](QChar c) {
        return (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || (c >= QLatin1Char('a') && c <= QLatin1Char('f'));
    };
    return name.size() == 2 && hex(name.at(0)) && hex(name.at(1));
}

// A pack and what libgit2 reads beside it; a .keep or a multi-pack index of the source means
// nothing to the copy.
bool isPackFile(const QString& name)
{
    return name.startsWith(QLatin1String("pack-"))
        && (name.endsWith(QLatin1String(".pack")) || name.endsWith(QLatin1String(".idx"))
            || name.endsWith(QLatin1String(".rev")));
}

// The object files of one objects directory: (source, path relative to it).
void collect(const QString& source, std::vector<std::pair<QString, QString>>* files)
{
    const QDir directory(source);
    for (const QString& name : directory.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (!isLooseDirectoryName(name))
            continue;
        for (const QString& file : QDir(directory.filePath(name)).entryList(QDir::Files))
            files->emplace_back(directory.filePath(name + QLatin1Char('/') + file), name + QLatin1Char('/') + file);
    }
    for (const QString& file : QDir(directory.filePath(QStringLiteral("pack"))).entryList(QDir::Files)) {
        if (isPackFile(file))
            files->emplace_back(directory.filePath(QStringLiteral("pack/") + file), QStringLiteral("pack/") + file);
    }
}

// Copies `from` to `to` through a temporary file renamed into place, in chunks.
bool copyFile(const QString& from, const QString& to, const std::function<bool()>& cancelled, QString* error)
{
    QFile source(from);
    if (!source.open(QIODevice::ReadOnly)) {
        *error = QStringLiteral("cannot read %1: %2").arg(from, source.errorString());
        return false;
    }
    const QString partial = to + QStringLiteral(".copying");
    QFile target(partial);
    if (!target.open(QIODevice::WriteOnly | QIODevice::Truncate)) {
        *error = QStringLiteral("cannot write %1: %2").arg(partial, target.errorString());
        return false;
    }
    for (;;) {
        if (cancelled()) {
            target.remove();
            *error = QStringLiteral("cancelled");
            return false;
        }
        const QByteArray chunk = source.read(ChunkBytes);
        if (chunk.isEmpty())
            break;
        if (target.write(chunk) != chunk.size()) {
            *error = QStringLiteral("cannot write %1: %2").arg(partial, target.errorString());
            target.remove();
            return false;
        }
    }
    target.close();
    if (::rename(QFile::encodeName(partial).constData(), QFile::encodeName(to).constData()) != 0) {
        *error = QStringLiteral("cannot move %1 into place: %2")
                     .arg(partial, QString::fromLocal8Bit(std::strerror(errno)));
        QFile::remove(partial);
        return false;
    }
    // As git and libgit2 leave objects: read-only.
    QFile::setPermissions(to, QFile::ReadOwner | QFile::ReadGroup | QFile::ReadOther);
    return true;
}

} // namespace

bool LocalObjectCopy::copy(const QStringList& sources, const QString& destination,
    const std::function<bool()>& cancelled, const std::function<void(qint64 done, qint64 total)>& progress,
    QString* error)
{
    std::vector<std::pair<QString, QString>> files;
    for (const QString& source : sources)
        collect(source, &files);
    const qint64 total = qint64(files.size());
    qint64 done = 0;
    for (const auto& [from, relative] : files) {
        if (cancelled()) {
            *error = QStringLiteral("cancelled");
            return false;
        }
        const QString to = destination + QLatin1Char('/') + relative;
        if (QFileInfo::exists(to)) {
            ++done;
            continue;
        }
        if (!QDir().mkpath(QFileInfo(to).path())) {
            *error = QStringLiteral("cannot create %1").arg(QFileInfo(to).path());
            return false;
        }
        // The file itself, not a link on the way to it (the source was checked to lead inside the roots).
        const QString real = QFileInfo(from).canonicalFilePath();
        if (real.isEmpty())
            continue; // gone meanwhile (a repack): the fetch brings what is missing
        if (::link(QFile::encodeName(real).constData(), QFile::encodeName(to).constData()) != 0) {
            const int why = errno;
            if (why != EXDEV && why != EPERM && why != EMLINK && why != EACCES) {
                *error = QStringLiteral("cannot link %1: %2").arg(real, QString::fromLocal8Bit(std::strerror(why)));
                return false;
            }
            if (!copyFile(real, to, cancelled, error))
                return false;
        }
        if (progress)
            progress(++done, total);
    }
    return true;
}
