// SPDX-License-Identifier: MIT
// The pages' preset requests.
#include "page_presets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

#include "kernellab/knn.h"
#include "kernellab/transpose.h"

namespace kernellab::app {

RunRequest transposePreset() {
  RunRequest r;
  r.family = transpose::kFamily;
  r.section<TransposeProblem>().width = 2048;
  r.section<TransposeProblem>().height = 2048;
  r.repetitions = 5;
  r.warmup = 1;
  return r;
}

RunRequest recordedSchedulePreset() {
  RunRequest r = transposePreset();
  r.variants = {"padded", "diagonal"};
  r.section<TransposeProblem>().width = 4096;
  r.section<TransposeProblem>().height = 4096;
  r.recordSchedule = true;
  return r;
}

RunRequest knnPreset() {
  RunRequest r;
  r.family = knn::kFamily;
  KnnProblem& knnProblem = r.section<KnnProblem>();
  knnProblem.rows = 377;
  knnProblem.cols = 329;
  knnProblem.components = 1;
  knnProblem.window = 14;
  knnProblem.k = 8;
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
