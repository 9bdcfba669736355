// SPDX-License-Identifier: MIT
// OccupancyView: inputs, per-limit table, suggestion, three charts, device cross-check table.
#include "occupancy_view.h"

#include "view_picture.h"

#include <cmath>

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <qcustomplot.h>

namespace kernellab::widgets {

namespace {

const QColor kBinding(255, 224, 138);
const QColor kMismatch(255, 205, 200);
const QColor kMatch(215, 240, 215);

QString limitName(occupancy::Limit l) {
  switch (l) {
    case occupancy::Limit::Threads: return QObject::tr("Threads (warps)");
    case occupancy::Limit::BlockSlots: return QObject::tr("Block slots");
    case occupancy::Limit::Registers: return QObject::tr("Registers");
    case occupancy::Limit::SharedMemory: return QObject::tr("Shared memory");
  }
  return {};
}

QCustomPlot* makeChart(QWidget* parent, const QString& xLabel) {
  auto* plot = new QCustomPlot(parent);
  plot->setMinimumSize(220, 170);
  plot->addGraph();
  plot->graph(0)->setLineStyle(QCPGraph::lsStepLeft);
  plot->graph(0)->setPen(QPen(QColor(31, 119, 180), 2));
  plot->graph(0)->setBrush(QColor(31, 119, 180, 40));
  plot->addGraph();
  plot->graph(1)->setLineStyle(QCPGraph::lsNone);
  plot->graph(1)->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(214, 39, 40), 2),
                                                  QColor(214, 39, 40), 8));
  plot->xAxis->setLabel(xLabel);
  plot->yAxis->setLabel(QObject::tr("Occupancy (%)"));
  plot->yAxis->setRange(0, 105);
  return plot;
}

}  // namespace

OccupancyView::OccupancyView(QWidget* parent) : QWidget(parent) {
  auto* root = new QVBoxLayout(this);
  auto* top = new QHBoxLayout;
  auto* form = new QFormLayout;
  archCombo_ = new QComboBox(this);
  for (const auto& a : occupancy::presets())
    archCombo_->addItem(QString::fromStdString(a.name), QString::fromStdString(a.id));
  form->addRow(tr("Architecture:"), archCombo_);
  tpb_ = new QSpinBox(this);
  tpb_->setSingleStep(32);
  form->addRow(tr("Threads per block:"), tpb_);
  regs_ = new QSpinBox(this);
  form->addRow(tr("Registers per thread:"), regs_);
  smem_ = new QSpinBox(this);
  smem_->setSingleStep(256);
  smem_->setSuffix(tr(" B"));
  form->addRow(tr("Shared memory per block:"), smem_);
  archFacts_ = new QLabel(this);
  archFacts_->setWordWrap(true);
  form->addRow(archFacts_);
  auto* formBox = new QWidget(this);
  formBox->setLayout(form);
  formBox->setMaximumWidth(420);
  top->addWidget(formBox);
  inputs_ = formBox;

  auto* right = new QVBoxLayout;
  limits_ = new QTableWidget(4, 4, this);
  limits_->setHorizontalHeaderLabels({tr("Limit"), tr("Blocks per SM"), tr("Without rounding"), tr("Why")});
  limits_->verticalHeader()->hide();
  limits_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  limits_->setSelectionMode(QAbstractItemView::NoSelection);
  limits_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  limits_->horizontalHeader()->setStretchLastSection(true);
  limits_->setWordWrap(false);
  limits_->verticalHeader()->setDefaultSectionSize(26);
  limits_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  // Four rows, always all visible: the table is the answer.
  limits_->setFixedHeight(limits_->horizontalHeader()->sizeHint().height() + 4 * 26 + 2 * limits_->frameWidth());
  right->addWidget(limits_);
  summary_ = new QLabel(this);
  QFont big = summary_->font();
  big.setBold(true);
  big.setPointSizeF(big.pointSizeF() * 1.15);
  summary_->setFont(big);
  right->addWidget(summary_);
  suggestion_ = new QLabel(this);
  suggestion_->setWordWrap(true);
  right->addWidget(suggestion_);
  right->addStretch(1);
  top->addLayout(right, 1);
  root->addLayout(top);

  auto* chartsRow = new QHBoxLayout;
  charts_[ByThreads] = makeChart(this, tr("Threads per block"));
  charts_[ByRegisters] = makeChart(this, tr("Registers per thread"));
  charts_[BySharedMemory] = makeChart(this, tr("Shared memory per block (KiB)"));
  for (auto* c : charts_) chartsRow->addWidget(c, 1);
  root->addLayout(chartsRow, 1);

  deviceTitle_ = new QLabel(this);
  deviceTitle_->setWordWrap(true);
  root->addWidget(deviceTitle_);
  device_ = new QTableWidget(0, 11, this);
  // Short headers, so the model's occupancy and ncu's two stay in view beside each other; each
  // header's tooltip says what its column is.
  device_->setHorizontalHeaderLabels({tr("Variant"), tr("Kernel"), tr("Threads"), tr("Regs"),
                                      tr("Shared B"), tr("Blocks/SM"), tr("Calc."), tr("Agree"),
                                      tr("Occupancy (calc.)"), tr("ncu theor."), tr("ncu achieved")});
  const QStringList tips = {
      tr("The variant"), tr("The kernel, as the run names it"), tr("Threads per block"),
      tr("Registers per thread (cudaFuncGetAttributes)"),
      tr("Shared memory per block, static + dynamic, in bytes"),
      tr("Blocks per SM from cudaOccupancyMaxActiveBlocksPerMultiprocessor on the run's device"),
      tr("Blocks per SM from KernelLab's occupancy calculator"),
      tr("Whether the calculator agrees with the device"),
      tr("The calculator's theoretical occupancy: resident warps over the SM's warp slots"),
      tr("Nsight Compute's theoretical occupancy (a profiled run): marked where it differs from the "
         "calculator by more than one percentage point"),
      tr("Nsight Compute's achieved occupancy (a profiled run): warps resident on average while the "
         "kernel ran")};
  for (int c = 0; c < tips.size(); ++c) device_->horizontalHeaderItem(c)->setToolTip(tips[c]);
  device_->verticalHeader()->hide();
  device_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  device_->setSelectionBehavior(QAbstractItemView::SelectRows);
  device_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  device_->horizontalHeader()->setStretchLastSection(true);
  device_->setMaximumHeight(170);
  root->addWidget(device_);

  connect(archCombo_, &QComboBox::currentIndexChanged, this, [this] { archChanged(); });
  for (auto* s : {tpb_, regs_, smem_}) connect(s, &QSpinBox::valueChanged, this, [this] { recompute(); });
  connect(device_, &QTableWidget::cellDoubleClicked, this, [this](int row) {
    if (row < 0 || row >= checks_.size()) return;
    const auto& c = checks_[row];
    setArch(QStringLiteral("device"));
    setInputs(c.input.threadsPerBlock, c.input.registersPerThread, c.input.sharedBytesPerBlock);
  });

  {
    const QSignalBlocker b1(tpb_), b2(regs_), b3(smem_);
    archCombo_->setCurrentIndex(archCombo_->findData(QStringLiteral("gt200")));
  }
  archChanged();
  setInputs(256, 9, 0);
  fillDeviceTable();
}

