#pragma once

// LocalObjectCopy: a local remote's objects put into a new repository before libgit2 fetches from
// it, so the fetch finds every object present and builds no pack. libgit2's local transport
// builds its pack with a delta search on every core that ignores cancellation (minutes for a
// large repository, past any deadline); this copy looks at the call's cancellation between files
// and every MiB. Files are hard-linked where the file system allows (as git's own local clone
// does: objects never change in place), copied otherwise.

#include <QString>
#include <QStringList>

#include <functional>

class LocalObjectCopy
{
public:
    // Copies the object files (loose objects and packs) of the object directories `sources`
    // (canonical, inside the roots) into the objects directory `destination`, skipping files it
    // has. False with `error` when cancelled (`cancelled` returns true; looked at between files and
    // every MiB) or when a file cannot be copied. `progress` hears files done of files in all.
    static bool copy(const QStringList& sources, const QString& destination, const std::function<bool()>& cancelled,
        const std::function<void(qint64 done, qint64 total)>& progress, QString* error);
};
