// SPDX-License-Identifier: MIT
// Makes the points of a clustering request and their projection off the GUI thread (a million
// points in 200 dimensions take seconds), keeping only the newest request when several queue.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "kernellab/clustering_request.h"
#include "kernellab/request.h"
#include "point_cloud_math.h"
#include "point_source.h"

namespace kernellab::app {

struct LoadedDataset {
  QString key;        // what was asked for (points and projection mode)
  QString pointsKey;  // the points alone
  std::shared_ptr<const DatasetPoints> points;
  std::shared_ptr<const widgets::cloud::CloudGeometry> geometry;
  QString error;      // empty on success
};

class DatasetLoader : public QObject {
  Q_OBJECT
 public:
  explicit DatasetLoader(QObject* parent = nullptr);
  ~DatasetLoader() override;

  // Identifies the points a request runs on (generator settings and seed, or the file).
  static QString pointsKey(const kernellab::ClusteringProblem& problem, uint64_t seed);
  static QString key(const kernellab::ClusteringProblem& problem, uint64_t seed, bool twoD);

  // Loads in the background; asking for what is loaded or loading already does nothing.
  void load(const kernellab::ClusteringProblem& problem, uint64_t seed, bool twoD);
  bool busy() const { return watcher_.isRunning() || next_.has_value(); }
  QString currentKey() const { return current_.key; }
  const LoadedDataset& current() const { return current_; }
  // Blocks until the newest request is loaded (tests, automation).
  void waitForIdle();

 signals:
  void loaded(const kernellab::app::LoadedDataset& dataset);

 private:
  struct Job {
    kernellab::ClusteringProblem problem;
    uint64_t seed = 0;
    bool twoD = false;
    QString key;
  };
  void startJob(const Job& job);
  void jobDone();

  QFutureWatcher<LoadedDataset> watcher_;
  QString runningKey_;
  std::optional<Job> next_;
  LoadedDataset current_;
};

}  // namespace kernellab::app