QString OccupancyView::arch() const { return archCombo_->currentData().toString(); }
QString OccupancyView::summaryText() const { return summary_->text(); }
QString OccupancyView::suggestionText() const { return suggestion_->text(); }

void OccupancyView::setDevice(const DeviceInfo& device, const QString& label) {
  const int existing = archCombo_->findData(QStringLiteral("device"));
  try {
    deviceArch_ = occupancy::archFromDevice(device);
  } catch (const std::exception&) {
    deviceArch_.reset();  // a CPU record: no GPU preset
  }
  const QSignalBlocker block(archCombo_);
  const bool wasDevice = arch() == QStringLiteral("device");
  if (existing >= 0) archCombo_->removeItem(existing);
  if (deviceArch_) {
    deviceName_ = QString::fromStdString(device.name);
    archCombo_->addItem((label.isEmpty() ? tr("This GPU: %1") : label).arg(QString::fromStdString(deviceArch_->name)),
                        QStringLiteral("device"));
    if (wasDevice) archCombo_->setCurrentIndex(archCombo_->count() - 1);
  } else if (wasDevice) {
    archCombo_->setCurrentIndex(archCombo_->findData(QStringLiteral("hopper")));
  }
  archChanged();
}

void OccupancyView::setArch(const QString& id) {
  const int i = archCombo_->findData(id);
  if (i < 0 || i == archCombo_->currentIndex()) return;
  archCombo_->setCurrentIndex(i);  // archChanged() through the signal
}

void OccupancyView::setInputs(int threadsPerBlock, int registersPerThread, int sharedBytesPerBlock) {
  {
    const QSignalBlocker b1(tpb_), b2(regs_), b3(smem_);
    tpb_->setValue(threadsPerBlock);
    regs_->setValue(registersPerThread);
    smem_->setValue(sharedBytesPerBlock);
  }
  recompute();
}

