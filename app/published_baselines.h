// SPDX-License-Identifier: MIT
// Published figures shown beside measured runs (resources/baselines/published_baselines.json,
// compiled in through resources/kernellab.qrc): the thesis's GTX Titan k-centers table and the
// NVIDIA transpose paper's bandwidths. The same form holds KernelLab's own reference set
// (resources/baselines/h200_reference.json): runs recorded on an NVIDIA H200, shown beside runs
// of the CPU backend so a machine without a GPU shows what the GPU does.
#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>

#include "kernellab/request.h"
#include "kernellab/transpose.h"

namespace kernellab::app {

struct PublishedSeries {        // one variant over the table's axis (k-centers: over TPB)
  QString variant;              // KernelLab variant id it corresponds to
  QString label;                // the source's own name for it
  QVector<double> values;       // parallel to PublishedTable::axisValues
};

struct PublishedDevice {        // one device's row (transpose: GB/s per variant)
  QString device;
  QMap<QString, double> values; // variant id -> value
};

struct PublishedTable {
  QString id;
  kernellab::Family family = kernellab::transpose::kFamily;
  QString device;               // for tables over an axis of one device
  QString metric;               // "time_ms" or "gbps"
  QString unit;                 // "ms" or "GB/s"
  QString axis;                 // "tpb" or "device"
  QVector<double> axisValues;
  QString problem;              // "N=1000000 K=100 D=200", "2048x2048 float32"
  // The problem's numbers by their request field ("n", "k", "d", "rows", "width", ...): a run
  // solved the same problem when its request holds the same values (chart_builder.cpp).
  QMap<QString, double> problemValues;
  double width = 0, height = 0; // transpose tables: the matrix
  bool ownMeasurement = false;  // KernelLab's own run on another device (the H200 reference set)
  QString measured;             // its date, "2026-11-29"
  QString source;               // full citation
  QString shortSource;          // for legends
  QMap<QString, QString> variantLabels;  // variant id -> the source's name
  QVector<PublishedSeries> series;
  QVector<PublishedDevice> devices;
  QStringList notes;
};

struct PublishedBaselines {
  QVector<PublishedTable> tables;
  QString error;                // empty when the resource parsed
  QVector<const PublishedTable*> forFamily(kernellab::Family f) const;
};

PublishedBaselines parsePublishedBaselines(const QByteArray& json);
// The compiled-in tables (parsed once).
const PublishedBaselines& publishedBaselines();
// KernelLab's H200 reference set (parsed once).
const PublishedBaselines& gpuReference();
// "H200, measured 2026-11-29": how a reference table is named in legends and captions.
QString referenceLabel(const PublishedTable& table);

}  // namespace kernellab::app
