// SPDX-License-Identifier: MIT
// Shared look of every view: one colour per variant and cluster, and the unit texts that every
// chart states (one bandwidth unit: decimal GB/s).
#pragma once

#include <QColor>
#include <QString>

namespace kernellab::widgets {

// A qualitative palette that stays distinguishable for the first 12 entries, then cycles hues.
QColor categoricalColor(int index);

// Axis texts, stated on every chart.
inline QString bandwidthAxisLabel() { return QStringLiteral("Effective bandwidth (GB/s, 1 GB = 10^9 B)"); }
inline QString timeAxisLabel() { return QStringLiteral("Time (ms)"); }

}  // namespace kernellab::widgets
