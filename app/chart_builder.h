// SPDX-License-Identifier: MIT
// Turns the runs shown (and published figures) into the Timing view's charts and speed-up
// entries: plain data, so the same charts feed the view, the exports and the report.
#pragma once

#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

#include "app_types.h"
#include "chart_spec.h"
#include "kernellab/transpose.h"
#include "published_baselines.h"
#include "speedup_panel.h"

namespace kernellab::app {

struct ChartOptions {
  bool showPublished = true;
  // KernelLab's H200 reference set beside runs of the CPU backend (gpuReference()).
  bool showGpuReference = true;
  // The family whose published figures show when no run is selected (the panel's family).
  kernellab::Family emptyFamily = kernellab::transpose::kFamily;
  // The family to chart when the selection holds several; none: the primary run's.
  std::optional<kernellab::Family> family;
};

struct TimingCharts {
  QVector<widgets::ChartSpec> charts;
  QVector<widgets::SpeedupEntry> speedups;
  kernellab::Family family = kernellab::transpose::kFamily;
};

// The kernel families of the runs shown, the primary run's first, then in order of appearance.
QVector<kernellab::Family> familiesOf(const RunSelection& selection);

// How the shown runs become x categories: by what differs between them (threads per block,
// tile, size, N, K, D, device), or by run when nothing does.
struct CategoryPlan {
  QStringList categories;
  QVector<int> categoryOfRun;   // per run of the input
  QString axisTitle;            // "Threads per block", "N (points)", "Run"
  QString numericField;         // "tpb", "n", ... when one numeric field tells the runs apart
  QVector<double> numberOfRun;  // that field's value per run
};
CategoryPlan planCategories(const QVector<const RunRef*>& runs);

// Charts by family: time per variant (grouped bars, min-max whiskers); transpose bandwidth and
// share of the copy kernel; per-kernel stacked time; score and time per iteration; sweeps as
// lines. Published figures of the family are added when asked.
TimingCharts buildTimingCharts(const RunSelection& selection, const ChartOptions& options,
                               const PublishedBaselines& published = publishedBaselines(),
                               const PublishedBaselines& reference = gpuReference());

// What a report's figure says under it: "Run #3, NVIDIA H200, 2026-11-29 20:07 UTC" (several
// runs listed, a sweep by its first and last point).
QString runsCaption(const QVector<const RunRef*>& runs);

// Score per iteration, one line per variant: from a finished run or live records.
widgets::ChartSpec buildScoreChart(kernellab::Family family,
                                   const QVector<QPair<QString, QVector<kernellab::IterationRecord>>>& series,
                                   const QVector<int>& colorIndex, bool live);

}  // namespace kernellab::app
