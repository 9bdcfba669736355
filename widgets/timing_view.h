// SPDX-License-Identifier: MIT
// The Timing view: a bar of chart choices (time, per kernel, bandwidth, score, sweeps), the chart,
// its options (log scale, published figures) and the speed-up between two chosen entries.
#pragma once

#include <QVector>
#include <QWidget>

#include "chart_spec.h"
#include "speedup_panel.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QTabBar;

namespace kernellab::widgets {

class ChartView;

class TimingView : public QWidget {
  Q_OBJECT
 public:
  explicit TimingView(QWidget* parent = nullptr);

  // Replaces the charts; the chart shown stays the same one (by id) when it is still there.
  void setCharts(const QVector<ChartSpec>& charts);
  const QVector<ChartSpec>& charts() const { return charts_; }
  // Replaces one chart in place (live k-means scores); adds it when new.
  void updateChart(const ChartSpec& chart);
  QString currentChartId() const;
  bool setCurrentChart(const QString& id);

  void setSpeedupEntries(const QVector<SpeedupEntry>& entries);
  void setPlaceholder(const QString& text);

  void setLogScale(bool on);
  bool logScale() const;
  void setShowPublished(bool on);
  bool showPublished() const;
  // KernelLab's H200 reference beside CPU runs; the box shows only where a CPU run is charted.
  void setShowReference(bool on);
  bool showReference() const;
  void setReferenceAvailable(bool available);

  // The kernel families of the shown runs; the choice shows when there are several.
  void setFamilies(const QStringList& titles, int current);
  int familyIndex() const;

  ChartView* chartView() const { return chart_; }
  SpeedupPanel* speedupPanel() const { return speedup_; }

 signals:
  void logScaleChanged(bool on);
  void showPublishedChanged(bool on);
  void showReferenceChanged(bool on);
  void familyChosen(int index);
  void currentChartChanged(const QString& id);

 private:
  void showChart(int index);

  QVector<ChartSpec> charts_;
  QTabBar* tabs_ = nullptr;
  QCheckBox* log_ = nullptr;
  QCheckBox* published_ = nullptr;
  QCheckBox* reference_ = nullptr;
  QLabel* familyLabel_ = nullptr;
  QComboBox* family_ = nullptr;
  ChartView* chart_ = nullptr;
  SpeedupPanel* speedup_ = nullptr;
  QString wantedId_;   // the chart the user picked, kept across setCharts
};

}  // namespace kernellab::widgets
