// SPDX-License-Identifier: MIT
// Model beside measurement, window side (model_vs_counters.h).
#include "model_vs_counters.h"

#include <QStringList>

namespace kernellab::app {

QVector<widgets::CounterComparison> toRows(const std::vector<kernellab::CounterComparison>& rows) {
  QVector<widgets::CounterComparison> out;
  out.reserve(static_cast<int>(rows.size()));
  for (const kernellab::CounterComparison& r : rows) {
    widgets::CounterComparison c;
    c.variant = QString::fromStdString(r.variant);
    c.kernel = QString::fromStdString(r.kernel);
    c.quantity = QString::fromStdString(r.quantity);
    c.unit = QString::fromStdString(r.unit);
    c.predicted = r.predicted;
    c.measured = r.measured;
    c.hasPrediction = r.hasPrediction;
    c.agrees = r.agrees;
    c.note = QString::fromStdString(r.note);
    out << c;
  }
  return out;
}

QVector<widgets::CounterComparison> accessRows(const RunResult& run, QStringList* skipped) {
  std::vector<std::string> why;
  const auto rows = toRows(kernellab::accessComparison(run, &why));
  if (skipped)
    for (const std::string& w : why) *skipped << QString::fromStdString(w);
  return rows;
}

QVector<widgets::CounterComparison> memoryRows(const RunResult& run) {
  return toRows(kernellab::memoryComparison(run));
}

QVector<widgets::CounterComparison> occupancyRows(const RunResult& run) {
  return toRows(kernellab::occupancyComparison(run));
}

QString countersTitle(const QString& runLabel, const RunResult& run, const QString& what) {
  const QString tool = run.profile ? QString::fromStdString(run.profile->tool)
                                   : QObject::tr("Nsight Compute");
  return QObject::tr("Model beside measurement, run %1: %2 against the GPU's counters (%3, a "
                     "profiled run: its times are the profiler's). Rows marked NO differ by more "
                     "than the tolerance (docs/models.md, \"Model beside measurement\"); a row's "
                     "tooltip says what the model counts and why the two may differ.")
      .arg(runLabel, what, tool);
}

}  // namespace kernellab::app
