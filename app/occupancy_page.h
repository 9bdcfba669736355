// SPDX-License-Identifier: MIT
// The Occupancy tab: the occupancy calculator (seed 001) with this machine's GPU among its
// presets when CUDA works, and, for a run recorded on a GPU, every kernel's registers, shared
// memory and blocks per SM from the device next to the calculator's answer.
#pragma once

#include <QObject>
#include <optional>

#include "view_page.h"

namespace kernellab::widgets {
class OccupancyView;
}

namespace kernellab::app {

class PageHint;

class OccupancyPage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit OccupancyPage(QWidget* parent);

  QString id() const override { return QStringLiteral("occupancy"); }
  QString title() const override { return tr("Occupancy"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;
  void showBackend(const kernellab::BackendStatus& status) override;
  QVector<widgets::ChartSpec> charts() const override;
  QImage snapshot() override;
  QVector<ViewPicture> pictures() override;
  QString chartRun(const widgets::ChartSpec& chart) const override;

  widgets::OccupancyView* view() const { return view_; }
  PageHint* hint() const { return hint_; }
  QString runLabel() const { return runLabel_; }
  bool showsDeviceValues() const { return deviceValues_; }

 private:
  void refresh();

  QWidget* root_ = nullptr;
  PageHint* hint_ = nullptr;
  widgets::OccupancyView* view_ = nullptr;
  RunSelection selection_;
  std::optional<kernellab::DeviceInfo> machineGpu_;
  QString runLabel_;
  QString deviceName_;
  bool deviceValues_ = false;
  bool kernelKnown_ = false;  // the calculator shows a kernel of the run (its device's, or the padded transpose's)
};

}  // namespace kernellab::app
