// SPDX-License-Identifier: MIT
// Menus, toolbar and shortcuts.
#include "window_actions.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QMenuBar>
#include <QMessageBox>
#include <QToolBar>

#include "experiment_panel.h"
#include "kernellab/experiment.h"
#include "main_window.h"
#include "message_banner.h"
#include "targets_control.h"

namespace kernellab::app {

WindowActions* createWindowActions(MainWindow* w, const QList<QDockWidget*>& docks) {
  auto* a = new WindowActions;
  auto make = [w](const QString& text, const QKeySequence& key, const QString& tip) {
    auto* act = new QAction(text, w);
    if (!key.isEmpty()) act->setShortcut(key);
    act->setToolTip(key.isEmpty() ? tip : QStringLiteral("%1 (%2)").arg(tip, key.toString(QKeySequence::NativeText)));
    act->setStatusTip(tip);
    return act;
  };
  a->open = make(MainWindow::tr("&Open..."), QKeySequence::Open,
                 MainWindow::tr("Open a results file (kernellab-cli --json) or a points file (CSV, .npy)"));
  a->openRequest = make(MainWindow::tr("Open &request..."), QKeySequence(), MainWindow::tr("Load experiment settings from a request JSON"));
  a->saveRequest = make(MainWindow::tr("&Save request..."), QKeySequence::Save,
                        MainWindow::tr("Save the experiment settings as a request JSON (kernellab-cli run --request)"));
  a->exportChart = make(MainWindow::tr("&Export charts..."), QKeySequence(QStringLiteral("Ctrl+E")),
                        MainWindow::tr("Export charts as PNG, PDF or SVG and their data as CSV or JSON"));
  a->exportReport = make(MainWindow::tr("Export &report..."), QKeySequence(QStringLiteral("Ctrl+Shift+E")),
                         MainWindow::tr("One HTML or PDF file: device facts, configuration, charts, tables"));
  a->quit = make(MainWindow::tr("&Quit"), QKeySequence::Quit, MainWindow::tr("Quit KernelLab"));
  a->run = make(MainWindow::tr("&Run"), QKeySequence(QStringLiteral("Ctrl+R")), MainWindow::tr("Run the experiment"));
  a->run->setShortcuts({QKeySequence(QStringLiteral("Ctrl+R")), QKeySequence(Qt::Key_F5)});
  a->cancel = make(MainWindow::tr("&Cancel"), QKeySequence(Qt::Key_Escape), MainWindow::tr("Stop the run: a worker process ends at once, an in-process run after its launch in progress"));
  a->cancel->setEnabled(false);
  a->live = make(MainWindow::tr("&Live"), QKeySequence(QStringLiteral("Ctrl+L")),
                 MainWindow::tr("Re-run at once whenever a setting changes"));
  a->live->setCheckable(true);
  a->targets =
      make(MainWindow::tr("&Targets..."), QKeySequence(),
           MainWindow::tr("Where runs run: this machine, an SSH host, or a scheduler's command"));
  a->resetLayout = make(MainWindow::tr("Reset &layout"), QKeySequence(), MainWindow::tr("Put the panels back where they started"));

  QMenu* file = w->menuBar()->addMenu(MainWindow::tr("&File"));
  file->addAction(a->open);
  file->addAction(a->openRequest);
  file->addAction(a->saveRequest);
  file->addSeparator();
  file->addAction(a->exportChart);
  file->addAction(a->exportReport);
  file->addSeparator();
  file->addAction(a->quit);
  QMenu* run = w->menuBar()->addMenu(MainWindow::tr("&Run"));
  run->addAction(a->run);
  run->addAction(a->cancel);
  run->addAction(a->live);
  run->addSeparator();
  run->addAction(a->targets);
  QMenu* view = w->menuBar()->addMenu(MainWindow::tr("&View"));
  for (QDockWidget* d : docks) view->addAction(d->toggleViewAction());
  view->addSeparator();
  view->addAction(a->resetLayout);
  QMenu* help = w->menuBar()->addMenu(MainWindow::tr("&Help"));
  help->addAction(MainWindow::tr("&About KernelLab"), w, [w] {
    QMessageBox::about(w, MainWindow::tr("About KernelLab"),
                       MainWindow::tr("<b>%1</b><p>Runs CUDA kernels with each optimization switchable, "
                                      "checks every result against a CPU reference and shows why one "
                                      "variant beats another.</p><p>Shortcuts: Ctrl+R run, Esc cancel, "
                                      "Ctrl+L live, Ctrl+O open, Ctrl+E export charts, Ctrl+Shift+E "
                                      "export report.</p>")
                           .arg(QString::fromStdString(toolVersion())));
  });

  QToolBar* bar = w->addToolBar(MainWindow::tr("Main"));
  bar->setObjectName(QStringLiteral("mainToolBar"));
  bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
  bar->addAction(a->run);
  bar->addAction(a->cancel);
  bar->addAction(a->live);
  bar->addSeparator();
  bar->addAction(a->open);
  bar->addAction(a->exportChart);
  bar->addAction(a->exportReport);

  QObject::connect(a->open, &QAction::triggered, w, &MainWindow::openDialog);
  QObject::connect(a->openRequest, &QAction::triggered, w, [w] {
    const QString path = QFileDialog::getOpenFileName(w, MainWindow::tr("Open request"), QString(),
                                                      MainWindow::tr("Requests (*.json);;All files (*)"));
    if (!path.isEmpty()) w->loadRequestFile(path);
  });
  QObject::connect(a->saveRequest, &QAction::triggered, w, [w] {
    const QString path = QFileDialog::getSaveFileName(w, MainWindow::tr("Save request"), QStringLiteral("request.json"),
                                                      MainWindow::tr("Requests (*.json)"));
    if (!path.isEmpty()) w->saveRequestFile(path);
  });
  QObject::connect(a->exportChart, &QAction::triggered, w, &MainWindow::exportChartDialog);
  QObject::connect(a->exportReport, &QAction::triggered, w, &MainWindow::exportReportDialog);
  QObject::connect(a->quit, &QAction::triggered, w, &QWidget::close);
  QObject::connect(a->run, &QAction::triggered, w, &MainWindow::startRun);
  QObject::connect(a->cancel, &QAction::triggered, w, &MainWindow::cancelRun);
  QObject::connect(a->targets, &QAction::triggered, w, [w] { w->targets()->openDialog(); });
  QObject::connect(a->live, &QAction::toggled, w->panel(), &widgets::ExperimentPanel::setLive);
  QObject::connect(w->panel(), &widgets::ExperimentPanel::liveToggled, a->live, &QAction::setChecked);
  return a;
}

}  // namespace kernellab::app
