// SPDX-License-Identifier: MIT
// ScheduleView: two tile grids and two partition histograms driven by one wave scrubber.
#include "schedule_view.h"

#include "view_picture.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <qcustomplot.h>

#include "model_colors.h"
#include "tile_grid_view.h"

namespace kernellab::widgets {

namespace {

constexpr int kPlayIntervalMs = 700;

QString percent(double f) { return QString::number(100.0 * f, 'f', f < 0.1 ? 1 : 0) + " %"; }

}  // namespace

ScheduleView::ScheduleView(QWidget* parent) : QWidget(parent) {
  auto* root = new QVBoxLayout(this);
  header_ = new QLabel(this);
  header_->setWordWrap(true);
  root->addWidget(header_);

  auto* controls = new QHBoxLayout;
  controls->addWidget(new QLabel(tr("Matrix:"), this));
  matrix_ = new QComboBox(this);
  matrix_->addItem(tr("Output (tiles written)"));
  matrix_->addItem(tr("Input (tiles read)"));
  controls->addWidget(matrix_);
  hashed_ = new QCheckBox(tr("Hashed partitions (cc 2.0 and later)"), this);
  controls->addWidget(hashed_);
  controls->addStretch(1);
  root->addLayout(controls);
  controlsRow_ = controls;

  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->setText(tr("Partition camping mattered only before compute capability 2.0: GT200 sent "
                    "each 256-byte stripe of memory to one of 8 partitions in turn, so blocks "
                    "writing the same columns queued at one partition. Since Fermi (cc 2.0) "
                    "addresses are hashed across partitions and diagonal order is expected to "
                    "be no faster than the padded kernel: the measured runs show it."));
  QFont noteFont = note_->font();
  noteFont.setItalic(true);
  note_->setFont(noteFont);
  root->addWidget(note_);

  auto* sides = new QHBoxLayout;
  sides->addWidget(buildSide(cartesian_, tr("Cartesian blockIdx (row-major tiles)")), 1);
  sides->addWidget(buildSide(diagonal_, tr("Diagonal blockIdx")), 1);
  root->addLayout(sides, 1);

  auto* legend = new QLabel(
      tr("Tile colour: dispatch order (dark first, yellow last). Outlined: the blocks resident "
         "in the current wave; the number is the memory partition the tile's rows start in."),
      this);
  legend->setWordWrap(true);
  root->addWidget(legend);

  auto* scrub = new QHBoxLayout;
  scrubRow_ = scrub;
  play_ = new QToolButton(this);
  play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
  play_->setToolTip(tr("Play the waves"));
  play_->setCheckable(true);
  scrub->addWidget(play_);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, 0);
  scrub->addWidget(slider_, 1);
  waveLabel_ = new QLabel(this);
  waveLabel_->setMinimumWidth(220);
  scrub->addWidget(waveLabel_);
  root->addLayout(scrub);

  timer_ = new QTimer(this);
  timer_->setInterval(kPlayIntervalMs);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (wave_ + 1 >= waveCount()) {
      pause();
      return;
    }
    setWave(wave_ + 1);
  });
  connect(play_, &QToolButton::toggled, this, [this](bool on) { on ? play() : pause(); });
  connect(slider_, &QSlider::valueChanged, this, &ScheduleView::setWave);
  connect(matrix_, &QComboBox::currentIndexChanged, this, [this](int i) {
    const auto m = i == 1 ? TileGridView::Matrix::Input : TileGridView::Matrix::Output;
    cartesian_.grid->setMatrix(m);
    diagonal_.grid->setMatrix(m);
  });
  connect(hashed_, &QCheckBox::toggled, this, &ScheduleView::setHashedPartitions);
  refresh();
}

