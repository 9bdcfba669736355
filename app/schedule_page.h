// SPDX-License-Identifier: MIT
// The Schedule tab: the block-schedule model of the shown transpose run (Cartesian vs diagonal
// blockIdx side by side, waves, memory partitions) on a chosen architecture (GT200 by default,
// the run's own GPU, this machine's GPU), and the schedule recorded on the GPU as a Gantt chart
// (one lane per SM) with the measured overhead of recording.
#pragma once

#include <QObject>
#include <optional>

#include "kernellab/occupancy.h"
#include "view_page.h"

class QComboBox;
class QLabel;
class QTabWidget;

namespace kernellab::widgets {
class GanttView;
class ScheduleView;
}  // namespace kernellab::widgets

namespace kernellab::app {

class PageHint;

class SchedulePage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit SchedulePage(QWidget* parent);

  QString id() const override { return QStringLiteral("schedule"); }
  QString title() const override { return tr("Schedule"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;
  void showRequest(const kernellab::RunRequest& request) override;
  void showBackend(const kernellab::BackendStatus& status) override;
  QVector<widgets::ChartSpec> charts() const override;
  QVector<ViewPicture> pictures() override;
  QString chartRun(const widgets::ChartSpec& chart) const override;
  QStringList parts() const override { return {QStringLiteral("schedule-model"), QStringLiteral("gantt")}; }
  bool showPart(const QString& part) override;
  void saveSettings(QSettings& settings) const override;
  void restoreSettings(QSettings& settings) override;

  widgets::ScheduleView* scheduleView() const { return schedule_; }
  widgets::GanttView* ganttView() const { return gantt_; }
  PageHint* modelHint() const { return modelHint_; }
  PageHint* ganttHint() const { return ganttHint_; }
  QComboBox* archChoice() const { return arch_; }
  QString archId() const;
  bool setArch(const QString& id);
  QString currentPart() const;
  // "run #3 (transpose 4096x4096 ...)" when the model follows a selected run, else empty.
  QString modelRunLabel() const { return modelRunLabel_; }
  QString ganttRunLabel() const { return ganttRunLabel_; }

 private:
  void refreshArchChoices();
  void refreshModel();
  void refreshGantt();
  std::optional<occupancy::ArchSpec> chosenArch(QString* why) const;
  const RunRef* modelRun() const;

  QWidget* root_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  PageHint* modelHint_ = nullptr;
  PageHint* ganttHint_ = nullptr;
  QComboBox* arch_ = nullptr;
  QLabel* source_ = nullptr;
  widgets::ScheduleView* schedule_ = nullptr;
  QLabel* ganttSource_ = nullptr;
  widgets::GanttView* gantt_ = nullptr;

  RunSelection selection_;
  kernellab::RunRequest panelRequest_;
  std::optional<kernellab::DeviceInfo> machineGpu_;
  QString wantedArch_ = QStringLiteral("gt200");
  QString modelRunKey_;  // the run the model showed last: a newly opened GPU run brings its GPU
  std::optional<bool> userHashed_;   // the partition toggle as the user left it, per architecture
  QString modelRunLabel_;
  QString ganttRunLabel_;
  QString modelContext_;
  bool modelFromRun_ = false;   // the model on screen is a selected run's
};

}  // namespace kernellab::app
