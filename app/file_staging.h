// SPDX-License-Identifier: MIT
// A user's points or image file on an SSH target: copied once into the target's cache
// (~/.cache/kernellab/inputs/<sha256>.<ext>) over the shared connection, and reused while its
// content is the same. Generated data is never copied: the worker regenerates it from the seed.
#pragma once

#include <QHash>
#include <QMutex>
#include <QString>
#include <QStringList>
#include <vector>

#include "kernellab/request.h"

namespace kernellab::app {

// The request's fields that name files on the machine that runs it.
std::vector<std::string*> requestFiles(kernellab::RunRequest& r);

class FileStager {
 public:
  // Blocking (call it off the GUI thread). `sshBase` is the ssh client's arguments up to the
  // host (SshSession::baseArguments). Returns the path on the target, or an empty string and
  // the reason.
  QString stage(const QString& targetName, const QStringList& sshBase, const QString& localPath,
                QString* error);
  // Copies made in this session (tests: the second run of the same file copies nothing).
  int uploads() const;

 private:
  QString sha256(const QString& path, QString* error);
  mutable QMutex mutex_;
  QHash<QString, QString> hashes_;  // "path|size|mtime" -> sha256
  int uploads_ = 0;
};

}  // namespace kernellab::app
