// SPDX-License-Identifier: MIT
// The pages' preset requests.
#include "page_presets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace kernellab::app {

RunRequest transposePreset() {
  RunRequest r;
  r.family = Family::Transpose;
  r.transpose.width = 2048;
  r.transpose.height = 2048;
  r.repetitions = 5;
  r.warmup = 1;
  return r;
}

RunRequest recordedSchedulePreset() {
  RunRequest r = transposePreset();
  r.variants = {"padded", "diagonal"};
  r.transpose.width = 4096;
  r.transpose.height = 4096;
  r.recordSchedule = true;
  return r;
}

RunRequest knnPreset() {
  RunRequest r;
  r.family = Family::Knn;
  r.knn.rows = 377;
  r.knn.cols = 329;
  r.knn.components = 1;
  r.knn.window = 14;
  r.knn.k = 8;
  r.repetitions = 3;
  r.warmup = 1;
  return r;
}

QString recordedScheduleExample() {
  const QString name = QStringLiteral("docs/data/h200-transpose-4096-schedule.json");
  // A build inside the source tree (build/app/kernellab), then the tree this binary was built from.
  const QStringList roots = {QCoreApplication::applicationDirPath() + QStringLiteral("/../.."),
                             QCoreApplication::applicationDirPath() + QStringLiteral("/.."),
                             QStringLiteral(KERNELLAB_SOURCE_DIR)};
  for (const QString& root : roots) {
    const QFileInfo f(QDir(root).filePath(name));
    if (f.isFile()) return f.canonicalFilePath();
  }
  return {};
}

}  // namespace kernellab::app
