// SPDX-License-Identifier: MIT
// The Timing tab.
#include "timing_page.h"

#include <QSettings>
#include <QVBoxLayout>

#include "counters_table.h"
#include "model_vs_counters.h"
#include "run_text.h"
#include "timing_view.h"

namespace kernellab::app {

TimingPage::TimingPage(QWidget* parent) {
  root_ = new QWidget(parent);
  auto* layout = new QVBoxLayout(root_);
  layout->setContentsMargins(0, 0, 0, 0);
  view_ = new widgets::TimingView(root_);
  layout->addWidget(view_, 1);
  counters_ = new widgets::CountersTable(root_);
  layout->addWidget(counters_);
  view_->setPlaceholder(
      tr("No runs to show yet.\n\nPress Run (Ctrl+R) to measure the variants switched on in the "
         "experiment panel, or open a results file written by kernellab-cli (Ctrl+O).\n"
         "Published figures of the family appear under their own tabs."));
  connect(view_, &widgets::TimingView::showPublishedChanged, this, [this] { rebuild(); });
  connect(view_, &widgets::TimingView::showReferenceChanged, this, [this] { rebuild(); });
  connect(view_, &widgets::TimingView::familyChosen, this, [this](int i) {
    if (i >= 0 && i < families_.size()) showFamily(families_[i]);
  });
  rebuild();
}

QWidget* TimingPage::widget() { return root_; }

void TimingPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  // A new selection is charted by its primary run's family; the user may pick another.
  const QVector<Family> families = familiesOf(selection_);
  if (!families.isEmpty()) family_ = families.front();
  rebuild();
}

void TimingPage::showRequest(const RunRequest& request) {
  if (request.family == panelFamily_) return;
  panelFamily_ = request.family;
  if (selection_.empty()) rebuild();  // no run shown: the published figures follow the panel
}

bool TimingPage::showFamily(Family family) {
  if (!familiesOf(selection_).contains(family)) return false;
  family_ = family;
  rebuild();
  return true;
}

ChartOptions TimingPage::options(Family family) const {
  ChartOptions o;
  o.showPublished = view_->showPublished();
  o.showGpuReference = view_->showReference();
  o.emptyFamily = panelFamily_;
  o.family = family;
  return o;
}

void TimingPage::rebuild() {
  families_ = familiesOf(selection_);
  if (!families_.isEmpty() && !families_.contains(family_)) family_ = families_.front();
  QStringList titles;
  for (Family f : families_) titles << familyTitle(f);
  view_->setFamilies(titles, static_cast<int>(families_.indexOf(family_)));
  const TimingCharts built = buildTimingCharts(selection_, options(family_));
  bool cpu = false;
  for (const RunRef& r : selection_.runs) cpu = cpu || (r.run().request.family == built.family && r.run().backend == "cpu");
  view_->setReferenceAvailable(cpu && !gpuReference().forFamily(built.family).isEmpty());
  view_->setCharts(built.charts);
  view_->setSpeedupEntries(built.speedups);
  // The charted family's profiled run, if the selection holds one: its bytes beside DRAM's.
  const Family charted = built.family;
  const RunRef* profiled = selection_.pick(
      [charted](const RunResult& r) { return r.request.family == charted && kernellab::hasCounters(r); });
  if (profiled)
    counters_->setRows(countersTitle(profiled->label, profiled->run(),
                                     tr("the bandwidth figures' ideal bytes (each input read once, each "
                                        "output written once)")),
                       memoryRows(profiled->run()));
  else
    counters_->setRows(QString(), {});
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

widgets::ChartSpec TimingPage::tagged(widgets::ChartSpec chart, Family family) const {
  if (families_.size() <= 1) return chart;
  chart.id = QStringLiteral("%1-%2").arg(QString::fromLatin1(toString(family)), chart.id);
  if (!chart.title.contains(familyTitle(family))) chart.title = QStringLiteral("%1: %2").arg(familyTitle(family), chart.title);
  return chart;
}

QVector<widgets::ChartSpec> TimingPage::charts() const {
  // Every family of the selection: exports and reports leave none out.
  QVector<widgets::ChartSpec> out;
  for (const auto& c : view_->charts())
    if (!c.isEmpty()) out << tagged(c, family_);
  for (Family f : families_) {
    if (f == family_) continue;
    for (const auto& c : buildTimingCharts(selection_, options(f)).charts)
      if (!c.isEmpty()) out << tagged(c, f);
  }
  return out;
}

bool TimingPage::chartsLogScale() const { return view_->logScale(); }

QString TimingPage::chartSection(const widgets::ChartSpec& chart) const {
  Family family = family_;
  for (Family f : families_)
    if (chart.id.startsWith(QString::fromLatin1(toString(f)) + QLatin1Char('-'))) family = f;
  return tr("Timing: %1").arg(familyTitle(family));
}

QString TimingPage::currentChartId() const { return view_->currentChartId(); }

bool TimingPage::showChart(const QString& chartId) {
  if (view_->setCurrentChart(chartId)) return true;
  // Another family's chart: "kmeans-kernels", or "kernels" when only another family has one.
  for (Family f : families_) {
    const QString prefix = QString::fromLatin1(toString(f)) + QLatin1Char('-');
    const QString id = chartId.startsWith(prefix) ? chartId.mid(prefix.size()) : chartId;
    if (f == family_ && id == chartId) continue;
    for (const auto& c : buildTimingCharts(selection_, options(f)).charts)
      if (c.id == id && !c.isEmpty()) {
        showFamily(f);
        return view_->setCurrentChart(id);
      }
  }
  return false;
}

void TimingPage::saveSettings(QSettings& s) const {
  s.setValue(QStringLiteral("timing/logScale"), view_->logScale());
  s.setValue(QStringLiteral("timing/showPublished"), view_->showPublished());
  s.setValue(QStringLiteral("timing/showReference"), view_->showReference());
  s.setValue(QStringLiteral("timing/chart"), view_->currentChartId());
}

void TimingPage::restoreSettings(QSettings& s) {
  view_->setLogScale(s.value(QStringLiteral("timing/logScale"), false).toBool());
  view_->setShowPublished(s.value(QStringLiteral("timing/showPublished"), true).toBool());
  view_->setShowReference(s.value(QStringLiteral("timing/showReference"), true).toBool());
  const QString chart = s.value(QStringLiteral("timing/chart")).toString();
  if (!chart.isEmpty()) view_->setCurrentChart(chart);
}

}  // namespace kernellab::app
