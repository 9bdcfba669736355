// SPDX-License-Identifier: MIT
// Atomic file writes and the clean-up of the temporary files of killed writers.
#include "atomic_file.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSaveFile>

#ifdef Q_OS_UNIX
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#endif

namespace kernellab::app {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("AtomicFile", text); }

#ifdef Q_OS_UNIX
bool processRuns(qint64 pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// The rename is durable only once the folder's entry is on the disk too.
void syncDirectory(const QString& dir) {
  const int fd = ::open(QFile::encodeName(dir).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}
#endif

}  // namespace

QString partFileName(const QString& path) {
  return QStringLiteral("%1.%2.part").arg(path).arg(QCoreApplication::applicationPid());
}

bool writeFileAtomically(const QString& path, const QByteArray& bytes, QString* error) {
#ifdef Q_OS_UNIX
  const QString part = partFileName(path);
  auto fail = [&](const QString& why) {
    QFile::remove(part);
    if (error) *error = why;
    return false;
  };
  QFile f(part);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate))
    return fail(tr("cannot write '%1': %2").arg(part, f.errorString()));
  if (f.write(bytes) != bytes.size() || !f.flush())
    return fail(tr("cannot write '%1': %2").arg(part, f.errorString()));
  // Flushed to the disk before the rename: after a crash the new name holds the whole file.
  if (::fsync(f.handle()) != 0) return fail(tr("cannot flush '%1' to the disk").arg(part));
  f.close();
  if (::rename(QFile::encodeName(part).constData(), QFile::encodeName(path).constData()) != 0)
    return fail(tr("cannot rename '%1' to '%2'").arg(part, path));
  syncDirectory(QFileInfo(path).absolutePath());
  return true;
#else
  // QSaveFile writes a temporary file, flushes it and renames it over the target.
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size() || !f.commit()) {
    if (error) *error = tr("cannot write '%1': %2").arg(path, f.errorString());
    return false;
  }
  return true;
#endif
}

QStringList removeOrphanedParts(const QString& directory, int untaggedAgeS) {
  QStringList removed;
  QDir dir(directory);
  static const QRegularExpression tagged(QStringLiteral("\\.(\\d+)\\.part$"));
  const QDateTime now = QDateTime::currentDateTimeUtc();
  for (const QFileInfo& info :
       dir.entryInfoList({QStringLiteral("*.part")}, QDir::Files | QDir::Hidden)) {
    const QRegularExpressionMatch m = tagged.match(info.fileName());
    bool orphan = false;
    if (m.hasMatch()) {
#ifdef Q_OS_UNIX
      const qint64 pid = m.captured(1).toLongLong();
      orphan = pid != QCoreApplication::applicationPid() && !processRuns(pid);
#endif
    } else {
      orphan = info.lastModified().toUTC().secsTo(now) >= untaggedAgeS;
    }
    if (orphan && QFile::remove(info.absoluteFilePath())) removed << info.fileName();
  }
  return removed;
}

}  // namespace kernellab::app
