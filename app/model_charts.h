// SPDX-License-Identifier: MIT
// The model pages' charts as plain data (ChartSpec), for "Export charts" and the report: the
// partition load of the block-schedule model, sectors and shared-memory passes of the access
// model, occupancy curves and the device cross-check, and the KNN variants' time and occupancy.
#pragma once

#include <QString>
#include <QVector>

#include "chart_spec.h"
#include "kernellab/access_model.h"
#include "kernellab/occupancy.h"
#include "kernellab/result.h"
#include "kernellab/schedule_model.h"

namespace kernellab::app {

// Busiest partition's share of each wave's writes, Cartesian and diagonal (id "partition-share").
widgets::ChartSpec partitionShareChart(const schedule::Model& cartesian, const schedule::Model& diagonal,
                                       const QString& context);
// KiB each partition receives from one wave's writes, both mappings (id "wave-load").
widgets::ChartSpec waveLoadChart(const schedule::Model& cartesian, const schedule::Model& diagonal, int wave,
                                 const QString& context);
// Blocks running at once over time, one line per recorded variant (id "gantt-concurrency").
widgets::ChartSpec recordedConcurrencyChart(const RunResult& run);

// One warp's global sectors against the ideal, and its shared-memory passes against the ideal,
// for every variant in `reports` (ids "sectors", "shared-memory").
QVector<widgets::ChartSpec> accessCharts(const QVector<access::WarpReport>& reports, const QString& context);

// Occupancy against threads per block, registers and shared memory (ids "threads", "registers",
// "shared-memory").
QVector<widgets::ChartSpec> occupancyCharts(const occupancy::ArchSpec& arch, const occupancy::Input& input);
// Blocks per SM from the CUDA occupancy API next to the calculator's, per kernel
// (id "device"); empty when there is nothing to compare.
widgets::ChartSpec occupancyDeviceChart(const std::vector<occupancy::DeviceCheck>& checks, const QString& device);

// KNN variants: median time with min-max whiskers (id "time"), shared memory per block
// ("shared-memory") and resident blocks per SM when the run knows them ("blocks"). Chart ids are
// unique within a page; exports prefix the page ("knn-time.png").
QVector<widgets::ChartSpec> knnCharts(const RunResult& run);

}  // namespace kernellab::app
