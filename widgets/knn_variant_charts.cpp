// SPDX-License-Identifier: MIT
// QCustomPlot bars of the KNN variants: time and occupancy, with units on every axis.
#include "knn_variant_charts.h"

#include <QVBoxLayout>
#include <algorithm>
#include <qcustomplot.h>

#include "view_style.h"

namespace kernellab::widgets {
namespace {

// Variant ids are short enough for four ticks side by side; titles go to the legend/tooltips.
QString tickText(const KnnVariantBar& b) {
  return b.ran ? b.id : b.id + QStringLiteral("\n(not run)");
}

void setVariantTicks(QCPAxis* axis, const QVector<KnnVariantBar>& bars) {
  QSharedPointer<QCPAxisTickerText> ticker(new QCPAxisTickerText);
  for (int i = 0; i < bars.size(); ++i) ticker->addTick(i, tickText(bars[i]));
  axis->setTicker(ticker);
  axis->setRange(-0.6, bars.size() - 0.4);
  axis->setSubTicks(false);
  axis->setTickLength(0, 3);
}

QCPTextElement* title(QCustomPlot* plot, const QString& text) {
  plot->plotLayout()->insertRow(0);
  auto* t = new QCPTextElement(plot, text, QFont(plot->font().family(), 10, QFont::Bold));
  plot->plotLayout()->addElement(0, 0, t);
  return t;
}

}  // namespace

KnnVariantCharts::KnnVariantCharts(QWidget* parent)
    : QWidget(parent),
      time_(new QCustomPlot(this)),
      occupancy_(new QCustomPlot(this)),
      group_(new QCPBarsGroup(occupancy_)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(time_, 1);
  layout->addWidget(occupancy_, 1);
  time_->setMinimumHeight(180);
  occupancy_->setMinimumHeight(180);
  title(time_, tr("Kernel time per variant (median, whiskers min to max)"));
  title(occupancy_, tr("Shared memory per block vs resident blocks per SM"));
  // The legend sits under the axes, so it never covers a bar or its label.
  occupancy_->legend->setVisible(true);
  occupancy_->legend->setFont(QFont(font().family(), 8));
  occupancy_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  occupancy_->plotLayout()->addElement(2, 0, occupancy_->legend);
  occupancy_->plotLayout()->setRowStretchFactor(2, 0.001);
  for (QCustomPlot* plot : {time_, occupancy_}) {
    plot->xAxis->setTickLabelFont(QFont(font().family(), 8));
    plot->xAxis->grid()->setVisible(false);  // categories: no vertical grid (nor its zero line)
  }
  rebuild();
}

void KnnVariantCharts::setBars(const QVector<KnnVariantBar>& bars, const QString& clock) {
  bars_ = bars;
  clock_ = clock;
  rebuild();
}

void KnnVariantCharts::rebuild() {
  time_->clearPlottables();
  occupancy_->clearPlottables();
  time_->clearItems();
  occupancy_->clearItems();
  setVariantTicks(time_->xAxis, bars_);
  setVariantTicks(occupancy_->xAxis, bars_);

  // Time: one bar per variant in its own colour, whiskers from min to max.
  const bool cpu = clock_ == QLatin1String("cpu-steady-clock");
  time_->yAxis->setLabel(cpu ? tr("CPU executor time (ms)") : tr("GPU time (ms)"));
  double top = 0;
  for (int i = 0; i < bars_.size(); ++i) {
    const KnnVariantBar& b = bars_[i];
    if (!b.ran) continue;
    auto* bar = new QCPBars(time_->xAxis, time_->yAxis);
    bar->setName(b.title);
    bar->setWidth(0.6);
    const QColor c = categoricalColor(i);
    bar->setPen(QPen(c.darker(130)));
    bar->setBrush(b.verified ? c : QBrush(c, Qt::BDiagPattern));
    bar->addData(i, b.medianMs);
    auto* whisker = new QCPErrorBars(time_->xAxis, time_->yAxis);
    whisker->setDataPlottable(bar);
    whisker->setPen(QPen(Qt::black));
    whisker->addData(std::max(0.0, b.medianMs - b.minMs), std::max(0.0, b.maxMs - b.medianMs));
    top = std::max(top, b.maxMs);
    auto* label = new QCPItemText(time_);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setCoords(i, b.maxMs);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    label->setText(QString::number(b.medianMs, 'f', b.medianMs < 10 ? 3 : 1) + " ms");
    label->setClipToAxisRect(false);
  }
  time_->yAxis->setRange(0, top > 0 ? top * 1.2 : 1.0);

  // Occupancy: blocks per SM (left axis) and shared memory per block (right axis), side by side.
  occupancy_->yAxis->setLabel(tr("Resident blocks per SM"));
  occupancy_->yAxis2->setVisible(true);
  occupancy_->yAxis2->setLabel(sharedMemoryAxisLabel());
  auto* blocks = new QCPBars(occupancy_->xAxis, occupancy_->yAxis);
  auto* shared = new QCPBars(occupancy_->xAxis, occupancy_->yAxis2);
  blocks->setName(tr("resident blocks per SM (CUDA occupancy API)"));
  shared->setName(tr("shared memory per block (KiB, 1 KiB = 1024 B)"));
  blocks->setBrush(QColor(31, 119, 180));
  shared->setBrush(QColor(255, 127, 14));
  blocks->setWidth(0.35);
  shared->setWidth(0.35);
  blocks->setBarsGroup(group_);
  shared->setBarsGroup(group_);
  double maxBlocks = 0, maxShared = 0;
  bool anyBlocks = false;
  for (int i = 0; i < bars_.size(); ++i) {
    const KnnVariantBar& b = bars_[i];
    shared->addData(i, b.sharedBytes / kBytesPerKiB);
    maxShared = std::max(maxShared, b.sharedBytes / kBytesPerKiB);
    if (b.ran && b.blocksPerSM >= 0) {
      blocks->addData(i, b.blocksPerSM);
      maxBlocks = std::max(maxBlocks, double(b.blocksPerSM));
      anyBlocks = true;
    }
    auto* label = new QCPItemText(occupancy_);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setAxes(occupancy_->xAxis, occupancy_->yAxis2);
    label->position->setCoords(i, b.sharedBytes / kBytesPerKiB);
    label->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
    QString text = sharedMemoryText(b.sharedBytes);
    if (b.blocksPerSM >= 0) text += QStringLiteral("\n") + tr("%1 blk/SM").arg(b.blocksPerSM);
    if (b.registers >= 0) text += QStringLiteral("\n") + tr("%1 regs").arg(b.registers);
    label->setText(text);
    label->setClipToAxisRect(false);
  }
  occupancy_->yAxis->setRange(0, anyBlocks ? std::max(1.0, maxBlocks * 1.3) : 1.0);
  occupancy_->yAxis2->setRange(0, maxShared > 0 ? maxShared * 1.6 : 1.0);
  if (!anyBlocks && !bars_.isEmpty())
    occupancy_->yAxis->setLabel(tr("Blocks per SM (CUDA only)"));
  time_->replot();
  occupancy_->replot();
}

}  // namespace kernellab::widgets