QWidget* ScheduleView::buildSide(Side& s, const QString& title) {
  auto* box = new QWidget(this);
  auto* v = new QVBoxLayout(box);
  v->setContentsMargins(0, 0, 0, 0);
  s.title = new QLabel(QStringLiteral("<b>%1</b>").arg(title), box);
  v->addWidget(s.title);
  s.grid = new TileGridView(box);
  v->addWidget(s.grid, 1);
  s.histogram = new QCustomPlot(box);
  s.histogram->setMinimumHeight(140);
  s.histogram->setMaximumHeight(200);
  auto* group = new QCPBarsGroup(s.histogram);
  group->setSpacingType(QCPBarsGroup::stAbsolute);
  group->setSpacing(2);
  auto* written = new QCPBars(s.histogram->xAxis, s.histogram->yAxis);
  written->setName(tr("written"));
  written->setPen(Qt::NoPen);
  written->setBrush(QColor(214, 39, 40));
  written->setWidth(0.4);
  written->setBarsGroup(group);
  auto* read = new QCPBars(s.histogram->xAxis, s.histogram->yAxis);
  read->setName(tr("read"));
  read->setPen(Qt::NoPen);
  read->setBrush(QColor(31, 119, 180, 150));
  read->setWidth(0.4);
  read->setBarsGroup(group);
  s.histogram->xAxis->setLabel(tr("Memory partition"));
  s.histogram->yAxis->setLabel(tr("KiB in this wave"));
  s.histogram->legend->setVisible(true);
  s.histogram->legend->setFont(font());
  s.histogram->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  v->addWidget(s.histogram);
  s.stats = new QLabel(box);
  s.stats->setWordWrap(true);
  v->addWidget(s.stats);
  return box;
}

ScheduleView::Side& ScheduleView::side(schedule::Mapping m) {
  return m == schedule::Mapping::Diagonal ? diagonal_ : cartesian_;
}
const ScheduleView::Side& ScheduleView::side(schedule::Mapping m) const {
  return m == schedule::Mapping::Diagonal ? diagonal_ : cartesian_;
}

void ScheduleView::setConfig(const schedule::Config& config) {
  schedule::Config c = config;
  c.mapping = schedule::Mapping::Cartesian;
  const schedule::Model cart = schedule::simulate(c);
  c.mapping = schedule::Mapping::Diagonal;
  setModels(cart, schedule::simulate(c));
}

void ScheduleView::setModels(const schedule::Model& cartesian, const schedule::Model& diagonal) {
  config_ = cartesian.config;
  haveConfig_ = true;
  cartesian_.model = cartesian;
  diagonal_.model = diagonal;
  cartesian_.grid->setModel(cartesian);
  diagonal_.grid->setModel(diagonal);
  {
    const QSignalBlocker block(hashed_);
    hashed_->setChecked(config_.partitions.mapping == schedule::PartitionMapping::Hashed);
  }
  wave_ = std::clamp(wave_, 0, std::max(0, waveCount() - 1));
  refresh();
}

int ScheduleView::waveCount() const {
  return int(std::max(cartesian_.model.waves.size(), diagonal_.model.waves.size()));
}

bool ScheduleView::isPlaying() const { return timer_->isActive(); }

const schedule::Model& ScheduleView::model(schedule::Mapping m) const { return side(m).model; }

TileGridView* ScheduleView::grid(schedule::Mapping m) const { return side(m).grid; }

QVector<double> ScheduleView::writtenKiB(schedule::Mapping m) const {
  QVector<double> out;
  auto* bars = qobject_cast<QCPBars*>(side(m).histogram->plottable(0));
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) out.push_back(it->value);
  return out;
}

QVector<double> ScheduleView::readKiB(schedule::Mapping m) const {
  QVector<double> out;
  auto* bars = qobject_cast<QCPBars*>(side(m).histogram->plottable(1));
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) out.push_back(it->value);
  return out;
}

QString ScheduleView::noteText() const { return note_->text(); }

void ScheduleView::setWave(int wave) {
  const int w = std::clamp(wave, 0, std::max(0, waveCount() - 1));
  if (w == wave_ && slider_->value() == w) return;
  wave_ = w;
  refresh();
  emit waveChanged(wave_);
}

void ScheduleView::play() {
  if (waveCount() <= 1) return;
  if (wave_ + 1 >= waveCount()) setWave(0);
  timer_->start();
  const QSignalBlocker block(play_);
  play_->setChecked(true);
  play_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
}

void ScheduleView::pause() {
  timer_->stop();
  const QSignalBlocker block(play_);
  play_->setChecked(false);
  play_->setIcon(style()->standardIcon(QStyle::SP_MediaPlay));
}

void ScheduleView::setHashedPartitions(bool hashed) {
  if (!haveConfig_) return;
  schedule::Config c = config_;
  c.partitions.mapping = hashed ? schedule::PartitionMapping::Hashed : schedule::PartitionMapping::Linear;
  setConfig(c);
  emit partitionMappingChanged(hashed);
}

