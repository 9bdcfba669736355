// SPDX-License-Identifier: MIT
// The window's side of model beside measurement (issue 13): the comparisons of
// kernellab/model_vs_counters.h as rows of the CountersTable widget, and the table's title line.
// accessComparison traces one block per kernel: callers run it off the GUI thread.
#pragma once

#include <QString>
#include <QVector>

#include "counters_table.h"
#include "kernellab/model_vs_counters.h"
#include "kernellab/result.h"

namespace kernellab::app {

QVector<widgets::CounterComparison> toRows(const std::vector<kernellab::CounterComparison>& rows);

QVector<widgets::CounterComparison> accessRows(const RunResult& run, QStringList* skipped = nullptr);
QVector<widgets::CounterComparison> memoryRows(const RunResult& run);
QVector<widgets::CounterComparison> occupancyRows(const RunResult& run);

// "Model beside measurement: run #3 profiled with Nsight Compute (ncu) Version 2025.3.1 ...;
// tolerance ...": the line above a CountersTable.
QString countersTitle(const QString& runLabel, const RunResult& run, const QString& what);

}  // namespace kernellab::app
