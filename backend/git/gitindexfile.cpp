#include "git/gitindexfile.h"

#include <QFile>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace {

constexpr std::size_t HashSize = 20; // SHA-1: libgit2 1.5 reads nothing else
constexpr std::size_t HeaderSize = 12;
constexpr std::size_t EntryFixedSize = 40 + HashSize + 2; // ten 32-bit stat fields, the id, flags
constexpr std::uint32_t SparseDirectoryMode = 040000;
// Far beyond any real index (a million entries take about 100 MB).
constexpr std::size_t MaxFileSize = std::size_t(1) << 30;

std::uint32_t be32(const unsigned char* p)
{
    return (std::uint32_t(p[0]) << 24) | (std::uint32_t(p[1]) << 16) | (std::uint32_t(p[2]) << 8) | std::uint32_t(p[3]);
}

std::uint16_t be16(const unsigned char* p)
{
    return std::uint16_t((p[0] << 8) | p[1]);
}

} // namespace

bool GitIndexFile::read(const QString& path, QString* error)
{
    m_entries.clear();
    m_rootTree.clear();
    const QByteArray native = QFile::encodeName(path);
    const int fd = ::open(native.constData(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *error = QStringLiteral("cannot open %1: %2").arg(path, QString::fromLocal8Bit(std::strerror(errno)));
        return false;
    }
    struct stat info;
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        ::close(fd);
        *error = QStringLiteral("%1 is not a regular file").arg(path);
        return false;
    }
    m_modified = info.st_mtim;
    const auto size = std::size_t(info.st_size);
    if (size < HeaderSize + HashSize) {
        ::close(fd);
        *error = QStringLiteral("%1 is too short for an index").arg(path);
        return false;
    }
    if (size > MaxFileSize) {
        ::close(fd);
        *error = QStringLiteral("%1 is larger than %2 bytes").arg(path).arg(MaxFileSize);
        return false;
    }
    // Read, not mapped: a file truncated by another process under a mapping would crash the
    // reader (SIGBUS); git and libgit2 replace the index by renaming, but nothing else need.
    std::vector<unsigned char> data(size);
    std::size_t done = 0;
    while (done < size) {
        const ssize_t got = ::read(fd, data.data() + done, size - done);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        done += std::size_t(got);
    }
    ::close(fd);
    if (done != size) {
        *error = QStringLiteral("%1 changed while it was read").arg(path);
        return false;
    }
    const bool ok = parse(data.data(), size, error);
    if (!ok) {
        m_entries.clear();
        *error = QStringLiteral("%1: %2").arg(path, *error);
    }
    return ok;
}

void GitIndexFile::readRootTree(const unsigned char* data, std::size_t size)
{
    // The root entry comes first: its path "" (a NUL), the entry count in ASCII ("-1" when
    // invalid), a space, the subtree count, a newline, then the tree id when valid.
    if (size < 1 || data[0] != 0)
        return;
    const char* text = reinterpret_cast<const char*>(data + 1);
    const void* newline = std::memchr(text, '\n', size - 1);
    if (!newline)
        return;
    const std::string line(text, std::size_t(static_cast<const char*>(newline) - text));
    if (line.empty() || line[0] == '-')
        return;
    const std::size_t idAt = 1 + line.size() + 1;
    if (size < idAt + HashSize)
        return;
    m_rootTree.assign(reinterpret_cast<const char*>(data + idAt), HashSize);
}

