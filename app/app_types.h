// SPDX-License-Identifier: MIT
// Types the window passes between its parts and across the worker thread (registered metatypes).
#pragma once

#include <QMetaType>
#include <QString>
#include <QVector>
#include <functional>
#include <memory>
#include <vector>

#include "kernellab/request.h"
#include "kernellab/result.h"

namespace kernellab::app {

using ResultsPtr = std::shared_ptr<const kernellab::ResultsFile>;
using ClusteringPtr = std::shared_ptr<const kernellab::ClusteringOutput>;
using SweepAxes = std::vector<kernellab::SweepAxis>;

// One run as the views see it: which history entry it is, and a short label for legends.
struct RunRef {
  ResultsPtr file;
  int index = 0;       // the run within the file (sweeps hold several)
  QString entryId;     // history entry id
  QString label;       // "#12", or "#12 tpb=64" for a sweep point
  const kernellab::RunResult& run() const { return file->runs[static_cast<size_t>(index)]; }
};

// What the views show: every run compared (checked in the history), and the one that views
// showing a single run (the Clusters view) take.
struct RunSelection {
  QVector<RunRef> runs;
  int primary = -1;
  bool empty() const { return runs.isEmpty(); }
  const RunRef* primaryRun() const {
    return primary >= 0 && primary < runs.size() ? &runs[primary] : nullptr;
  }
  // The run a single-run view shows: the primary run when it fits, otherwise the newest fitting
  // run of the selection; null when none fits.
  const RunRef* pick(const std::function<bool(const kernellab::RunResult&)>& fits) const;
};

// One live k-means iteration (or k-centers center) of the run in progress.
struct LiveIteration {
  quint64 generation = 0;
  QString variant;
  kernellab::IterationRecord record;
  ClusteringPtr current;  // labels and centers so far; null when throttled away
};

// Registers the metatypes above and the gpu/ types that cross threads. Call once, early.
void registerMetaTypes();

}  // namespace kernellab::app

Q_DECLARE_METATYPE(kernellab::RunRequest)
Q_DECLARE_METATYPE(kernellab::BackendStatus)
Q_DECLARE_METATYPE(kernellab::app::ResultsPtr)
Q_DECLARE_METATYPE(kernellab::app::SweepAxes)
Q_DECLARE_METATYPE(kernellab::app::LiveIteration)
