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
// KernelLab's own runs on another device (the H200 reference set beside CPU runs): cross-hatched.
QBrush referenceBrush(const QColor& color);

// Axis texts, stated on every chart.
inline QString bandwidthAxisLabel() { return QStringLiteral("Effective bandwidth (GB/s, 1 GB = 10^9 B)"); }
inline QString timeAxisLabel() { return QStringLiteral("Time (ms)"); }

// Shared memory has one unit everywhere: KiB (1 KiB = 1024 B), the unit of CUDA's own limits
// (48 KiB per block by default, 228 KiB per SM on the H200). Exact bytes below 1 KiB.
inline constexpr double kBytesPerKiB = 1024.0;
inline QString sharedMemoryAxisLabel() { return QStringLiteral("Shared memory per block (KiB, 1 KiB = 1024 B)"); }
QString sharedMemoryText(double bytes);  // "4.13 KiB", "512 B"

// A value with its unit for tooltips and tables: 4 significant digits ("12.35 ms", "0.8123 ms",
// "1234 ms"), bandwidth with one decimal, percentages with one decimal.
QString formatValue(double value, const QString& unit);

}  // namespace kernellab::widgets
