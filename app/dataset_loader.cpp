// SPDX-License-Identifier: MIT
// Background loading of clustering points for the Clusters view.
#include "dataset_loader.h"

#include <QCoreApplication>
#include <QtConcurrent/QtConcurrentRun>

#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"

namespace kernellab::app {

DatasetLoader::DatasetLoader(QObject* parent) : QObject(parent) {
  connect(&watcher_, &QFutureWatcher<LoadedDataset>::finished, this, &DatasetLoader::jobDone);
}

DatasetLoader::~DatasetLoader() { watcher_.waitForFinished(); }

QString DatasetLoader::pointsKey(const ClusteringProblem& p, uint64_t seed) {
  if (!p.inputPath.empty()) return QStringLiteral("file:%1").arg(QString::fromStdString(p.inputPath));
  return QStringLiteral("gen:n=%1,k=%2,d=%3,shape=%4,r=%5,noise=%6,seed=%7")
      .arg(p.n)
      .arg(p.k)
      .arg(p.d)
      .arg(QString::fromLatin1(toString(p.shape)))
      .arg(p.radius, 0, 'g', 12)
      .arg(p.noiseFraction, 0, 'g', 12)
      .arg(seed);
}

QString DatasetLoader::key(const ClusteringProblem& p, uint64_t seed, bool twoD) {
  return pointsKey(p, seed) + (twoD ? QStringLiteral("|2d") : QStringLiteral("|3d"));
}

void DatasetLoader::load(const ClusteringProblem& problem, uint64_t seed, bool twoD) {
  Job job{problem, seed, twoD, key(problem, seed, twoD)};
  if (watcher_.isRunning()) {
    if (job.key == runningKey_) {
      next_.reset();
      return;
    }
    next_ = job;  // only the newest waiting request matters
    return;
  }
  if (job.key == current_.key) return;
  startJob(job);
}

void DatasetLoader::startJob(const Job& job) {
  runningKey_ = job.key;
  // Points are reused when only the projection changes (2D <-> 3D).
  std::shared_ptr<const DatasetPoints> reuse;
  const QString pk = pointsKey(job.problem, job.seed);
  if (current_.points && current_.pointsKey == pk) reuse = current_.points;
  watcher_.setFuture(QtConcurrent::run([job, pk, reuse]() {
    LoadedDataset d;
    d.key = job.key;
    d.pointsKey = pk;
    try {
      d.points = reuse ? reuse : std::make_shared<const DatasetPoints>(makeDatasetPoints(job.problem, job.seed));
      const DatasetPoints& pts = *d.points;
      d.geometry = widgets::cloud::makeCloudGeometry(
          pts.values, pts.n, pts.d, job.twoD, pts.total,
          pts.indices.empty() ? nullptr
                              : std::make_shared<const std::vector<int64_t>>(pts.indices));
    } catch (const std::exception& e) {
      d.error = QString::fromStdString(e.what());
      d.points.reset();
    }
    return d;
  }));
}

void DatasetLoader::jobDone() {
  LoadedDataset d = watcher_.result();
  runningKey_.clear();
  if (next_) {
    const Job job = *next_;
    next_.reset();
    if (d.error.isEmpty()) current_ = d;  // keep the points for reuse
    startJob(job);
    return;  // the newer request supersedes this one
  }
  if (d.error.isEmpty()) current_ = d;
  emit loaded(d);
}

void DatasetLoader::waitForIdle() {
  // The finished signal is queued to this thread: let the event loop deliver it.
  while (watcher_.isRunning() || next_) {
    watcher_.waitForFinished();
    QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
  }
}

}  // namespace kernellab::app