void ScheduleView::refreshHistogram(Side& s, double maxKiB) {
  auto* written = qobject_cast<QCPBars*>(s.histogram->plottable(0));
  auto* read = qobject_cast<QCPBars*>(s.histogram->plottable(1));
  QVector<double> keys, w, r;
  if (wave_ < int(s.model.waves.size())) {
    const auto& wave = s.model.waves[size_t(wave_)];
    for (size_t p = 0; p < wave.writeBytes.size(); ++p) {
      keys.push_back(double(p));
      w.push_back(double(wave.writeBytes[p]) / 1024.0);
      r.push_back(double(wave.readBytes[p]) / 1024.0);
    }
  }
  written->setData(keys, w, true);
  read->setData(keys, r, true);
  const int n = keys.size();
  s.histogram->xAxis->setRange(-0.6, std::max(1, n) - 0.4);
  if (n <= 16) {
    QSharedPointer<QCPAxisTickerFixed> ticker(new QCPAxisTickerFixed);
    ticker->setTickStep(1.0);
    s.histogram->xAxis->setTicker(ticker);
  }
  s.histogram->yAxis->setRange(0, std::max(1.0, maxKiB * 1.08));
  s.histogram->replot();
}

void ScheduleView::refresh() {
  const int n = waveCount();
  {
    const QSignalBlocker block(slider_);
    slider_->setRange(0, std::max(0, n - 1));
    slider_->setValue(wave_);
  }
  cartesian_.grid->setWave(wave_);
  diagonal_.grid->setWave(wave_);
  // One y scale for every wave and both sides, so bars compare across the scrubber.
  double maxKiB = 0;
  for (const Side* s : {&cartesian_, &diagonal_})
    for (const auto& w : s->model.waves)
      for (size_t p = 0; p < w.writeBytes.size(); ++p)
        maxKiB = std::max({maxKiB, double(w.writeBytes[p]) / 1024.0, double(w.readBytes[p]) / 1024.0});
  for (Side* s : {&cartesian_, &diagonal_}) {
    refreshHistogram(*s, maxKiB);
    if (wave_ < int(s->model.waves.size())) {
      const auto& w = s->model.waves[size_t(wave_)];
      s->stats->setText(tr("Wave %1: writes reach %2 of %3 partitions; the busiest takes %4 "
                           "(perfectly even: %5). Over all waves: %6 on average.")
                            .arg(wave_ + 1)
                            .arg(w.partitionsWritten)
                            .arg(s->model.config.partitions.count)
                            .arg(percent(w.worstWriteShare))
                            .arg(percent(1.0 / s->model.config.partitions.count))
                            .arg(percent(s->model.meanWorstWriteShare)));
    } else {
      s->stats->clear();
    }
  }
  if (!haveConfig_) {
    header_->setText(tr("No schedule configured."));
    waveLabel_->clear();
    return;
  }
  const auto& m = cartesian_.model;
  const auto& c = m.config;
  header_->setText(tr("%1 x %2 blocks of %3 x %3 floats (a %4 x %5 matrix). %6 resident blocks "
                      "per SM x %7 SMs = %8 blocks per wave. Memory: %9 partitions x %10 B, %11.")
                       .arg(c.gridX).arg(c.gridY).arg(c.tile).arg(m.width).arg(m.height)
                       .arg(c.blocksPerSM).arg(c.smCount).arg(m.residentBlocks)
                       .arg(c.partitions.count).arg(c.partitions.widthBytes)
                       .arg(c.partitions.mapping == schedule::PartitionMapping::Hashed
                                ? tr("hashed (illustrative)")
                                : tr("linear (address / %1 mod %2)").arg(c.partitions.widthBytes).arg(c.partitions.count)));
  const int blocks = wave_ < int(m.waves.size()) ? m.waves[size_t(wave_)].blockCount : 0;
  waveLabel_->setText(tr("Wave %1 of %2 (%3 blocks)").arg(wave_ + 1).arg(n).arg(blocks));
}

QImage ScheduleView::reportPicture() { return grabWithoutControls(this, {controlsRow_, scrubRow_}, {}, {waveLabel_}); }

}  // namespace kernellab::widgets