bool GitIndexFile::parse(const unsigned char* data, std::size_t size, QString* error)
{
    m_entries.clear();
    m_rootTree.clear();
    m_checksum.clear();
    if (size < HeaderSize + HashSize) {
        *error = QStringLiteral("too short for an index");
        return false;
    }
    if (std::memcmp(data, "DIRC", 4) != 0) {
        *error = QStringLiteral("not an index file (no DIRC signature)");
        return false;
    }
    m_version = be32(data + 4);
    if (m_version < 2 || m_version > 4) {
        *error = QStringLiteral("index version %1 is not supported").arg(m_version);
        return false;
    }
    const std::uint32_t count = be32(data + 8);
    const std::size_t end = size - HashSize; // the checksum follows entries and extensions
    if (count > end / EntryFixedSize) {
        *error = QStringLiteral("%1 entries cannot fit in the file").arg(count);
        return false;
    }
    m_checksum.assign(reinterpret_cast<const char*>(data + end), HashSize);
    m_entries.resize(count);
    std::size_t offset = HeaderSize;
    std::string previous; // version 4 compresses each path against the one before it
    for (std::uint32_t i = 0; i < count; ++i) {
        if (end - offset < EntryFixedSize) {
            *error = QStringLiteral("entry %1 is cut short").arg(i);
            return false;
        }
        const unsigned char* p = data + offset;
        Entry& entry = m_entries[i];
        entry.ctimeSeconds = be32(p);
        entry.ctimeNanoseconds = be32(p + 4);
        entry.mtimeSeconds = be32(p + 8);
        entry.mtimeNanoseconds = be32(p + 12);
        entry.dev = be32(p + 16);
        entry.ino = be32(p + 20);
        entry.mode = be32(p + 24);
        entry.uid = be32(p + 28);
        entry.gid = be32(p + 32);
        entry.size = be32(p + 36);
        std::memcpy(entry.id, p + 40, HashSize);
        entry.flags = be16(p + 40 + HashSize);
        std::size_t fixed = EntryFixedSize;
        if (entry.flags & 0x4000) {
            if (m_version < 3 || end - offset < fixed + 2) {
                *error = QStringLiteral("entry %1 has extended flags it cannot have").arg(i);
                return false;
            }
            entry.extendedFlags = be16(p + fixed);
            fixed += 2;
        }
        if (entry.mode == SparseDirectoryMode) {
            *error = QStringLiteral("a sparse index (whole directories as entries) is not supported");
            return false;
        }
        std::size_t at = offset + fixed;
        if (m_version == 4) {
            // How many bytes of the previous path to drop: git's offset varint (decode_varint).
            if (at >= end) {
                *error = QStringLiteral("entry %1's path prefix is cut short").arg(i);
                return false;
            }
            unsigned char byte = data[at++];
            std::size_t drop = byte & 0x7f;
            for (int more = 0; byte & 0x80; ++more) {
                if (at >= end || more == 8) {
                    *error = QStringLiteral("entry %1's path prefix is malformed").arg(i);
                    return false;
                }
                byte = data[at++];
                drop = ((drop + 1) << 7) | (byte & 0x7f);
            }
            if (drop > previous.size()) {
                *error = QStringLiteral("entry %1 drops more of the previous path than it has").arg(i);
                return false;
            }
            const void* nul = std::memchr(data + at, 0, end - at);
            if (!nul) {
                *error = QStringLiteral("entry %1's path is not terminated").arg(i);
                return false;
            }
            const std::size_t length = std::size_t(static_cast<const unsigned char*>(nul) - (data + at));
            previous.resize(previous.size() - drop);
            previous.append(reinterpret_cast<const char*>(data + at), length);
            entry.path = previous;
            offset = at + length + 1;
        } else {
            const void* nul = std::memchr(data + at, 0, end - at);
            if (!nul) {
                *error = QStringLiteral("entry %1's path is not terminated").arg(i);
                return false;
            }
            const std::size_t length = std::size_t(static_cast<const unsigned char*>(nul) - (data + at));
            entry.path.assign(reinterpret_cast<const char*>(data + at), length);
            // NUL padding to a multiple of eight bytes, at least one.
            const std::size_t entrySize = (fixed + length + 8) & ~std::size_t(7);
            if (entrySize > end - offset) {
                *error = QStringLiteral("entry %1's padding runs past the entries").arg(i);
                return false;
            }
            offset += entrySize;
        }
        if (entry.path.empty()) {
            // A split index's entries that replace the shared index's have no path.
            *error = QStringLiteral("entry %1 has an empty path: a split index is not supported").arg(i);
            return false;
        }
    }
    // Extensions: a split index keeps most entries in another file.
    while (end - offset >= 8) {
        const unsigned char* p = data + offset;
        const std::uint32_t extensionSize = be32(p + 4);
        if (std::memcmp(p, "link", 4) == 0) {
            *error = QStringLiteral("a split index (the \"link\" extension) is not supported");
            return false;
        }
        if (std::memcmp(p, "sdir", 4) == 0) {
            *error = QStringLiteral("a sparse index (the \"sdir\" extension) is not supported");
            return false;
        }
        if (extensionSize > end - offset - 8) {
            *error = QStringLiteral("an extension runs past the end of the file");
            return false;
        }
        if (std::memcmp(p, "TREE", 4) == 0)
            readRootTree(p + 8, extensionSize);
        offset += 8 + extensionSize;
    }
    return true;
}
