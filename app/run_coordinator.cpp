// SPDX-License-Identifier: MIT
// Generation numbers, cancel, and the worker thread's lifetime.
#include "run_coordinator.h"

#include "run_controller.h"

namespace kernellab::app {

RunCoordinator::RunCoordinator(const QString& historyDir, QObject* parent) : QObject(parent) {
  registerMetaTypes();
  controller_ = new RunController(historyDir);
  controller_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, controller_, &QObject::deleteLater);
  thread_.setObjectName(QStringLiteral("kernellab-runner"));

  // Every connection is queued: the controller's signals come from the worker thread.
  connect(controller_, &RunController::probed, this, [this](const QString& summary, const BackendStatus& status) {
    backendSummary_ = summary;
    status_ = status;
    probed_ = true;
    emit backendChanged(summary, status.cudaUsable);
    emit backendStatusChanged(status);
  });
  connect(controller_, &RunController::progress, this,
          [this](quint64 gen, const QString& stage, double fraction) {
            if (gen == generation_ && running_) emit progress(stage, fraction);
          });
  connect(controller_, &RunController::iteration, this, [this](const LiveIteration& it) {
    if (it.generation == generation_ && running_) emit iteration(it);
  });
  connect(controller_, &RunController::finished, this,
          [this](quint64 gen, const ResultsPtr& file, const QString& path, const QString& storeError) {
            const bool current = gen == generation_ && running_;
            emit stored(file, path, current, storeError);
            if (current) end(gen);
          });
  connect(controller_, &RunController::failed, this,
          [this](quint64 gen, const QString& message, bool badInput) {
            if (gen != generation_ || !running_) return;
            emit failed(message, badInput);
            end(gen);
          });
  connect(controller_, &RunController::cancelled, this, [this](quint64 gen) {
    if (gen != generation_ || !running_) return;
    emit cancelled();
    end(gen);
  });
  thread_.start();
  // The first CUDA call (device probe) happens on the worker thread, never on the GUI thread.
  QMetaObject::invokeMethod(controller_, &RunController::probe, Qt::QueuedConnection);
}

RunCoordinator::~RunCoordinator() {
  controller_->requestCancel(generation_);
  thread_.quit();
  thread_.wait();
}

quint64 RunCoordinator::start(const RunRequest& request, const SweepAxes& axes) {
  if (running_) controller_->requestCancel(generation_);
  const quint64 gen = ++generation_;
  running_ = true;
  emit started(request, axes);
  RunController* c = controller_;
  QMetaObject::invokeMethod(
      controller_, [c, gen, request, axes] { c->run(gen, request, axes); }, Qt::QueuedConnection);
  return gen;
}

void RunCoordinator::cancel() {
  if (running_) controller_->requestCancel(generation_);
}

void RunCoordinator::end(quint64) {
  running_ = false;
  emit settled();
}

}  // namespace kernellab::app
