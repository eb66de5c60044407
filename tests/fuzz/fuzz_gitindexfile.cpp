// libFuzzer target: bytes as a git index file through GitIndexFile::parse, the reader git_status
// uses before libgit2 sees the file. Whatever it accepts must hold together: paths non-empty and
// no longer than the input, a 20-byte checksum, a root tree of 0 or 20 bytes.

#include "git/gitindexfile.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    GitIndexFile file;
    QString error;
    if (!file.parse(data, size, &error)) {
        if (error.isEmpty()) {
            std::fprintf(stderr, "fuzz_gitindexfile: refused without a reason\n");
            std::abort();
        }
        return 0;
    }
    if (file.checksum().size() != 20 || (!file.rootTree().empty() && file.rootTree().size() != 20)) {
        std::fprintf(stderr, "fuzz_gitindexfile: checksum or root tree of the wrong size\n");
        std::abort();
    }
    std::size_t total = 0;
    for (const GitIndexFile::Entry& entry : file.entries()) {
        // Version 4 rebuilds each path from the one before it: bounded by what the input can say.
        if (entry.path.empty() || entry.path.size() > size * 8) {
            std::fprintf(
                stderr, "fuzz_gitindexfile: a path of %zu bytes from %zu bytes of input\n", entry.path.size(), size);
            std::abort();
        }
        total += entry.path.size();
    }
    (void)total;
    return 0;
}
