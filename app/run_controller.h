// SPDX-License-Identifier: MIT
// Runs experiments on its own thread (the only thread that touches CUDA): a thin adapter between
// kernellab::runExperiment / runSweep and queued Qt signals, like PlotJuggler's FetchWorker.
#pragma once

#include <QObject>
#include <QString>
#include <atomic>

#include "app_types.h"

namespace kernellab::app {

class RunController : public QObject {
  Q_OBJECT
 public:
  // Finished results are written into `historyDir` on this thread (a million labels make a
  // large file), before `finished` reports the path.
  explicit RunController(const QString& historyDir, QObject* parent = nullptr);

  // Any thread: stops every run of generation <= upTo between two launches.
  void requestCancel(quint64 upTo);

 public slots:
  void probe();
  void run(quint64 generation, const kernellab::RunRequest& request,
           const kernellab::app::SweepAxes& axes);

 signals:
  void probed(const QString& summary, const kernellab::BackendStatus& status);
  void started(quint64 generation);
  void progress(quint64 generation, const QString& stage, double fraction);
  void iteration(const kernellab::app::LiveIteration& it);
  void finished(quint64 generation, const kernellab::app::ResultsPtr& file, const QString& path,
                const QString& storeError);
  void failed(quint64 generation, const QString& message, bool badInput);
  void cancelled(quint64 generation);

 private:
  QString historyDir_;
  std::atomic<bool> cancel_{false};
  std::atomic<quint64> cancelUpTo_{0};
};

}  // namespace kernellab::app
