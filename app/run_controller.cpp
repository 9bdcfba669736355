// SPDX-License-Identifier: MIT
// The worker side of a run.
#include "run_controller.h"

#include <QElapsedTimer>
#include <algorithm>

#include "history_store.h"
#include "kernellab/backend.h"
#include "kernellab/block_executor.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"

namespace kernellab::app {
namespace {

constexpr qint64 kProgressIntervalMs = 40;   // at most 25 progress updates a second
constexpr qint64 kLabelsIntervalMs = 100;    // live labels of a million points: 10 a second

}  // namespace

RunController::RunController(const QString& historyDir, QObject* parent)
    : QObject(parent), historyDir_(historyDir) {}

void RunController::requestCancel(quint64 upTo) {
  quint64 seen = cancelUpTo_.load();
  while (seen < upTo && !cancelUpTo_.compare_exchange_weak(seen, upTo)) {
  }
  cancel_.store(true);
}

void RunController::probe() {
  const BackendStatus s = backendStatus();
  emit probed(QString::fromStdString(backendSummary()), s);
}

void RunController::run(quint64 generation, const RunRequest& request, const SweepAxes& axes) {
  // This thread inherited the GUI thread's vector state; the CPU references run here.
  clearUpperVectorState();
  // Order matters: clear first, then look at the cancel mark, so a cancel that races with the
  // start of this run is never lost (see requestCancel).
  cancel_.store(false);
  if (generation <= cancelUpTo_.load()) cancel_.store(true);
  emit started(generation);

  QElapsedTimer progressClock, labelsClock;
  progressClock.start();
  labelsClock.start();
  double shown = 0;  // progress never goes backwards, whatever a stage reports
  bool first = true;
  RunHooks hooks;
  hooks.cancel = &cancel_;
  hooks.progress = [&](const std::string& stage, double fraction) {
    // Stages change with every iteration and repetition: a few updates a second are plenty.
    if (!first && progressClock.elapsed() < kProgressIntervalMs && fraction < 1.0) return;
    first = false;
    progressClock.restart();
    shown = std::max(shown, std::clamp(fraction, 0.0, 1.0));
    emit progress(generation, QString::fromStdString(stage), shown);
  };
  hooks.iteration = [&](const std::string& variant, const IterationRecord& record,
                        const ClusteringOutput& current) {
    LiveIteration it;
    it.generation = generation;
    it.variant = QString::fromStdString(variant);
    it.record = record;
    // Every record goes out (the score chart needs them all); labels only a few times a second.
    if (labelsClock.elapsed() >= kLabelsIntervalMs && (!current.labels.empty() || !current.centers.empty())) {
      labelsClock.restart();
      it.current = std::make_shared<const ClusteringOutput>(current);
    }
    emit iteration(it);
  };

  try {
    auto file = std::make_shared<ResultsFile>();
    if (axes.empty()) file->runs.push_back(runExperiment(request, hooks));
    else *file = runSweep(request, axes, hooks);
    QString storeError;
    const QString path = HistoryStore::writeRunFile(historyDir_, *file, &storeError);
    emit finished(generation, std::move(file), path, storeError);
  } catch (const Cancelled&) {
    emit cancelled(generation);
  } catch (const InputError& e) {
    emit failed(generation, QString::fromStdString(e.what()), true);
  } catch (const std::exception& e) {
    emit failed(generation, QString::fromStdString(e.what()), false);
  }
  // A sticky CUDA error may have moved every later run to the CPU: say so at once.
  probe();
}

}  // namespace kernellab::app
