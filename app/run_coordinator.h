// SPDX-License-Identifier: MIT
// The window's side of running: owns the worker thread and its RunController, numbers every
// request (generation) so results of superseded runs are dropped, and cancels between launches.
#pragma once

#include <QObject>
#include <QString>
#include <QThread>

#include "app_types.h"

namespace kernellab::app {

class RunController;
class TargetList;
class WorkerRuns;

class RunCoordinator : public QObject {
  Q_OBJECT
 public:
  explicit RunCoordinator(const QString& historyDir, QObject* parent = nullptr);
  ~RunCoordinator() override;

  // Starts a run; a run still going is cancelled and its result will be dropped. Returns the
  // new generation.
  quint64 start(const kernellab::RunRequest& request, const SweepAxes& axes = {});
  // Cancels the current run (between launches).
  void cancel();
  // True while the current generation has not finished, failed or been cancelled.
  bool running() const { return running_; }
  quint64 generation() const { return generation_; }
  QString backendSummary() const { return backendSummary_; }
  bool backendProbed() const { return probed_; }
  // Whether the current target has answered: its worker's hello (or the in-process probe), or
  // why it cannot be reached. Until then nobody knows which variants its backend runs.
  bool backendAnswered() const;
  // The last probe's answer (devices, CUDA's reason); meaningful once backendProbed().
  const kernellab::BackendStatus& backendStatus() const { return status_; }

  // Worker processes (issue 11): with targets set, runs go to a kernellab-cli worker on the
  // current target, unless it is this machine and no CLI is found (then they run in-process).
  // The backend summary and status become the target's (from its worker's hello).
  void setTargets(const TargetList& targets);
  WorkerRuns* workers() const { return workers_; }
  bool usingWorkers() const;
  // "gpu-box (SSH)", or "This machine"; with "(in-process)" when no worker is used.
  QString targetLabel() const;

 signals:
  void backendChanged(const QString& summary, bool cudaUsable);
  void backendStatusChanged(const kernellab::BackendStatus& status);
  void started(const kernellab::RunRequest& request, const kernellab::app::SweepAxes& axes);
  void progress(const QString& stage, double fraction);
  void iteration(const kernellab::app::LiveIteration& it);
  // Every run that completed, current or superseded, with where it was saved: the history
  // keeps them all. `current` says whether it is the one the window waits for.
  void stored(const kernellab::app::ResultsPtr& file, const QString& path, bool current,
              const QString& storeError);
  void failed(const QString& message, bool badInput);
  void cancelled();
  void settled();  // the current generation ended, in any way

 private:
  void end(quint64 generation);

  template <class Runner>
  void connectRunner(Runner* runner);
  void showTarget();

  QString historyDir_;
  QThread thread_;
  RunController* controller_ = nullptr;
  WorkerRuns* workers_ = nullptr;
  bool workerRun_ = false;  // the current generation runs in a worker
  quint64 generation_ = 0;
  bool running_ = false;
  QString backendSummary_;
  kernellab::BackendStatus status_;
  bool probed_ = false;
};

}  // namespace kernellab::app
