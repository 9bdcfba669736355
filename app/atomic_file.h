// SPDX-License-Identifier: MIT
// Files that are either whole or absent: written under a temporary name in the same folder,
// flushed to the disk and renamed over the target, so a kill or a power cut mid-write never
// leaves a half file under the real name.
#pragma once

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace kernellab::app {

// Writes `bytes` to `path` atomically: `<path>.<pid>.part`, fsync, rename, fsync of the folder.
// Returns false and the reason (naming the path) on any failure; the target is then unchanged.
bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error);

// The temporary name writeFileAtomically uses for `path` in this process.
QString partFileName(const QString& path);

// Removes the `.part` files in `directory` whose writer is gone: files tagged with the id of a
// process that no longer runs, and untagged ones (older builds) not touched for `untaggedAgeS`
// seconds. A part file of a live window is left alone. Returns the names removed.
QStringList removeOrphanedParts(const QString& directory, int untaggedAgeS = 600);

}  // namespace kernellab::app
