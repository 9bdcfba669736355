// SPDX-License-Identifier: MIT
// Copying a user's input file to an SSH target once per content.
#include "file_staging.h"

#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QMutexLocker>
#include <QProcess>

#include "kernellab/family.h"
#include "targets.h"

namespace kernellab::app {
namespace {

QString tr(const char* text) { return QCoreApplication::translate("FileStager", text); }

constexpr const char* kCacheDir = ".cache/kernellab/inputs";

// Runs ssh with `command`, optionally feeding `input` to it; returns its stdout.
bool runSsh(const QStringList& base, const QString& command, const QString& input, int timeoutMs,
            QByteArray* out, QString* error) {
  QProcess p;
  if (!input.isEmpty()) p.setStandardInputFile(input);
  p.start(QStringLiteral("ssh"), base + QStringList{command});
  if (!p.waitForStarted(10000)) {
    *error = tr("cannot start ssh: %1").arg(p.errorString());
    return false;
  }
  if (input.isEmpty()) p.closeWriteChannel();
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished(2000);
    *error = tr("ssh did not finish within %1 s").arg(timeoutMs / 1000);
    return false;
  }
  if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    *error = tr("ssh exit %1: %2")
                 .arg(p.exitCode())
                 .arg(QString::fromUtf8(p.readAllStandardError()).trimmed());
    return false;
  }
  *out = p.readAllStandardOutput();
  return true;
}

}  // namespace

std::vector<std::string*> requestFiles(RunRequest& r) {
  std::vector<std::string*> files;
  const FamilyDescriptor* family = findFamily(r.family);
  if (family && family->files)
    for (std::string* p : family->files(r))
      if (p && !p->empty()) files.push_back(p);
  return files;
}

QString FileStager::sha256(const QString& path, QString* error) {
  const QFileInfo info(path);
  const QString key = QStringLiteral("%1|%2|%3")
                          .arg(info.absoluteFilePath())
                          .arg(info.size())
                          .arg(info.lastModified().toMSecsSinceEpoch());
  {
    QMutexLocker lock(&mutex_);
    if (const auto it = hashes_.find(key); it != hashes_.end()) return *it;
  }
  QFile f(path);
  if (!info.isFile() || !f.open(QIODevice::ReadOnly)) {
    *error = tr("cannot read '%1'").arg(path);
    return {};
  }
  QCryptographicHash h(QCryptographicHash::Sha256);
  if (!h.addData(&f)) {
    *error = tr("cannot read '%1'").arg(path);
    return {};
  }
  const QString hex = QString::fromLatin1(h.result().toHex());
  QMutexLocker lock(&mutex_);
  hashes_.insert(key, hex);
  return hex;
}

QString FileStager::stage(const QString& targetName, const QStringList& sshBase,
                          const QString& localPath, QString* error) {
  QString why;
  const QString hash = sha256(localPath, &why);
  if (hash.isEmpty()) {
    *error = why;
    return {};
  }
  const QString suffix = QFileInfo(localPath).suffix().toLower();
  const QString name = hash + (suffix.isEmpty() ? QString() : QLatin1Char('.') + suffix);
  // One round trip every run (a few ms over the shared connection, and a cache someone emptied
  // is noticed): the cache folder's absolute path, and whether the file is there already.
  QByteArray out;
  const QString look =
      QStringLiteral("cd && mkdir -p %1 && cd %1 && pwd && if test -s %2; then echo present; fi")
          .arg(QLatin1String(kCacheDir), name);
  if (!runSsh(sshBase, look, QString(), 30000, &out, &why)) {
    *error = tr("cannot look at %1's input cache: %2").arg(targetName, why);
    return {};
  }
  const QStringList lines = QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  if (lines.isEmpty() || !lines.front().startsWith(QLatin1Char('/'))) {
    *error = tr("%1 did not say where its input cache is (it answered '%2')")
                 .arg(targetName, QString::fromUtf8(out).trimmed());
    return {};
  }
  const QString remote = lines.front().trimmed() + QLatin1Char('/') + name;
  if (!lines.contains(QStringLiteral("present"))) {
    // At about 1 MB/s at worst, plus a minute: a slow link is not a hang.
    const int timeoutMs =
        static_cast<int>(std::min<qint64>(QFileInfo(localPath).size() / 1000 + 60000, 3600000));
    const QString copy =
        QStringLiteral("cat > %1.part.$$ && mv -f %1.part.$$ %1").arg(shellQuote(remote));
    if (!runSsh(sshBase, copy, localPath, timeoutMs, &out, &why)) {
      *error = tr("cannot copy '%1' to %2: %3").arg(localPath, targetName, why);
      return {};
    }
    QMutexLocker lock(&mutex_);
    ++uploads_;
  }
  return remote;
}

int FileStager::uploads() const {
  QMutexLocker lock(&mutex_);
  return uploads_;
}

}  // namespace kernellab::app
