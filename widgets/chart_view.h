// SPDX-License-Identifier: MIT
// Draws a ChartSpec with QCustomPlot: grouped bars with min-max whiskers, stacked bars, lines;
// linear or log y; hover tooltips with the exact values. QCustomPlot stays behind this header.
#pragma once

#include <QHash>
#include <QVector>
#include <QWidget>

#include "chart_spec.h"

class QCustomPlot;
class QCPAbstractPlottable;
class QLabel;
class QScrollArea;
class QStackedLayout;

namespace kernellab::widgets {

// Which spec point each plotted data index is, for tooltips and tests.
struct PlottedSeries {
  int series = -1;              // index into ChartSpec::series
  QVector<int> pointOfData;     // plottable data index -> point index within the series
};
using PlotIndex = QHash<const QCPAbstractPlottable*, PlottedSeries>;

// Fills `plot` (fresh or already used) from `spec`. Returns which plottable shows which series.
// Size the plot first: the layout fits its width (see fitToWidth).
PlotIndex populatePlot(QCustomPlot* plot, const ChartSpec& spec, bool logY);
// Fits a populated plot to its width: title and notes wrapped, the legend beside the plot or
// below it in columns, category labels whole (one line, broken at " · ", or slanted). Again
// after every resize.
void fitToWidth(QCustomPlot* plot, const ChartSpec& spec);
// The height the plot needs after fitToWidth: title, notes, the legend and room for the axes.
int chartHeightNeeded(QCustomPlot* plot);

// The tooltip text of one point: series, category or x, exact value with unit, min and max,
// source of a published figure.
QString pointTooltip(const ChartSpec& spec, int series, int point);

class ChartView : public QWidget {
  Q_OBJECT
 public:
  explicit ChartView(QWidget* parent = nullptr);

  void setChart(const ChartSpec& spec);
  const ChartSpec& chart() const { return spec_; }
  void setLogScale(bool on);
  bool logScale() const { return logY_; }
  // Shown instead of the plot while the chart has no data.
  void setPlaceholder(const QString& text);

  // For tests and exports inside widgets/: the plot and its index.
  QCustomPlot* plot() const { return plot_; }
  const PlotIndex& plotIndex() const { return index_; }

 signals:
  void pointHovered(const QString& tooltip);

 protected:
  bool eventFilter(QObject* watched, QEvent* e) override;

 private:
  void rebuild();
  // The scroll area's plot asks for the height its fitted layout needs (at least 220 px).
  void fitPlotHeight();
  void showTooltipAt(const QPoint& pos);

  QScrollArea* scroll_ = nullptr;
  QCustomPlot* plot_ = nullptr;
  QLabel* placeholder_ = nullptr;
  QStackedLayout* stack_ = nullptr;
  ChartSpec spec_;
  PlotIndex index_;
  bool logY_ = false;
  QString placeholderText_;
};

}  // namespace kernellab::widgets
