// SPDX-License-Identifier: MIT
// What a chart shows, as plain data: the app builds it from results, ChartView draws it, the
// exporters write it (image, CSV, JSON) without a window.
#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

namespace kernellab::widgets {

enum class ChartKind {
  GroupedBars,  // categories on x, one bar per series in each category, optional min-max whiskers
  StackedBars,  // categories on x, the series of a category piled up (per-kernel time)
  Lines,        // numeric x (sweep value, iteration), one line per series
};

struct ChartSeries {
  QString name;             // legend text
  int colorIndex = 0;       // categoricalColor(): a variant keeps its colour in every chart
  bool published = false;   // not measured in the shown runs: a published figure (hatched) or,
  bool reference = false;   // with this set too, KernelLab's own run on another device (the H200
                            // reference set beside CPU runs): cross-hatched, named with date
  bool dashed = false;      // lines: a second measure of the same variant, in its colour, dashed
                            // (pruned k-centers: the points whose sketch it read)
  QString source;           // citation of a published or reference series
  QVector<double> x;        // bars: category index 0..C-1; lines: the x value
  QVector<double> y;        // the value, in the chart's unit
  QVector<double> low;      // optional whisker bottom per point (min); empty = no whiskers
  QVector<double> high;     // optional whisker top per point (max)
  QStringList notes;        // optional extra tooltip line per point (same length as y, or empty)

  int size() const { return static_cast<int>(y.size()); }
  bool hasWhiskers() const { return low.size() == y.size() && high.size() == y.size() && !y.isEmpty(); }
};

struct ChartSpec {
  QString id;               // file-name friendly: "time", "bandwidth", "score"
  QString title;
  ChartKind kind = ChartKind::GroupedBars;
  QString xLabel;           // with the unit where there is one
  QString yLabel;           // always with the unit: "Time (ms)"
  QString unit;             // "ms", "GB/s", "%", "" for a score
  QStringList categories;   // bar charts: the x categories
  QVector<ChartSeries> series;
  bool logX = false;        // line charts whose x spans decades (N sweeps)
  // Logarithmic value axis whatever the view's toggle says: set where measured and reference
  // values lie decades apart (a CPU's 10 GB/s beside an H200's 4,000 GB/s drew no CPU bar).
  bool logY = false;
  QStringList notes;        // shown under the plot and in exports: sources, caveats
  QString caption;          // what a report's figure says under it: runs, devices, dates

  bool isEmpty() const {
    for (const auto& s : series)
      if (!s.y.isEmpty()) return false;
    return true;
  }
};

}  // namespace kernellab::widgets
