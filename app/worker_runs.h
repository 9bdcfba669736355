// SPDX-License-Identifier: MIT
// Runs and sweeps in worker processes: on the current target, or a sweep's points spread over
// several targets and over the GPUs of a target (one worker per GPU, CUDA_VISIBLE_DEVICES), the
// results merged into one history entry in the sweep's order. Signals have the shape of
// RunController's, with the same generation numbers, so RunCoordinator treats both alike.
#pragma once

#include <QElapsedTimer>
#include <QHash>
#include <QList>
#include <QMap>
#include <QObject>
#include <QThread>
#include <functional>
#include <memory>
#include <vector>

#include "app_types.h"
#include "file_staging.h"
#include "targets.h"
#include "worker_process.h"

namespace kernellab::app {

// The last probe of a target: its worker's hello, or why none came.
struct TargetInfo {
  bool ok = false;
  bool probing = false;
  QString error;
  WorkerHello hello;
  // GPUs a sweep can spread over (0 on a CPU-only target).
  int gpus() const {
    return ok && hello.status.cudaUsable ? static_cast<int>(hello.status.cudaDevices.size()) : 0;
  }
};

// One worker of a sweep: a target and the GPU it gets (CUDA_VISIBLE_DEVICES), -1 for none.
struct SweepSlot {
  QString target;
  int gpu = -1;
};

// How a sweep spreads: the current target first, then every other usable target that shares
// sweeps; on each, its sweepWorkers workers, or one per GPU (`gpus` says how many a target has;
// a worker per GPU gets that GPU alone, several workers on one GPU share it).
std::vector<SweepSlot> planSweepSlots(const TargetList& targets, const std::function<int(const QString&)>& gpus);

class WorkerRuns : public QObject {
  Q_OBJECT
 public:
  explicit WorkerRuns(const QString& historyDir, QObject* parent = nullptr);
  ~WorkerRuns() override;

  // The targets and which is current. Idle workers of a target that changed or went are ended.
  void setTargets(const TargetList& list);
  const TargetList& targets() const { return targets_; }
  // Starts a worker on the target (kept for the next run) to learn its versions and devices;
  // probed(name) follows.
  void probe(const QString& name);
  TargetInfo info(const QString& name) const { return infos_.value(name); }

  void run(quint64 generation, const kernellab::RunRequest& request, const SweepAxes& axes);
  // Ends the generation's workers now (within a second, even during a kernel); cancelled follows.
  void cancel(quint64 generation);
  bool running() const { return active_ != nullptr; }

  // For tests and the benchmark.
  QList<WorkerProcess*> workers() const;
  int uploads() const { return stager_.uploads(); }
  // The last result's trip: from the worker's send to decoded and checked here (ms).
  double lastResultTransferMs() const { return lastTransferMs_; }
  // How the last run was spread: "gpu-box GPU 0, gpu-box GPU 1" (one slot: its label).
  QString lastSlots() const { return lastSlots_; }

 signals:
  void probed(const QString& target);
  void progress(quint64 generation, const QString& stage, double fraction);
  void iteration(const kernellab::app::LiveIteration& it);
  void finished(quint64 generation, const kernellab::app::ResultsPtr& file, const QString& path,
                const QString& storeError);
  void failed(quint64 generation, const QString& message, bool badInput);
  void cancelled(quint64 generation);

 private:
  struct Slot {
    Target target;
    int gpu = -1;
  };
  struct Point {
    nlohmann::json job;  // without the request (per target: staged paths differ)
    QString label;       // "tpb=256", empty for a single job
    kernellab::RunRequest request;
  };
  struct Active {
    quint64 generation = 0;
    kernellab::RunRequest request;
    SweepAxes axes;
    bool split = false;  // a sweep's points on several workers
    std::vector<Slot> lanes;
    std::vector<Point> points;
    std::vector<std::shared_ptr<const kernellab::RunResult>> runs;  // split: one per point
    ResultsPtr single;                                              // not split: the result
    QMap<QString, kernellab::RunRequest> requests;  // per target, with its staged paths
    QMap<QString, QString> localPaths;              // staged path -> the user's path
    int next = 0;
    int done = 0;
    QMap<WorkerProcess*, int> busy;  // worker -> point
    QMap<int, double> fractions;
    QMap<int, QString> stages;
    QElapsedTimer progressClock;
    bool staged = false;
  };

  WorkerProcess* takeWorker(const Slot& slot);
  void connectWorker(WorkerProcess* w);
  void onHello(WorkerProcess* w);
  void onEvent(WorkerProcess* w, const WorkerEvent& e);
  void onIdle(WorkerProcess* w);
  void onDied(WorkerProcess* w, const QString& message);
  void dispatch(WorkerProcess* w);
  void startSlots();
  void stage();
  void pointDone(int point, std::shared_ptr<const kernellab::RunResult> run);
  void pointFailed(int point, const QString& message);
  void complete();
  void endActive(bool killWorkers);
  void reportProgress(bool force);
  std::vector<Slot> slotsFor(bool sweep) const;
  void retire(WorkerProcess* w);

  QString historyDir_;
  std::unique_ptr<SshSession> ssh_;
  QThread decoderThread_;
  TargetList targets_;
  QHash<QString, TargetInfo> infos_;
  QList<WorkerProcess*> pool_;  // workers without a job: starting, or idle
  std::unique_ptr<Active> active_;
  FileStager stager_;
  qint64 nextJob_ = 1;
  double lastTransferMs_ = -1;
  QString lastSlots_;
};

}  // namespace kernellab::app
