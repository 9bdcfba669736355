// SPDX-License-Identifier: MIT
// OccupancyView: the occupancy calculator (seed 001). Inputs (architecture preset or this GPU,
// threads per block, registers per thread, shared memory per block), the blocks each limit
// allows with the binding one highlighted, what lets the next block in, occupancy against each
// input, and, for a CUDA run, the device's own answer for every kernel next to the calculator's.
#pragma once

#include <QString>
#include <QVector>
#include <QImage>
#include <QWidget>
#include <optional>

#include "kernellab/occupancy.h"
#include "kernellab/result.h"

class QLayout;
class QComboBox;
class QCustomPlot;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace kernellab::widgets {

class OccupancyView : public QWidget {
  Q_OBJECT

 public:
  enum Chart { ByThreads = 0, ByRegisters = 1, BySharedMemory = 2 };

  explicit OccupancyView(QWidget* parent = nullptr);

  // Adds (or refreshes) the "this GPU" preset from a CUDA device; a CPU DeviceInfo removes it.
  // `label` names the preset ("%1" is the architecture's name); default "This GPU: %1".
  void setDevice(const DeviceInfo& device, const QString& label = QString());
  // A preset id ("gt200", ...) or "device".
  void setArch(const QString& id);
  void setInputs(int threadsPerBlock, int registersPerThread, int sharedBytesPerBlock);
  // The run's device becomes the device preset ("The run's GPU"); its kernels fill the device
  // table, and the first kernel's resources become the inputs.
  void setResult(const RunResult& run);

  QString arch() const;
  const occupancy::Result& result() const { return result_; }
  const QVector<occupancy::DeviceCheck>& deviceChecks() const { return checks_; }
  QTableWidget* limitsTable() const { return limits_; }
  QTableWidget* deviceTable() const { return device_; }
  QCustomPlot* chart(Chart which) const { return charts_[which]; }
  QString summaryText() const;
  QString suggestionText() const;

 signals:
  void inputsChanged(const QString& arch, int threadsPerBlock, int registersPerThread,
                     int sharedBytesPerBlock);

 public:
  // The view for reports: the limits, the charts and the device table, without the inputs.
  QImage reportPicture();

 private:
  void archChanged();
  void recompute();
  void fillLimits();
  void fillCharts();
  void fillDeviceTable();

  std::optional<occupancy::ArchSpec> deviceArch_;
  occupancy::ArchSpec arch_;
  occupancy::Result result_;
  QVector<occupancy::DeviceCheck> checks_;
  // Per check: the kernel's counters when the run was profiled (kernellab-cli profile).
  QVector<std::optional<MeasuredCounters>> measured_;
  QString profileTool_;
  QString deviceName_;
  QComboBox* archCombo_ = nullptr;
  QSpinBox* tpb_ = nullptr;
  QSpinBox* regs_ = nullptr;
  QSpinBox* smem_ = nullptr;
  QLabel* archFacts_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* suggestion_ = nullptr;
  QTableWidget* limits_ = nullptr;
  QCustomPlot* charts_[3] = {nullptr, nullptr, nullptr};
  QLabel* deviceTitle_ = nullptr;
  QTableWidget* device_ = nullptr;
  QWidget* inputs_ = nullptr;
};

}  // namespace kernellab::widgets
