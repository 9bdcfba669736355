// SPDX-License-Identifier: MIT
// Shared look of every view: one colour per variant and cluster, and the unit texts that every
// chart states (one bandwidth unit: decimal GB/s).
#pragma once

#include <QBrush>
#include <QColor>
#include <QString>

namespace kernellab::widgets {

// A qualitative palette that stays distinguishable for the first 12 entries, then cycles hues.
QColor categoricalColor(int index);

// Published figures are drawn with the colour of the variant they correspond to, hatched, so
// "same colour = same variant, hatched = published, not measured here" reads at a glance.
QBrush publishedBrush(const QColor& color);

// Axis texts, stated on every chart.
inline QString bandwidthAxisLabel() { return QStringLiteral("Effective bandwidth (GB/s, 1 GB = 10^9 B)"); }
inline QString timeAxisLabel() { return QStringLiteral("Time (ms)"); }

// A value with its unit for tooltips and tables: 4 significant digits ("12.35 ms", "0.8123 ms",
// "1234 ms"), bandwidth with one decimal, percentages with one decimal.
QString formatValue(double value, const QString& unit);

}  // namespace kernellab::widgets
