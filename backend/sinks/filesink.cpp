#include "sinks/filesink.h"

#include "policy/gitpathpolicy.h"
#include "sinks/sinkio.h"
#include "sinks/sinkresult.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRandomGenerator>

#include <algorithm>
#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using nlohmann::json;

namespace {

constexpr qsizetype MaxPathChars = 4096;

QString quoted(const QString& text)
{
    return QLatin1Char('\'') + text + QLatin1Char('\'');
}

QString below(const QString& directory, const QString& rest)
{
    return directory == QLatin1String("/") ? QString(directory + rest) : QString(directory + QLatin1Char('/') + rest);
}

// Where an open directory really is: the kernel's own name for it, whatever links led there.
QString pathOfDescriptor(int fd)
{
#ifdef Q_OS_LINUX
    return QFileInfo(QStringLiteral("/proc/self/fd/%1").arg(fd)).symLinkTarget();
#else
    Q_UNUSED(fd);
    return {};
#endif
}

bool hasControlCharacter(const QString& text)
{
    return std::any_of(text.cbegin(), text.cend(), [](QChar c) { return c.category() == QChar::Other_Control; });
}

struct Closer
{
    int fd = -1;
    ~Closer()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

} // namespace

QStringList FileSink::problems() const
{
    QStringList problems;
    for (const QString& root : m_config.roots) {
        if (!QFileInfo(root).isDir())
            problems << QStringLiteral("sink %1: the root %2 is not an existing directory; its calls fail until it is")
                            .arg(m_config.name, root);
    }
    return problems;
}

std::vector<SinkOperation> FileSink::operations() const
{
    const QString roots = m_config.roots.join(QStringLiteral(", "));
    const QString limit = QStringLiteral(" At most %1 bytes of content.").arg(m_config.maxBytes);
    const json pathProperty{{"type", "string"}, {"minLength", 1}, {"maxLength", MaxPathChars},
        {"description",
            QStringLiteral("The file: relative to %1, or absolute inside the sink's roots (%2). No '..'.")
                .arg(m_config.roots.value(0), roots)
                .toStdString()}};
    const json encodingProperty{{"type", "string"}, {"enum", {"utf-8", "base64"}}, {"default", "utf-8"},
        {"description", "How content is given: text (utf-8), or bytes as base64"}};
    const json inputSchema{{"type", "object"},
        {"properties",
            {{"path", pathProperty}, {"content", {{"type", "string"}, {"description", "What to write"}}},
                {"encoding", encodingProperty}}},
        {"required", {"path", "content"}}, {"additionalProperties", false}};
    const json resultFields{
        {"path", {{"type", "string"}}}, {"bytes", {{"type", "integer"}}}, {"created", {{"type", "boolean"}}}};

    SinkOperation write = operation(QStringLiteral("write"), QStringLiteral("Write a file"),
        QStringLiteral("Writes content to a file below %1, replacing the file if it exists. The file is replaced in "
                       "one step: a reader sees the old content or the new, never half. Missing directories below "
                       "the root are created.")
                .arg(roots)
            + limit);
    write.inputSchema = inputSchema;
    write.resultFields = resultFields;
    write.destructive = true;
    write.idempotent = true;

    SinkOperation append = operation(QStringLiteral("append"), QStringLiteral("Append to a file"),
        QStringLiteral("Appends content to the end of a file below %1, creating the file (and missing directories "
                       "below the root) if needed. Add your own newline.")
                .arg(roots)
            + limit);
    append.inputSchema = inputSchema;
    append.resultFields = resultFields;
    return {write, append};
}

std::optional<FileSink::Target> FileSink::resolve(const QString& path, const GitPathPolicy& roots, QString* error) const
{
    const QString what = QStringLiteral("path ") + quoted(path);
    const auto refuse = [error](const QString& message) {
        *error = message;
        return std::nullopt;
    };
    if (path.isEmpty())
        return refuse(QStringLiteral("path is empty; give a file below the sink's root."));
    if (path.size() > MaxPathChars)
        return refuse(QStringLiteral("path is longer than %1 characters.").arg(MaxPathChars));
    if (hasControlCharacter(path))
        return refuse(
            QStringLiteral("path contains a control character (a newline, NUL, escape, …); give a plain path."));
    if (path.endsWith(QLatin1Char('/')))
        return refuse(what + QStringLiteral(" names a directory; give a file."));
    const QString absolute = QDir::isAbsolutePath(path) ? path : below(roots.roots().first(), path);
    QStringList components = absolute.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    components.removeAll(QStringLiteral("."));
    // Refused rather than resolved: "a/../b" after a symbolic link means something else to the system
    // than to a reader, and no caller needs it.
    if (components.contains(QStringLiteral("..")))
        return refuse(what + QStringLiteral(" contains '..'; give a path inside the sink's roots without '..'."));
    if (components.isEmpty())
        return refuse(what + QStringLiteral(" names a directory; give a file."));

    // The existing part, as the system resolves it (every link followed), then the rest as given.
    QString existing = QStringLiteral("/");
    qsizetype present = 0;
    while (present < components.size() && QFileInfo::exists(below(existing, components.at(present))))
        existing = below(existing, components.at(present++));
    QString canonical = QFileInfo(existing).canonicalFilePath();
    if (canonical.isEmpty())
        canonical = existing; // removed meanwhile: checked again when the directory is opened
    const QStringList missing = components.mid(present);
    Target target;
    target.exists = missing.isEmpty();
    target.path = missing.isEmpty() ? canonical : below(canonical, missing.join(QLatin1Char('/')));

    if (!roots.contains(target.path)) {
        QString message = what;
        if (target.path != QDir::cleanPath(absolute))
            message += QStringLiteral(" leads (through a symbolic link) to ") + quoted(target.path)
                + QStringLiteral(", which");
        return refuse(message + QStringLiteral(" is outside the sink's roots (")
            + roots.roots().join(QStringLiteral(", ")) + QStringLiteral("). Give a path relative to ")
            + roots.roots().first() + QStringLiteral(", or an absolute path inside a root."));
    }
    if (!missing.isEmpty() && QFileInfo(below(existing, missing.first())).isSymLink())
        return refuse(what + QStringLiteral(" passes through ") + quoted(missing.first())
            + QStringLiteral(", a symbolic link that leads nowhere."));
    if (roots.roots().contains(target.path))
        return refuse(what + QStringLiteral(" is the sink's root directory itself; give a file below it."));
    if (target.exists && QFileInfo(target.path).isDir())
        return refuse(what + QStringLiteral(" is a directory; give a file."));
    if (!missing.isEmpty() && !QFileInfo(canonical).isDir())
        return refuse(what + QStringLiteral(" lies below ") + quoted(canonical)
            + QStringLiteral(", which is a file, not a directory."));

    const qsizetype slash = target.path.lastIndexOf(QLatin1Char('/'));
    target.directory = slash == 0 ? QStringLiteral("/") : target.path.left(slash);
    target.fileName = target.path.mid(slash + 1);
    QString directory = canonical;
    for (qsizetype i = 0; i + 1 < missing.size(); ++i) {
        directory = below(directory, missing.at(i));
        target.missingDirectories.append(directory);
    }
    return target;
}

int FileSink::openDirectory(
    const Target& target, const GitPathPolicy& roots, const QString& spelled, QString* error) const
{
    for (const QString& directory : target.missingDirectories) {
        // Each one lies below a canonical directory inside a root and has no ".." or link in it,
        // so it is inside the root too; mode 0777 minus the umask, as mkdir(1) makes it.
        if (::mkdir(QFile::encodeName(directory).constData(), 0777) != 0 && errno != EEXIST) {
            *error = QStringLiteral("cannot create the directory %1 for %2: %3.")
                         .arg(quoted(directory), quoted(spelled), SinkIo::describe(errno));
            return -1;
        }
    }
    const int fd = ::open(QFile::encodeName(target.directory).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        *error = QStringLiteral("cannot open the directory %1 for %2: %3.")
                     .arg(quoted(target.directory), quoted(spelled), SinkIo::describe(errno));
        return -1;
    }
    // Something may have swapped a link in after the path was resolved: where the opened directory
    // really is decides.
    const QString actual = pathOfDescriptor(fd);
    if (!actual.isEmpty() && !roots.contains(actual)) {
        ::close(fd);
        *error = QStringLiteral("path %1 now leads to %2, outside the sink's roots (a symbolic link was put in its "
                                "way); nothing was written.")
                     .arg(quoted(spelled), quoted(actual));
        return -1;
    }
    return fd;
}

ToolResult FileSink::run(const QString& operation, ToolCallContext& context) const
{
    const json& arguments = context.arguments();
    const QString spelled = QString::fromStdString(arguments.value("path", std::string()));
    const std::string& text = arguments.at("content").get_ref<const std::string&>();
    const bool base64 = arguments.value("encoding", std::string("utf-8")) == "base64";
    const auto failure = [&](const QString& message) { return SinkResult::failure(m_config.name, operation, message); };

    // A base64 text is a third longer than its bytes; anything longer cannot fit, decoded or not.
    const qint64 textLimit = base64 ? m_config.maxBytes / 3 * 4 + 4 : m_config.maxBytes;
    if (qint64(text.size()) > textLimit)
        return failure(QStringLiteral("content is %1 bytes; this sink takes at most %2 bytes per call.")
                           .arg(qint64(text.size()))
                           .arg(m_config.maxBytes));
    QByteArray content = QByteArray::fromStdString(text);
    if (base64) {
        auto decoded = QByteArray::fromBase64Encoding(content, QByteArray::AbortOnBase64DecodingErrors);
        if (!decoded)
            return failure(QStringLiteral("content is not valid base64 (encoding: base64)."));
        content = std::move(*decoded);
        if (content.size() > m_config.maxBytes)
            return failure(QStringLiteral("content is %1 bytes; this sink takes at most %2 bytes per call.")
                               .arg(content.size())
                               .arg(m_config.maxBytes));
    }

    const GitPathPolicy roots(m_config.roots);
    if (!roots.hasRoots())
        return failure(QStringLiteral("the sink's roots (%1) do not exist; the operator must create them.")
                           .arg(m_config.roots.join(QStringLiteral(", "))));
    QString error;
    const std::optional<Target> target = resolve(spelled, roots, &error);
    if (!target)
        return failure(error);
    if (context.isCancelled())
        return failure(QStringLiteral("the call was cancelled; nothing was written."));
    Closer directory{openDirectory(*target, roots, spelled, &error)};
    if (directory.fd < 0)
        return failure(error);
    return operation == QLatin1String("write") ? write(*target, directory.fd, content, context)
                                               : append(*target, directory.fd, content);
}

ToolResult FileSink::write(
    const Target& target, int directoryFd, const QByteArray& content, ToolCallContext& context) const
{
    const QString op = QStringLiteral("write");
    const QByteArray name = QFile::encodeName(target.fileName);
    const auto failure = [&](const QString& what, int code) {
        return SinkResult::failure(m_config.name, op,
            QStringLiteral("cannot write %1: %2%3.")
                .arg(quoted(target.path), what, code ? SinkIo::describe(code) : QString()));
    };
    struct stat existing;
    const bool replacing = ::fstatat(directoryFd, name.constData(), &existing, AT_SYMLINK_NOFOLLOW) == 0;
    if (replacing && !S_ISREG(existing.st_mode))
        return failure(S_ISLNK(existing.st_mode) ? QStringLiteral("it became a symbolic link meanwhile")
                                                 : QStringLiteral("it is not a regular file"),
            0);

    // A short name of its own: the target's name may already be as long as a name can be.
    QByteArray temporary;
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
        temporary = ".sink-write-" + QByteArray::number(QRandomGenerator::global()->generate64(), 16) + ".tmp";
        fd = ::openat(directoryFd, temporary.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
        if (fd < 0 && errno != EEXIST)
            return failure(QStringLiteral("cannot create a temporary file next to it: "), errno);
    }
    if (fd < 0)
        return failure(QStringLiteral("no free temporary name next to it"), 0);
    const auto abandon = [&](const QString& what, int code) {
        ::close(fd);
        ::unlinkat(directoryFd, temporary.constData(), 0);
        return failure(what, code);
    };
    if (replacing && ::fchmod(fd, existing.st_mode & 07777) != 0)
        return abandon(QStringLiteral("cannot keep its permissions: "), errno);
    qint64 written = 0;
    if (const int code = SinkIo::writeAll(fd, content, &written))
        return abandon(QString(), code);
    if (::fsync(fd) != 0)
        return abandon(QString(), errno);
    // The last moment to give up: after the rename the new content is in place.
    if (context.isCancelled())
        return abandon(QStringLiteral("the call was cancelled; the file is unchanged"), 0);
    if (::close(fd) != 0) {
        const int code = errno;
        ::unlinkat(directoryFd, temporary.constData(), 0);
        return failure(QString(), code);
    }
    if (::renameat(directoryFd, temporary.constData(), directoryFd, name.constData()) != 0) {
        const int code = errno;
        ::unlinkat(directoryFd, temporary.constData(), 0);
        return failure(QString(), code);
    }
    // Without this the rename itself could be lost in a power cut.
    ::fsync(directoryFd);
    return SinkResult::success(m_config.name, op,
        QStringLiteral("%1 %2 (%3 bytes).")
            .arg(replacing ? QStringLiteral("Replaced") : QStringLiteral("Created"), target.path)
            .arg(written),
        json{{"path", target.path.toStdString()}, {"bytes", written}, {"created", !replacing}});
}

ToolResult FileSink::append(const Target& target, int directoryFd, const QByteArray& content) const
{
    const QString op = QStringLiteral("append");
    const QByteArray name = QFile::encodeName(target.fileName);
    struct stat before;
    const bool created = ::fstatat(directoryFd, name.constData(), &before, AT_SYMLINK_NOFOLLOW) != 0;
    int code = 0;
    const int fd = SinkIo::openForAppend(directoryFd, name, true, &code);
    if (fd < 0)
        return SinkResult::failure(m_config.name, op,
            QStringLiteral("cannot append to %1: %2.").arg(quoted(target.path), SinkIo::describe(code)));
    // A hard link is the same file under another name, which may lie outside the roots; no path
    // check can see where. (A write replaces the name, so it never reaches the other one.)
    struct stat opened;
    if (::fstat(fd, &opened) != 0 || opened.st_nlink > 1) {
        ::close(fd);
        return SinkResult::failure(m_config.name, op,
            QStringLiteral("cannot append to %1: it has other hard links, which may lie outside the sink's roots; "
                           "use write, or give another file.")
                .arg(quoted(target.path)));
    }
    qint64 written = 0;
    code = SinkIo::writeAll(fd, content, &written);
    ::close(fd);
    if (code) {
        return SinkResult::failure(m_config.name, op,
            QStringLiteral("cannot append to %1: %2%3.")
                .arg(quoted(target.path), SinkIo::describe(code),
                    written ? QStringLiteral(" (%1 of %2 bytes were appended)").arg(written).arg(content.size())
                            : QString()),
            json{{"path", target.path.toStdString()}, {"bytes", written}});
    }
    return SinkResult::success(m_config.name, op,
        QStringLiteral("Appended %1 bytes to %2%3.")
            .arg(written)
            .arg(target.path, created ? QStringLiteral(" (created)") : QString()),
        json{{"path", target.path.toStdString()}, {"bytes", written}, {"created", created}});
}
