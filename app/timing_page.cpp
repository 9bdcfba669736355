// SPDX-License-Identifier: MIT
// The Timing tab.
#include "timing_page.h"

#include <QSettings>

#include "run_text.h"
#include "timing_view.h"

namespace kernellab::app {

TimingPage::TimingPage(QWidget* parent) {
  view_ = new widgets::TimingView(parent);
  view_->setPlaceholder(
      tr("No runs to show yet.\n\nPress Run (Ctrl+R) to measure the variants switched on in the "
         "experiment panel, or open a results file written by kernellab-cli (Ctrl+O).\n"
         "Published figures of the family appear under their own tabs."));
  connect(view_, &widgets::TimingView::showPublishedChanged, this, [this] { rebuild(); });
  rebuild();
}

QWidget* TimingPage::widget() { return view_; }

void TimingPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  rebuild();
}

void TimingPage::showRequest(const RunRequest& request) {
  if (request.family == panelFamily_) return;
  panelFamily_ = request.family;
  if (selection_.empty()) rebuild();  // no run shown: the published figures follow the panel
}

void TimingPage::rebuild() {
  ChartOptions options;
  options.showPublished = view_->showPublished();
  options.emptyFamily = panelFamily_;
  const TimingCharts built = buildTimingCharts(selection_, options);
  view_->setCharts(built.charts);
  view_->setSpeedupEntries(built.speedups);
}

void TimingPage::runStarted(const RunRequest& request, const SweepAxes&) {
  liveFamily_ = request.family;
  live_.clear();
  liveColors_.clear();
}

void TimingPage::showIteration(const LiveIteration& it) {
  const QString name = variantTitle(liveFamily_, it.variant.toStdString());
  int i = 0;
  while (i < live_.size() && live_[i].first != name) ++i;
  if (i == live_.size()) {
    live_.push_back({name, {}});
    liveColors_ << variantColorIndex(liveFamily_, it.variant.toStdString());
  }
  live_[i].second.push_back(it.record);
  view_->updateChart(buildScoreChart(liveFamily_, live_, liveColors_, true));
}

QVector<widgets::ChartSpec> TimingPage::charts() const {
  QVector<widgets::ChartSpec> out;
  for (const auto& c : view_->charts())
    if (!c.isEmpty()) out << c;
  return out;
}

bool TimingPage::chartsLogScale() const { return view_->logScale(); }

QString TimingPage::currentChartId() const { return view_->currentChartId(); }

bool TimingPage::showChart(const QString& chartId) { return view_->setCurrentChart(chartId); }

void TimingPage::saveSettings(QSettings& s) const {
  s.setValue(QStringLiteral("timing/logScale"), view_->logScale());
  s.setValue(QStringLiteral("timing/showPublished"), view_->showPublished());
  s.setValue(QStringLiteral("timing/chart"), view_->currentChartId());
}

void TimingPage::restoreSettings(QSettings& s) {
  view_->setLogScale(s.value(QStringLiteral("timing/logScale"), false).toBool());
  view_->setShowPublished(s.value(QStringLiteral("timing/showPublished"), true).toBool());
  const QString chart = s.value(QStringLiteral("timing/chart")).toString();
  if (!chart.isEmpty()) view_->setCurrentChart(chart);
}

}  // namespace kernellab::app
