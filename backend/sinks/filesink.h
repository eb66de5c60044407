#pragma once

// FileSink: a sink of type `file`: `write` replaces a file and `append` adds to one, always below
// one of the sink's roots. A path is relative to the first root or absolute inside a root; where it
// leads counts, not how it is spelled: its existing part is resolved (symlinks followed) and must
// stay inside a root, ".." is refused, and a symbolic link that leads out of the roots (as the last
// component, or as a directory on the way) is refused. The final steps run on a descriptor of the
// verified directory with O_NOFOLLOW, so a link swapped in meanwhile is not followed either.
//
// A write is atomic: a temporary file in the same directory, fsync, rename over the target, fsync
// of the directory (as WorkspaceStateFile does), so a reader sees the old file or the new one,
// never half of it; a replaced file keeps its permissions.

#include "sinks/sink.h"

#include <optional>

class GitPathPolicy;

class FileSink : public Sink
{
public:
    using Sink::Sink;

    std::vector<SinkOperation> operations() const override;
    qint64 deadlineMs() const override { return 60'000; }
    ToolResult run(const QString& operation, ToolCallContext& context) const override;

    // Roots that do not exist or are not directories (calls fail until they do), for the operator.
    QStringList problems() const;

private:
    struct Target
    {
        QString path; // canonical directory + '/' + fileName
        QString directory; // canonical
        QString fileName;
        QStringList missingDirectories; // to create, outermost first
        bool exists = false;
    };

    std::optional<Target> resolve(const QString& path, const GitPathPolicy& roots, QString* error) const;
    // Creates the missing directories and opens the target's directory, checking that it is still
    // inside the roots. Returns the descriptor, or -1 with `error`.
    int openDirectory(const Target& target, const GitPathPolicy& roots, const QString& spelled, QString* error) const;
    ToolResult write(const Target& target, int directoryFd, const QByteArray& content, ToolCallContext& context) const;
    ToolResult append(const Target& target, int directoryFd, const QByteArray& content) const;
};
