// SPDX-License-Identifier: MIT
// Helpers shared by the test suites: running kernellab-cli, temporary files, GPU skips.
#pragma once

#include <QDir>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <QtTest>

#include "kernellab/backend.h"

namespace kltest {

struct CliRun {
  int exitCode = -1;
  QString out;
  QString err;
};

// Runs kernellab-cli with arguments and optional extra environment ("NAME=value").
inline CliRun runCli(const QStringList& args, const QStringList& env = {}, int timeoutMs = 300000) {
  QProcess p;
  QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
  for (const QString& kv : env) {
    const int eq = kv.indexOf('=');
    e.insert(kv.left(eq), kv.mid(eq + 1));
  }
  p.setProcessEnvironment(e);
  p.start(QStringLiteral(KERNELLAB_CLI_PATH), args);
  CliRun r;
  if (!p.waitForFinished(timeoutMs)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    return r;
  }
  r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  r.out = QString::fromUtf8(p.readAllStandardOutput());
  r.err = QString::fromUtf8(p.readAllStandardError());
  return r;
}

// One CSV line into cells (RFC 4180 quoting: a quoted cell may hold commas, e.g. a device name).
inline QStringList csvCells(const QString& line) {
  QStringList cells{QString()};
  bool quoted = false;
  for (int i = 0; i < line.size(); ++i) {
    const QChar c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      cells.last() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells << QString();
    } else {
      cells.last() += c;
    }
  }
  return cells;
}

// The reason CUDA cannot run here, or an empty string when it can.
inline QString cudaUnavailableReason() {
  const kernellab::BackendStatus s = kernellab::backendStatus();
  if (s.cudaUsable) return {};
  return QString::fromStdString(s.cudaReason);
}

}  // namespace kltest

// Skips the current test function (and, in a gpu-labelled suite, marks it Skipped in CTest)
// with CUDA's own error text.
#define KLTEST_REQUIRE_CUDA()                                                     \
  do {                                                                            \
    const QString reason_ = kltest::cudaUnavailableReason();                      \
    if (!reason_.isEmpty()) QSKIP(qPrintable("no usable CUDA device: " + reason_)); \
  } while (0)
