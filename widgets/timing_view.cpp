// SPDX-License-Identifier: MIT
// The Timing view.
#include "timing_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QTabBar>
#include <QVBoxLayout>

#include "chart_view.h"

namespace kernellab::widgets {

TimingView::TimingView(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);

  auto* top = new QHBoxLayout;
  top->setContentsMargins(4, 2, 4, 0);
  tabs_ = new QTabBar(this);
  tabs_->setDocumentMode(true);
  tabs_->setExpanding(false);
  tabs_->setDrawBase(false);
  log_ = new QCheckBox(tr("Log scale"), this);
  log_->setToolTip(tr("Logarithmic value axis: compare times that differ by orders of magnitude"));
  published_ = new QCheckBox(tr("Published figures"), this);
  published_->setToolTip(
      tr("Show published measurements (hatched bars, with their source) beside the runs"));
  published_->setChecked(true);
  reference_ = new QCheckBox(tr("H200 reference"), this);
  reference_->setToolTip(tr("Beside runs of the CPU backend: KernelLab's own runs on an NVIDIA H200 (cross-hatched, "
                            "with the date measured), so a machine without a GPU shows what the GPU does too"));
  reference_->setChecked(true);
  reference_->hide();
  familyLabel_ = new QLabel(tr("Family"), this);
  family_ = new QComboBox(this);
  family_->setToolTip(tr("The selected runs hold several kernel families: the charts show one family at a time"));
  familyLabel_->hide();
  family_->hide();
  top->addWidget(familyLabel_);
  top->addWidget(family_);
  top->addWidget(tabs_, 1);
  top->addWidget(published_);
  top->addWidget(reference_);
  top->addWidget(log_);
  layout->addLayout(top);

  chart_ = new ChartView(this);
  layout->addWidget(chart_, 1);

  auto* line = new QFrame(this);
  line->setFrameShape(QFrame::HLine);
  line->setFrameShadow(QFrame::Sunken);
  layout->addWidget(line);
  speedup_ = new SpeedupPanel(this);
  layout->addWidget(speedup_);

  connect(tabs_, &QTabBar::currentChanged, this, [this](int i) {
    if (i >= 0 && i < charts_.size()) wantedId_ = charts_[i].id;
    showChart(i);
  });
  connect(log_, &QCheckBox::toggled, this, [this](bool on) {
    chart_->setLogScale(on);
    emit logScaleChanged(on);
  });
  connect(published_, &QCheckBox::toggled, this, &TimingView::showPublishedChanged);
  connect(reference_, &QCheckBox::toggled, this, &TimingView::showReferenceChanged);
  connect(family_, &QComboBox::activated, this, &TimingView::familyChosen);
}

void TimingView::setCharts(const QVector<ChartSpec>& charts) {
  charts_ = charts;
  int wanted = 0;
  {
    const QSignalBlocker block(tabs_);
    while (tabs_->count() > 0) tabs_->removeTab(0);
    for (int i = 0; i < charts_.size(); ++i) {
      tabs_->addTab(charts_[i].title.section(QLatin1Char(':'), 0, 0));
      tabs_->setTabToolTip(i, charts_[i].title);
      if (charts_[i].id == wantedId_) wanted = i;
    }
    tabs_->setCurrentIndex(charts_.isEmpty() ? -1 : wanted);
  }
  showChart(charts_.isEmpty() ? -1 : wanted);
}

void TimingView::updateChart(const ChartSpec& chart) {
  for (int i = 0; i < charts_.size(); ++i) {
    if (charts_[i].id != chart.id) continue;
    charts_[i] = chart;
    if (tabs_->currentIndex() == i) chart_->setChart(chart);
    return;
  }
  QVector<ChartSpec> more = charts_;
  more.push_back(chart);
  setCharts(more);
}

QString TimingView::currentChartId() const {
  const int i = tabs_->currentIndex();
  return (i >= 0 && i < charts_.size()) ? charts_[i].id : QString();
}

bool TimingView::setCurrentChart(const QString& id) {
  wantedId_ = id;  // kept for charts that arrive later
  for (int i = 0; i < charts_.size(); ++i)
    if (charts_[i].id == id) {
      tabs_->setCurrentIndex(i);
      showChart(i);
      return true;
    }
  return false;
}

void TimingView::setSpeedupEntries(const QVector<SpeedupEntry>& entries) {
  speedup_->setEntries(entries);
}

void TimingView::setPlaceholder(const QString& text) { chart_->setPlaceholder(text); }

void TimingView::setLogScale(bool on) { log_->setChecked(on); }
bool TimingView::logScale() const { return log_->isChecked(); }
void TimingView::setShowPublished(bool on) { published_->setChecked(on); }
bool TimingView::showPublished() const { return published_->isChecked(); }

void TimingView::setShowReference(bool on) { reference_->setChecked(on); }
bool TimingView::showReference() const { return reference_->isChecked(); }
void TimingView::setReferenceAvailable(bool available) { reference_->setVisible(available); }

void TimingView::setFamilies(const QStringList& titles, int current) {
  {
    const QSignalBlocker block(family_);
    family_->clear();
    family_->addItems(titles);
    family_->setCurrentIndex(current);
  }
  family_->setVisible(titles.size() > 1);
  familyLabel_->setVisible(titles.size() > 1);
}

int TimingView::familyIndex() const { return family_->currentIndex(); }

void TimingView::showChart(int index) {
  const ChartSpec spec = index >= 0 && index < charts_.size() ? charts_[index] : ChartSpec{};
  // A chart whose values lie decades apart is always logarithmic: the toggle says so instead of
  // seeming to do nothing.
  log_->setEnabled(!spec.logY);
  log_->setToolTip(spec.logY ? tr("This chart is always logarithmic: its measured and reference values lie "
                                  "decades apart (see its notes)")
                             : tr("Logarithmic value axis: compare times that differ by orders of magnitude"));
  chart_->setChart(spec);
  emit currentChartChanged(currentChartId());
}

}  // namespace kernellab::widgets
