// SPDX-License-Identifier: MIT
// The Timing tab: charts built from the shown runs (and published figures), live scores.
#pragma once

#include <QMap>
#include <QObject>

#include "chart_builder.h"
#include "kernellab/transpose.h"
#include "view_page.h"

namespace kernellab::widgets {
class CountersTable;
class TimingView;
}

namespace kernellab::app {

class TimingPage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit TimingPage(QWidget* parent);

  QString id() const override { return QStringLiteral("timing"); }
  QString title() const override { return tr("Timing"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;
  void showRequest(const kernellab::RunRequest& request) override;
  void runStarted(const kernellab::RunRequest& request, const SweepAxes& axes) override;
  void showIteration(const LiveIteration& it) override;
  QVector<widgets::ChartSpec> charts() const override;
  bool chartsLogScale() const override;
  QString chartSection(const widgets::ChartSpec& chart) const override;
  bool showChart(const QString& chartId) override;
  QString currentChartId() const override;
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(QSettings& settings) override;

  widgets::TimingView* view() const { return view_; }
  // A profiled run's DRAM bytes beside the ideal bytes the bandwidth figures assume, with the L2
  // hit rate and the warp execution efficiency (issue 13); hidden for runs without counters.
  widgets::CountersTable* counters() const { return counters_; }
  // The family charted now (the selection may hold several), and the choice of it.
  kernellab::Family family() const { return family_; }
  bool showFamily(kernellab::Family family);

 private:
  void rebuild();
  ChartOptions options(kernellab::Family family) const;
  // A chart as exports and reports take it: with several families, its id and title say which.
  widgets::ChartSpec tagged(widgets::ChartSpec chart, kernellab::Family family) const;

  QWidget* root_ = nullptr;
  widgets::TimingView* view_ = nullptr;
  widgets::CountersTable* counters_ = nullptr;
  RunSelection selection_;
  kernellab::Family panelFamily_ = kernellab::transpose::kFamily;
  kernellab::Family family_ = kernellab::transpose::kFamily;
  QVector<kernellab::Family> families_;
  kernellab::Family liveFamily_ = kernellab::transpose::kFamily;
  QVector<QPair<QString, QVector<kernellab::IterationRecord>>> live_;
  QVector<int> liveColors_;
};

}  // namespace kernellab::app
