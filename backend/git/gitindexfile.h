#pragma once

// GitIndexFile: a repository's index file as stored, read without verifying its checksum: the
// stat data git keeps for every path, so that the working tree can be compared with it before
// libgit2 has read the same file (libgit2 always verifies the whole file's SHA-1 first: about
// 20 ms for 50,000 entries, time in which the tree's files can be stat()ed on another thread).
// Used only to find the paths that may have changed; libgit2 has the last word on each of them,
// and GitStatusScanner checks that both read the same file (checksum()).
//
// Versions 2, 3 and 4 (path compression). An index that refers to another (split index, "link")
// or stores whole directories (sparse index) is not supported: read() says so.

#include <QString>

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

class GitIndexFile
{
public:
    struct Entry
    {
        std::string path;
        std::uint32_t ctimeSeconds = 0;
        std::uint32_t ctimeNanoseconds = 0;
        std::uint32_t mtimeSeconds = 0;
        std::uint32_t mtimeNanoseconds = 0;
        std::uint32_t dev = 0;
        std::uint32_t ino = 0;
        std::uint32_t mode = 0;
        std::uint32_t uid = 0;
        std::uint32_t gid = 0;
        std::uint32_t size = 0; // truncated to 32 bits, as git stores it
        unsigned char id[20] = {}; // the blob's SHA-1
        std::uint16_t flags = 0; // assume-valid 0x8000, extended 0x4000, stage 0x3000, name length
        std::uint16_t extendedFlags = 0; // skip-worktree 0x4000, intent-to-add 0x2000

        int stage() const { return (flags >> 12) & 3; }
        bool assumeValid() const { return flags & 0x8000; }
        bool skipWorktree() const { return extendedFlags & 0x4000; }
        bool intentToAdd() const { return extendedFlags & 0x2000; }
    };

    // Reads `path`. False with `error` when it is missing, malformed or of a kind not supported.
    bool read(const QString& path, QString* error);

    // The same from bytes already read (no file time: every entry counts as racily clean).
    bool parse(const unsigned char* data, std::size_t size, QString* error);

    const std::vector<Entry>& entries() const { return m_entries; }
    unsigned version() const { return m_version; }
    // The trailing SHA-1 of the file as read (git_index_checksum's bytes).
    const std::string& checksum() const { return m_checksum; }
    // The tree the index would write, from its cache-tree extension ("TREE"), when the extension
    // says it is valid for the whole index: 20 bytes, else empty. git and libgit2 invalidate it
    // along every path they change.
    const std::string& rootTree() const { return m_rootTree; }
    // The file's modification time as read: an entry modified at or after it may have changed
    // without its stat data showing it ("racily clean").
    const timespec& modified() const { return m_modified; }
    // Whether `entry` was modified in the file's own second or later: its stat data may match a
    // file whose content changed after the index was written.
    bool isRacilyClean(const Entry& entry) const { return entry.mtimeSeconds >= std::uint32_t(m_modified.tv_sec); }

private:
    void readRootTree(const unsigned char* data, std::size_t size);

    std::vector<Entry> m_entries;
    unsigned m_version = 0;
    std::string m_checksum;
    std::string m_rootTree;
    timespec m_modified{};
};
