// SPDX-License-Identifier: MIT
// Saved settings and the default request.
#include "app_settings.h"

#include <QObject>

#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"
#include "run_text.h"
#include "view_style.h"

namespace kernellab::app {

RunRequest defaultRequest() {
  RunRequest r;
  r.variants = {"all"};
  if (!describeVariants(Family::KMeans).empty()) {
    // A demo that reads well: a few well-separated clusters, quick on the CPU too.
    r.family = Family::KMeans;
    r.clustering.n = 20000;
    r.clustering.k = 6;
    r.clustering.d = 3;
    r.clustering.shape = DatasetShape::Blobs;
    r.clustering.noiseFraction = 0.02;
    // k-means++ (what scikit-learn users expect): the seed's "first K points" can leave two
    // centers in one blob of this shuffled demo, a lesson for later, not a first impression.
    r.clustering.init = InitMethod::KMeansPlusPlus;
    r.repetitions = 3;
    r.warmup = 1;
  } else {
    r.family = Family::Transpose;
    r.transpose.width = 2048;  // the transpose paper's size, so published figures compare
    r.transpose.height = 2048;
  }
  return r;
}

void saveRequest(QSettings& settings, const RunRequest& request) {
  settings.setValue(QStringLiteral("panel/request"),
                    QString::fromStdString(requestWithAllSections(request).dump()));
}

std::optional<RunRequest> loadSavedRequest(QSettings& settings) {
  const QString text = settings.value(QStringLiteral("panel/request")).toString();
  if (text.isEmpty()) return std::nullopt;
  try {
    return parseRequest(text.toStdString());
  } catch (const std::exception&) {
    return std::nullopt;  // written by a build that had other fields: start from the default
  }
}

QString launchHint(const RunRequest& r, bool* isError) {
  *isError = false;
  if (r.family == Family::Transpose) {
    try {
      const transpose::Geometry g = transpose::makeGeometry(r, transpose::Variant::Padded);
      return QObject::tr("Block %1 x %2 threads; each moves %3 elements per tile column; grid %L4 x %L5 blocks.")
          .arg(g.tile)
          .arg(g.blockRows)
          .arg(g.tile / g.blockRows)
          .arg(g.gridX)
          .arg(g.gridY);
    } catch (const InputError& e) {
      *isError = true;
      return inPanelTerms(QString::fromStdString(e.what()), r.family);
    }
  }
  if (r.family == Family::KMeans || r.family == Family::KCenters) {
    const int tpb = std::max(1, r.launch.threadsPerBlock);
    return QObject::tr("One thread per point: %L1 blocks of %2 threads.")
        .arg((r.clustering.n + tpb - 1) / tpb)
        .arg(tpb);
  }
  if (r.family == Family::Knn) {
    // The occupancy story before anything runs: each variant's shared memory per block.
    try {
      const knn::ImageShape shape = knn::shapeFor(r);
      QStringList shared;
      knn::Geometry g;
      for (const auto& v : knn::variants()) {
        g = knn::makeGeometry(shape, r, v.variant);
        shared << QStringLiteral("%1 %2").arg(QString::fromLatin1(v.id), widgets::sharedMemoryText(double(knn::sharedBytes(g))));
      }
      return QObject::tr("Block %1 x %2 threads (%3); grid %L4 x %L5 blocks. Shared memory per block: %6.")
          .arg(g.blockX)
          .arg(g.blockY)
          .arg(r.launch.blockX > 0 && r.launch.blockY > 0 ? QObject::tr("the block shape; threads per block ignored")
                                                          : QObject::tr("from threads per block"))
          .arg(g.gridX)
          .arg(g.gridY)
          .arg(shared.join(QStringLiteral(", ")));
    } catch (const std::exception& e) {
      *isError = true;
      return inPanelTerms(QString::fromStdString(e.what()), r.family);
    }
  }
  return {};
}

}  // namespace kernellab::app
