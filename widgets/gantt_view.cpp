// SPDX-License-Identifier: MIT
// GanttView: a QCustomPlot per run with one plottable that paints every block as a rectangle
// (hundreds of thousands of blocks stay cheap: no item per block).
#include "gantt_view.h"

#include "view_picture.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>
#include <map>
#include <qcustomplot.h>

#include "kernellab/schedule_model.h"
#include "model_colors.h"
#include "view_style.h"

namespace kernellab::widgets {

namespace {

// Blocks as rectangles: key = microseconds since the run's first block, value = SM id.
class GanttBlocks : public QCPAbstractPlottable {
 public:
  struct Bar {
    double t0, t1;
    double y0, y1;  // the block's slot within its SM's lane
    QColor color;
  };
  GanttBlocks(QCPAxis* key, QCPAxis* value) : QCPAbstractPlottable(key, value) {
    setSelectable(QCP::stNone);
  }
  void setBars(std::vector<Bar> bars) { bars_ = std::move(bars); }
  void setLanes(int lanes) { lanes_ = lanes; }

  double selectTest(const QPointF&, bool, QVariant*) const override { return -1; }
  QCPRange getKeyRange(bool& found, QCP::SignDomain) const override {
    found = !bars_.empty();
    QCPRange r(0, 0);
    for (const auto& b : bars_) r.expand(QCPRange(b.t0, b.t1));
    return r;
  }
  QCPRange getValueRange(bool& found, QCP::SignDomain, const QCPRange&) const override {
    found = !bars_.empty();
    QCPRange r(0, 0);
    for (const auto& b : bars_) r.expand(QCPRange(b.y0, b.y1));
    return r;
  }

 protected:
  void draw(QCPPainter* painter) override {
    // Lane borders once lanes are tall enough to tell apart (a few SMs shown).
    const double laneHeight = std::abs(coordsToPixels(0, 1).y() - coordsToPixels(0, 0).y());
    if (laneHeight >= 10) {
      painter->setPen(QPen(QColor(0, 0, 0, 40), 1));
      const QCPRange keys = keyAxis()->range();
      for (int lane = 0; lane + 1 < lanes_; ++lane) {
        const QPointF a = coordsToPixels(keys.lower, lane + 0.5), b = coordsToPixels(keys.upper, lane + 0.5);
        painter->drawLine(a, b);
      }
    }
    painter->setPen(Qt::NoPen);
    for (const auto& b : bars_) {
      const QPointF a = coordsToPixels(b.t0, b.y0);
      const QPointF c = coordsToPixels(b.t1, b.y1);
      QRectF r = QRectF(a, c).normalized();
      if (r.width() < 1) r.setWidth(1);  // a block never vanishes
      if (r.height() < 1) r.setHeight(1);
      painter->fillRect(r, b.color);
    }
  }
  void drawLegendIcon(QCPPainter* painter, const QRectF& rect) const override {
    painter->fillRect(rect, bars_.empty() ? Qt::gray : bars_.front().color);
  }