void OccupancyView::setResult(const RunResult& run) {
  // The run may come from another machine (a results file): its GPU, not necessarily this one.
  setDevice(run.device, tr("The run's GPU: %1"));
  checks_.clear();
  measured_.clear();
  for (auto& c : occupancy::checkRun(run)) {
    checks_.push_back(c);
    std::optional<MeasuredCounters> m;
    for (const auto& v : run.variants)
      if (v.variant == c.variant)
        if (const MeasuredCounters* found = countersFor(v.counters, c.kernel)) m = *found;
    measured_.push_back(m);
  }
  profileTool_ = run.profile ? QString::fromStdString(run.profile->tool) : QString();
  fillDeviceTable();
  if (!checks_.isEmpty() && deviceArch_) {
    setArch(QStringLiteral("device"));
    const auto& c = checks_.front();
    setInputs(c.input.threadsPerBlock, c.input.registersPerThread, c.input.sharedBytesPerBlock);
  }
}

void OccupancyView::archChanged() {
  const QString id = arch();
  if (id == QStringLiteral("device") && deviceArch_) arch_ = *deviceArch_;
  else arch_ = occupancy::archById(id.toStdString());
  {
    // Ranges are the architecture's own limits, so every input the spin boxes allow is valid.
    const QSignalBlocker b1(tpb_), b2(regs_), b3(smem_);
    tpb_->setRange(1, arch_.maxThreadsPerBlock);
    regs_->setRange(0, arch_.maxRegsPerThread);
    smem_->setRange(0, arch_.maxSharedPerBlock);
  }
  const bool perBlock = arch_.regGranularity == occupancy::RegisterGranularity::PerBlock;
  archFacts_->setText(
      tr("Per SM: %1 threads (%2 warps), %3 blocks, %4 registers, %5 KiB shared memory. "
         "Registers allocated per %6 in units of %7, warps in groups of %8; shared memory in "
         "%9-byte units%10. Source: %11.")
          .arg(arch_.maxThreadsPerSM).arg(arch_.maxWarpsPerSM()).arg(arch_.maxBlocksPerSM)
          .arg(arch_.regsPerSM).arg(arch_.sharedPerSM / 1024.0, 0, 'f', arch_.sharedPerSM % 1024 ? 1 : 0)
          .arg(perBlock ? tr("block") : tr("warp")).arg(arch_.regAllocUnit).arg(arch_.warpAllocGranularity)
          .arg(arch_.sharedAllocUnit)
          .arg(arch_.reservedSharedPerBlock > 0 ? tr(" plus %1 B reserved per block").arg(arch_.reservedSharedPerBlock) : QString())
          .arg(QString::fromStdString(arch_.source)));
  recompute();
}

void OccupancyView::recompute() {
  occupancy::Input in{tpb_->value(), regs_->value(), smem_->value()};
  try {
    result_ = occupancy::calculate(arch_, in);
  } catch (const std::exception& e) {
    // The spin ranges follow the architecture, so this only guards against a future mismatch.
    suggestion_->setText(QString::fromUtf8(e.what()));
    return;
  }
  fillLimits();
  summary_->setText((result_.activeBlocks == 1 ? tr("%1 block per SM: %2 of %3 warps, occupancy %4 %")
                                                : tr("%1 blocks per SM: %2 of %3 warps, occupancy %4 %"))
                        .arg(result_.activeBlocks).arg(result_.activeWarps).arg(result_.maxWarps)
                        .arg(100.0 * result_.occupancy, 0, 'f', 1));
  QString s = QString::fromStdString(result_.nextBlockText);
  if (!result_.cannotLaunch.empty())
    s = tr("Cannot launch: %1. ").arg(QString::fromStdString(result_.cannotLaunch)) + s;
  suggestion_->setText(s);
  fillCharts();
  emit inputsChanged(arch(), in.threadsPerBlock, in.registersPerThread, in.sharedBytesPerBlock);
}

void OccupancyView::fillLimits() {
  limits_->setRowCount(int(result_.limits.size()));
  for (int i = 0; i < int(result_.limits.size()); ++i) {
    const auto& l = result_.limits[size_t(i)];
    const bool binding = std::find(result_.binding.begin(), result_.binding.end(), l.limit) != result_.binding.end();
    const QStringList cells = {limitName(l.limit),
                               l.bounded ? QString::number(l.blocks) : tr("no limit"),
                               l.bounded ? QString::number(l.blocksWithoutGranularity) : QString(),
                               QString::fromStdString(l.explanation) + (binding ? tr("  (binding)") : QString())};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 1 || c == 2) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (binding) {
        item->setBackground(kBinding);
        QFont f = item->font();
        f.setBold(true);
        item->setFont(f);
      }
      item->setToolTip(cells[3]);
      limits_->setItem(i, c, item);
    }
  }
}

