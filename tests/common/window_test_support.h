// SPDX-License-Identifier: MIT
// Helpers for the window's test suites: isolated settings and data folders, small requests.
#pragma once

#include <QCoreApplication>
#include <QDir>
#include <QSettings>
#include <QStandardPaths>
#include <QtTest>

#include "kernellab/request.h"
#include "kernellab/transpose.h"

namespace kltest {

// Test mode sends QSettings and QStandardPaths to ~/.qttest; each suite gets its own
// organisation name so suites never share settings or history, and starts from nothing.
inline void isolateAppDirs(const QString& suite) {
  QStandardPaths::setTestModeEnabled(true);
  QCoreApplication::setOrganizationName(QStringLiteral("KernelLabTest"));
  QCoreApplication::setApplicationName(suite);
  QDir(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)).removeRecursively();
  QSettings().clear();
  QSettings().sync();
}

// A transpose the CPU backend runs in well under a second.
inline kernellab::RunRequest smallTranspose(int size = 256) {
  kernellab::RunRequest r;
  r.family = kernellab::transpose::kFamily;
  r.variants = {"copy", "naive", "tiled", "padded", "diagonal"};
  r.section<kernellab::TransposeProblem>().width = size;
  r.section<kernellab::TransposeProblem>().height = size;
  r.repetitions = 3;
  r.warmup = 1;
  r.backend = kernellab::BackendChoice::Cpu;
  return r;
}

inline QString tempPath(const QString& name) {
  const QString dir = qEnvironmentVariable("KERNELLAB_TEST_TMP", QDir::tempPath());
  QDir().mkpath(dir);
  return QDir(dir).filePath(name);
}

}  // namespace kltest