 private:
  std::vector<Bar> bars_;
  int lanes_ = 0;
};

}  // namespace

GanttView::GanttView(QWidget* parent) : QWidget(parent) {
  auto* root = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Colour blocks by:"), this));
  colorCombo_ = new QComboBox(this);
  colorCombo_->addItem(tr("Tile position"));
  colorCombo_->addItem(tr("Run"));
  top->addWidget(colorCombo_);
  top->addWidget(new QLabel(tr("Lanes:"), this));
  smsCombo_ = new QComboBox(this);
  smsCombo_->setToolTip(tr("Which SMs get a lane: all of them, or the first few to see every block"));
  smsCombo_->addItem(tr("All SMs"), 0);
  for (int n : {8, 16, 32}) smsCombo_->addItem(tr("SMs 0-%1").arg(n - 1), n);
  top->addWidget(smsCombo_);
  legend_ = new QLabel(this);
  legend_->setWordWrap(true);
  top->addWidget(legend_, 1);
  root->addLayout(top);
  topRow_ = top;
  plotsBox_ = new QWidget(this);
  new QHBoxLayout(plotsBox_);
  plotsBox_->layout()->setContentsMargins(0, 0, 0, 0);
  root->addWidget(plotsBox_, 1);
  connect(colorCombo_, &QComboBox::currentIndexChanged, this, [this](int i) {
    setColorBy(i == 1 ? ColorBy::Run : ColorBy::TilePosition);
    emit colorByChanged(colorBy_);
  });
  connect(smsCombo_, &QComboBox::currentIndexChanged, this, [this] { setSmsShown(smsCombo_->currentData().toInt()); });
  rebuild();
}

GanttRun GanttView::runFromVariant(const VariantResult& v, const QString& title) {
  GanttRun r;
  r.title = title.isEmpty() ? QString::fromStdString(v.variant) : title;
  r.records = v.schedule;
  if (!v.kernels.empty()) {
    r.gridX = v.kernels.front().gridX;
    r.gridY = v.kernels.front().gridY;
  }
  r.overheadKnown = !v.schedule.empty();
  r.overheadPct = v.scheduleOverheadPct;
  return r;
}

void GanttView::setResult(const RunResult& run) {
  std::vector<const VariantResult*> recorded;
  for (const auto& v : run.variants)
    if (!v.schedule.empty()) recorded.push_back(&v);
  auto find = [&](const char* id) -> const VariantResult* {
    for (const auto* v : recorded)
      if (v->variant == id) return v;
    return nullptr;
  };
  QVector<GanttRun> runs;
  const QString device = QString::fromStdString(run.device.name);
  auto add = [&](const VariantResult* v) {
    runs.push_back(runFromVariant(*v, device.isEmpty() ? QString() : tr("%1 on %2").arg(QString::fromStdString(v->variant), device)));
  };
  if (find("padded") && find("diagonal")) {
    add(find("padded"));
    add(find("diagonal"));
  } else {
    for (size_t i = 0; i < recorded.size() && i < 2; ++i) add(recorded[i]);
  }
  setRuns(runs);
}

void GanttView::setRuns(const QVector<GanttRun>& runs) {
  runs_ = runs;
  rebuild();
}

void GanttView::setColorBy(ColorBy mode) {
  colorBy_ = mode;
  {
    const QSignalBlocker block(colorCombo_);
    colorCombo_->setCurrentIndex(mode == ColorBy::Run ? 1 : 0);
  }
  rebuild();
}

void GanttView::setSmsShown(int count) {
  smsShown_ = std::max(0, count);
  {
    const QSignalBlocker block(smsCombo_);
    int i = smsCombo_->findData(smsShown_);
    if (i < 0) {
      smsCombo_->addItem(tr("SMs 0-%1").arg(smsShown_ - 1), smsShown_);
      i = smsCombo_->count() - 1;
    }
    smsCombo_->setCurrentIndex(i);
  }
  rebuild();
}

QCustomPlot* GanttView::plot(int run) const { return plots_.value(run, nullptr); }

QString GanttView::caption(int run) const {
  return run >= 0 && run < captions_.size() ? captions_[run]->text() : QString();
}

uint64_t GanttView::origin(int run) const {
  if (run < 0 || run >= runs_.size() || runs_[run].records.empty()) return 0;
  uint64_t t = runs_[run].records.front().startNs;
  for (const auto& r : runs_[run].records) t = std::min(t, r.startNs);
  return t;
}

QColor GanttView::blockColor(int run, const BlockRecord& r) const {
  if (colorBy_ == ColorBy::Run) return categoricalColor(run);
  const GanttRun& g = runs_[run];
  return tilePositionColor(r.tileX, r.tileY, g.gridX, g.gridY);
}

void GanttView::rebuild() {
  plots_.clear();
  captions_.clear();
  auto* layout = static_cast<QHBoxLayout*>(plotsBox_->layout());
  while (QLayoutItem* item = layout->takeAt(0)) {
    delete item->widget();  // now: a stale column must not linger until the event loop runs
    delete item;
  }
  legend_->setText(colorBy_ == ColorBy::TilePosition
                       ? tr("Hue follows the row of the input tile a block moved (the column of "
                            "the output it writes), brightness its column. Blocks resident on one "
                            "SM at once share its lane.")
                       : tr("One colour per run."));
  if (runs_.isEmpty()) {
    auto* empty = new QLabel(tr("No recorded schedule. Run a variant with \"record schedule\" "
                                "(kernellab-cli run ... --record-schedule) on a CUDA GPU."),
                             plotsBox_);
    empty->setWordWrap(true);
    empty->setAlignment(Qt::AlignCenter);
    layout->addWidget(empty);
    return;
  }
  // One time scale for all runs: the longest span.
  double maxSpanUs = 0;
  int maxSm = 0;
  for (int i = 0; i < runs_.size(); ++i) {
    const auto s = schedule::summarizeRecorded(runs_[i].records);
    maxSpanUs = std::max(maxSpanUs, double(s.endNs - origin(i)) / 1000.0);
    maxSm = std::max(maxSm, s.maxSmId);
  }
  for (int i = 0; i < runs_.size(); ++i) {
    const GanttRun& run = runs_[i];
    auto* column = new QWidget(plotsBox_);
    auto* v = new QVBoxLayout(column);
    v->setContentsMargins(0, 0, 0, 0);
    auto* caption = new QLabel(column);
    caption->setWordWrap(true);
    const auto s = schedule::summarizeRecorded(run.records, run.gridX, run.gridY);
    QString text = QStringLiteral("<b>%1</b>%2<br>").arg(run.title.toHtmlEscaped(),
                                                          run.simulated ? tr(" (schedule model, not a measurement)") : QString());
    if (run.records.empty()) {
      text += tr("no schedule recorded");
    } else {
      text += tr("%1 blocks on %2 SMs in %3 us; at most %4 blocks at once on one SM, %5 on the GPU; "
                 "mean block %6 us.")
                  .arg(s.blocks).arg(s.smsUsed).arg(s.spanUs, 0, 'f', 1)
                  .arg(s.maxConcurrentPerSM).arg(s.maxConcurrent).arg(s.meanBlockUs, 0, 'f', 2);
      if (run.overheadKnown)
        text += tr(" <b>Recording overhead: %1%2 %</b> (instrumented vs uninstrumented median).")
                    .arg(run.overheadPct >= 0 ? QStringLiteral("+") : QString())
                    .arg(run.overheadPct, 0, 'f', 1);
    }
    caption->setText(text);
    v->addWidget(caption);
    auto* plot = new QCustomPlot(column);
    plot->setMinimumSize(280, 240);
    auto* blocks = new GanttBlocks(plot->xAxis, plot->yAxis);
    // Blocks resident together on one SM get separate slots of its lane (interval partitioning:
    // each block takes the first slot that is free when it starts).
    std::vector<size_t> order(run.records.size());
    for (size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](size_t x, size_t y) {
      return run.records[x].startNs < run.records[y].startNs;
    });
    std::map<int, std::vector<uint64_t>> slotEnds;
    std::vector<int> slotOf(run.records.size(), 0);
    for (size_t k : order) {
      const auto& r = run.records[k];
      auto& ends = slotEnds[r.smId];
      size_t slot = 0;
      while (slot < ends.size() && ends[slot] > r.startNs) ++slot;
      if (slot == ends.size()) ends.push_back(0);
      ends[slot] = r.endNs;
      slotOf[k] = int(slot);
    }
    size_t slotCount = 1;
    for (const auto& [sm, ends] : slotEnds) slotCount = std::max(slotCount, ends.size());
    const double slotH = 1.0 / double(slotCount);
    std::vector<GanttBlocks::Bar> bars;
    bars.reserve(run.records.size());
    const uint64_t t0 = origin(i);
    for (size_t k = 0; k < run.records.size(); ++k) {
      const auto& r = run.records[k];
      const double y0 = r.smId - 0.5 + slotOf[k] * slotH;
      const double gap = std::min(0.08, slotH * 0.15);
      bars.push_back({double(r.startNs - t0) / 1000.0, double(r.endNs - t0) / 1000.0, y0 + gap,
                      y0 + slotH - gap, blockColor(i, r)});
    }
    blocks->setBars(std::move(bars));
    const int lastLane = smsShown_ > 0 ? std::min(maxSm, smsShown_ - 1) : maxSm;
    blocks->setLanes(lastLane + 1);
    plot->xAxis->setLabel(tr("Time since the first block started (us)"));
    plot->yAxis->setLabel(lastLane < maxSm ? tr("SM (%smid): 0-%1 of %2").arg(lastLane).arg(maxSm + 1) : tr("SM (%smid)"));
    plot->xAxis->setRange(0, std::max(1e-3, maxSpanUs));
    plot->yAxis->setRange(-0.5, lastLane + 0.5);
    if (lastLane < 40) {  // one tick per SM when they fit; the lane borders replace the grid
      QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
      ticker->setTickStep(lastLane < 20 ? 1.0 : 2.0);
      plot->yAxis->setTicker(ticker);
      plot->yAxis->grid()->setVisible(false);
    }
    plot->yAxis->setRangeReversed(true);  // SM 0 on top
    plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot->axisRect()->setRangeZoom(Qt::Horizontal);
    plot->axisRect()->setRangeDrag(Qt::Horizontal);
    plot->replot();
    v->addWidget(plot, 1);
    layout->addWidget(column, 1);
    plots_.push_back(plot);
    captions_.push_back(caption);
  }
}

QImage GanttView::reportPicture() { return grabWithoutControls(this, {topRow_}, {}, {legend_}); }

}  // namespace kernellab::widgets