void OccupancyView::fillCharts() {
  const occupancy::Charts c = occupancy::charts(arch_, result_.input);
  auto fill = [](QCustomPlot* plot, const std::vector<occupancy::ChartPoint>& pts, double scale,
                 double current, double currentOcc) {
    QVector<double> x, y;
    for (const auto& p : pts) {
      x.push_back(p.x * scale);
      y.push_back(100.0 * p.occupancy);
    }
    plot->graph(0)->setData(x, y, true);
    plot->graph(1)->setData({current * scale}, {100.0 * currentOcc}, true);
    if (!x.isEmpty()) plot->xAxis->setRange(std::min(0.0, x.front()), x.back());
    plot->replot();
  };
  fill(charts_[ByThreads], c.byThreads, 1.0, result_.input.threadsPerBlock, result_.occupancy);
  fill(charts_[ByRegisters], c.byRegisters, 1.0, result_.input.registersPerThread, result_.occupancy);
  fill(charts_[BySharedMemory], c.bySharedMemory, 1.0 / 1024.0, result_.input.sharedBytesPerBlock, result_.occupancy);
}

void OccupancyView::fillDeviceTable() {
  if (checks_.isEmpty()) {
    deviceTitle_->setText(tr("<b>Measured on the device:</b> no CUDA run loaded. A result recorded on a "
                             "GPU lists every kernel's registers and shared memory "
                             "(cudaFuncGetAttributes) and its blocks per SM from "
                             "cudaOccupancyMaxActiveBlocksPerMultiprocessor next to the calculator's."));
    device_->setRowCount(0);
    device_->hide();
    return;
  }
  int agree = 0;
  for (const auto& c : checks_) agree += c.match;
  int profiled = 0;
  for (const auto& m : measured_) profiled += m.has_value();
  deviceTitle_->setText(tr("<b>Measured on %1:</b> registers and shared memory from "
                           "cudaFuncGetAttributes, blocks per SM from "
                           "cudaOccupancyMaxActiveBlocksPerMultiprocessor. The calculator agrees "
                           "on %2 of %3 kernels. Double-click a row to load it above.")
                            .arg(deviceName_.toHtmlEscaped()).arg(agree).arg(checks_.size()) +
                        (profiled ? tr(" <b>Counters</b> (%1, a profiled run) for %2 kernels: the "
                                       "theoretical occupancy ncu derives and the achieved one, "
                                       "the warps resident on average while the kernel ran "
                                       "(below the theoretical: tail waves, imbalance, short "
                                       "kernels).")
                                        .arg(profileTool_.toHtmlEscaped())
                                        .arg(profiled)
                                  : QString()));
  device_->show();
  device_->setRowCount(checks_.size());
  for (int i = 0; i < checks_.size(); ++i) {
    const auto& c = checks_[i];
    QStringList cells = {QString::fromStdString(c.variant), QString::fromStdString(c.kernel),
                               QString::number(c.input.threadsPerBlock),
                               QString::number(c.input.registersPerThread),
                               QString::number(c.input.sharedBytesPerBlock),
                               QString::number(c.deviceBlocks), QString::number(c.calculatorBlocks),
                               c.match ? tr("yes") : tr("NO"),
                               QString::number(100.0 * c.detail.occupancy, 'f', 1) + QStringLiteral(" %")};
    const auto& m = measured_[i];
    auto pct = [](double v) { return v < 0 ? QStringLiteral("-") : QString::number(v, 'f', 1) + QStringLiteral(" %"); };
    cells << (m ? pct(m->theoreticalOccupancyPct) : QStringLiteral("-"))
          << (m ? pct(m->achievedOccupancyPct) : QStringLiteral("-"));
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if ((col >= 2 && col <= 6) || col >= 8) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      item->setBackground(c.match ? kMatch : kMismatch);
      device_->setItem(i, col, item);
    }
    // The counters' theoretical occupancy against the calculator's: within one percentage point
    // they agree (ncu rounds); otherwise the cell says so.
    if (m && m->theoreticalOccupancyPct >= 0) {
      const double calc = 100.0 * c.detail.occupancy;
      const bool same = std::abs(calc - m->theoreticalOccupancyPct) <= 1.0;
      device_->item(i, 9)->setBackground(same ? kMatch : kMismatch);
      device_->item(i, 9)->setToolTip(same ? tr("ncu's theoretical occupancy agrees with the calculator")
                                           : tr("ncu's theoretical occupancy differs from the calculator's %1 %")
                                                 .arg(calc, 0, 'f', 1));
    }
  }
}

QImage OccupancyView::reportPicture() { return grabWithoutControls(this, {}, {inputs_}); }

}  // namespace kernellab::widgets
