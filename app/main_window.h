// SPDX-License-Identifier: MIT
// The KernelLab window. It only wires parts together: the experiment panel, the views (tabs),
// the run history, the run coordinator (worker thread), the status line and the exports.
#pragma once

#include <QMainWindow>
#include <QSize>
#include <QStringList>
#include <QTimer>

#include "app_types.h"
#include "kernellab/transpose.h"
#include "view_page.h"

class QLabel;
class QProgressBar;
class QPushButton;
class QTabWidget;

namespace kernellab::widgets {
class ExperimentPanel;
class MessageBanner;
}  // namespace kernellab::widgets

namespace kernellab::app {

class HistoryDock;
class HistoryStore;
class RunCoordinator;
class TargetsControl;
struct WindowActions;

class MainWindow : public QMainWindow, public PageHost {
  Q_OBJECT
 public:
  // `historyDir` defaults to <AppDataLocation>/history.
  explicit MainWindow(const QString& historyDir = QString(), QWidget* parent = nullptr);
  ~MainWindow() override;

  // Parts, for automation and tests.
  widgets::ExperimentPanel* panel() const { return panel_; }
  widgets::MessageBanner* banner() const { return banner_; }
  HistoryStore* history() const { return history_; }
  HistoryDock* historyDock() const { return historyDock_; }
  RunCoordinator* coordinator() const { return coordinator_; }
  TargetsControl* targets() const { return targets_; }
  // Runs go to this target from now on (Run > Targets...); false when there is none of that name.
  bool selectTarget(const QString& name);
  ViewPage* page(const QString& id) const;
  const ViewPages& pages() const { return pages_; }
  const RunSelection& selection() const { return selection_; }
  QString backendText() const;
  QString stageText() const;
  // What a report of the shown runs holds now (pictures taken from the views).
  struct ReportContent reportContent();

 public slots:
  // Results (.json) or points (.csv, .npy). A file that does not open changes nothing and
  // says why in the message strip.
  bool openPath(const QString& path, QString* error = nullptr) override;
  // A page's hint asks for a request in the panel (keeping the panel's backend), and a run.
  void usePreset(const kernellab::RunRequest& request, bool run) override;
  bool loadRequestFile(const QString& path, QString* error = nullptr);
  bool saveRequestFile(const QString& path, QString* error = nullptr);
  bool startRun();
  void cancelRun();
  // A page id ("schedule") or a part of a page ("gantt": the Schedule page's Gantt chart).
  bool showView(const QString& id);
  bool showChart(const QString& chartId);
  bool exportCharts(const QString& dir, QSize size, QStringList* written = nullptr, QString* error = nullptr);
  bool exportReport(const QString& path, QString* error = nullptr);
  // `primaryRun`: which run of the primary entry fills the single-run views (its first: 0).
  void selectEntries(const QStringList& ids, const QString& primary, int primaryRun = 0);
  void openDialog();
  void exportChartDialog();
  void exportReportDialog();

 signals:
  void runSettled(bool ok, const QString& message);

 protected:
  void closeEvent(QCloseEvent* e) override;
  // Coming back to the window shows the runs another window added to the shared history.
  void changeEvent(QEvent* e) override;

 private:
  void buildUi();
  void wireRuns();
  void restoreState();
  void saveState() const;
  void refreshViews();
  void panelEdited();
  void updateStatusBackend();
  void showError(const QString& text);
  QVector<struct PagePicture> pictures();

  widgets::ExperimentPanel* panel_ = nullptr;
  widgets::MessageBanner* banner_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  HistoryDock* historyDock_ = nullptr;
  HistoryStore* history_ = nullptr;
  RunCoordinator* coordinator_ = nullptr;
  TargetsControl* targets_ = nullptr;
  WindowActions* actions_ = nullptr;
  ViewPages pages_;
  RunSelection selection_;
  QStringList checked_;
  QString primary_;
  int primaryRun_ = 0;
  QLabel* backend_ = nullptr;
  QLabel* stage_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QTimer liveDelay_;
  QString cudaSummary_;
  bool cancelling_ = false;  // Cancel pressed, the run not stopped yet
  bool startWhenAnswered_ = false;  // Run pressed before the target said what it runs
  kernellab::Family runFamily_ = kernellab::transpose::kFamily;  // of the run in progress
  QSize exportSize_{1200, 700};
  QString exportDir_;
};

}  // namespace kernellab::app
