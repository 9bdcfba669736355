// SPDX-License-Identifier: MIT
// Texts about requests and results.
#include "run_text.h"

#include <QObject>
#include <functional>

#include "kernellab/experiment.h"

namespace kernellab::app {

QString fromStd(const std::string& s) { return QString::fromStdString(s); }

QString familyTitle(Family f) {
  switch (f) {
    case Family::Transpose: return QObject::tr("Matrix transpose");
    case Family::KMeans: return QObject::tr("k-means");
    case Family::KCenters: return QObject::tr("k-centers");
    case Family::Knn: return QObject::tr("Window KNN");
  }
  return {};
}

QString variantTitle(Family f, const std::string& id) {
  for (const auto& v : describeVariants(f))
    if (v.id == id) return fromStd(v.title);
  return fromStd(id);
}

int variantColorIndex(Family f, const std::string& id) {
  const auto list = describeVariants(f);
  for (size_t i = 0; i < list.size(); ++i)
    if (list[i].id == id) return static_cast<int>(i);
  // Unknown ids (a file from a newer build) still get a stable colour, after the known ones.
  return 8 + static_cast<int>(std::hash<std::string>{}(id) % 16);
}

QString requestSummary(const RunRequest& r) {
  QString s;
  switch (r.family) {
    case Family::Transpose:
      s = QObject::tr("transpose %1x%2 · TPB %3 · tile %4")
              .arg(r.transpose.width)
              .arg(r.transpose.height)
              .arg(r.launch.threadsPerBlock)
              .arg(r.launch.tile);
      break;
    case Family::KMeans:
    case Family::KCenters: {
      const auto& c = r.clustering;
      const QString data = c.inputPath.empty()
                               ? QObject::tr("N=%L1 K=%2 D=%3").arg(c.n).arg(c.k).arg(c.d)
                               : QObject::tr("%1, K=%2").arg(fromStd(c.inputPath).section('/', -1)).arg(c.k);
      s = QObject::tr("%1 %2 · TPB %3")
              .arg(r.family == Family::KMeans ? QStringLiteral("k-means") : QStringLiteral("k-centers"),
                   data)
              .arg(r.launch.threadsPerBlock);
      break;
    }
    case Family::Knn:
      s = QObject::tr("knn %1x%2x%3 window %4 k=%5 · TPB %6")
              .arg(r.knn.rows)
              .arg(r.knn.cols)
              .arg(r.knn.components)
              .arg(r.knn.window)
              .arg(r.knn.k)
              .arg(r.launch.threadsPerBlock);
      break;
  }
  return s;
}

QString deviceShort(const RunResult& r) {
  const QString name = fromStd(r.device.name);
  if (r.backend == "cuda") return name.isEmpty() ? QObject::tr("GPU") : name;
  return name.isEmpty() ? QObject::tr("CPU") : QObject::tr("CPU (%1)").arg(name);
}

QString clockTitle(const std::string& clock) {
  if (clock == "cuda-events") return QObject::tr("CUDA events");
  if (clock == "cpu-steady-clock") return QObject::tr("CPU steady clock");
  return fromStd(clock);
}

}  // namespace kernellab::app
