#pragma once

// StateDirectory: the directory holding history, workspace state and the token. Everything in it
// is the operator's alone: the directory is 0700, whatever the umask, and one left more open by an
// older version is tightened.

#include <QString>

namespace StateDirectory {

// Creates `path` (and missing parents) if needed and makes it owner-only (0700).
bool prepare(const QString& path, QString* error);

} // namespace StateDirectory
