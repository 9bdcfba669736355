// SPDX-License-Identifier: MIT
// Generation numbers, cancel, and the worker thread's lifetime.
#include "run_coordinator.h"

#include "run_controller.h"
#include "targets.h"
#include "worker_runs.h"

namespace kernellab::app {

RunCoordinator::RunCoordinator(const QString& historyDir, QObject* parent)
    : QObject(parent), historyDir_(historyDir) {
  registerMetaTypes();
  controller_ = new RunController(historyDir);
  controller_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, controller_, &QObject::deleteLater);
  thread_.setObjectName(QStringLiteral("kernellab-runner"));

  connect(controller_, &RunController::probed, this,
          [this](const QString& summary, const BackendStatus& status) {
            if (usingWorkers()) return;  // the current target's worker speaks for the backend
            backendSummary_ = summary;
            status_ = status;
            probed_ = true;
            emit backendChanged(summary, status.cudaUsable);
            emit backendStatusChanged(status);
          });
  connectRunner(controller_);
  thread_.start();
  // The first CUDA call (device probe) happens on the worker thread, never on the GUI thread.
  QMetaObject::invokeMethod(controller_, &RunController::probe, Qt::QueuedConnection);
}

// The controller (its signals queued from its thread) and the workers report alike: a result of
// a superseded generation is kept (stored) but is not the window's business otherwise.
template <class Runner>
void RunCoordinator::connectRunner(Runner* runner) {
  connect(runner, &Runner::progress, this,
          [this](quint64 gen, const QString& stage, double fraction) {
            if (gen == generation_ && running_) emit progress(stage, fraction);
          });
  connect(runner, &Runner::iteration, this, [this](const LiveIteration& it) {
    if (it.generation == generation_ && running_) emit iteration(it);
  });
  connect(
      runner, &Runner::finished, this,
      [this](quint64 gen, const ResultsPtr& file, const QString& path, const QString& storeError) {
        const bool current = gen == generation_ && running_;
        emit stored(file, path, current, storeError);
        if (current) end(gen);
      });
  connect(runner, &Runner::failed, this,
          [this](quint64 gen, const QString& message, bool badInput) {
            if (gen != generation_ || !running_) return;
            emit failed(message, badInput);
            end(gen);
          });
  connect(runner, &Runner::cancelled, this, [this](quint64 gen) {
    if (gen != generation_ || !running_) return;
    emit cancelled();
    end(gen);
  });
}

void RunCoordinator::setTargets(const TargetList& targets) {
  if (!workers_) {
    workers_ = new WorkerRuns(historyDir_, this);
    connectRunner(workers_);
    connect(workers_, &WorkerRuns::probed, this, [this](const QString& name) {
      if (name == workers_->targets().current()) showTarget();
    });
  }
  const QString before = workers_->targets().current();
  workers_->setTargets(targets);
  if (usingWorkers()) {
    showTarget();
    const TargetInfo info = workers_->info(targets.current());
    if (!info.ok && !info.probing) workers_->probe(targets.current());
  } else if (before != targets.current()) {
    QMetaObject::invokeMethod(controller_, &RunController::probe, Qt::QueuedConnection);
  }
}

bool RunCoordinator::usingWorkers() const {
  return workers_ && (!workers_->targets().currentTarget().isLocal() || !localCliPath().isEmpty());
}

bool RunCoordinator::backendAnswered() const {
  if (!usingWorkers()) return probed_;
  const TargetInfo info = workers_->info(workers_->targets().current());
  return info.ok || (!info.probing && !info.error.isEmpty());
}

QString RunCoordinator::targetLabel() const {
  if (!workers_) return kLocalTargetName + tr(" (in-process)");
  const Target& t = workers_->targets().currentTarget();
  return usingWorkers() ? t.label() : t.label() + tr(" (in-process: no kernellab-cli found)");
}

// The current target's backend, as its worker said it in its hello (or why there is none).
void RunCoordinator::showTarget() {
  const TargetInfo info = workers_->info(workers_->targets().current());
  if (info.ok) {
    backendSummary_ = info.hello.summary;
    status_ = info.hello.status;
  } else {
    backendSummary_ = info.probing || info.error.isEmpty()
                          ? tr("connecting...")
                          : tr("not reachable: %1").arg(info.error);
    status_ = BackendStatus{};
    status_.cudaReason = backendSummary_.toStdString();
  }
  probed_ = info.ok;
  emit backendChanged(backendSummary_, status_.cudaUsable);
  emit backendStatusChanged(status_);
}

RunCoordinator::~RunCoordinator() {
  delete workers_;  // its workers end now
  workers_ = nullptr;
  controller_->requestCancel(generation_);
  thread_.quit();
  thread_.wait();
}

quint64 RunCoordinator::start(const RunRequest& request, const SweepAxes& axes) {
  // The run still going is superseded: in-process it stops between launches; a worker's ends
  // now (WorkerRuns::run does it when the new run goes to workers too).
  if (running_ && !workerRun_) controller_->requestCancel(generation_);
  if (running_ && workerRun_ && !usingWorkers()) workers_->cancel(generation_);
  const quint64 gen = ++generation_;
  running_ = true;
  emit started(request, axes);
  workerRun_ = usingWorkers();
  if (workerRun_) {
    workers_->run(gen, request, axes);
    return gen;
  }
  RunController* c = controller_;
  QMetaObject::invokeMethod(
      controller_, [c, gen, request, axes] { c->run(gen, request, axes); }, Qt::QueuedConnection);
  return gen;
}

void RunCoordinator::cancel() {
  if (!running_) return;
  if (workerRun_)
    workers_->cancel(generation_);  // ends the worker now, even inside a kernel
  else
    controller_->requestCancel(generation_);
}

void RunCoordinator::end(quint64) {
  running_ = false;
  emit settled();
}

}  // namespace kernellab::app
