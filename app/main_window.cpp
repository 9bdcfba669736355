// SPDX-License-Identifier: MIT
// The window: wiring only. Runs go through RunCoordinator, results through HistoryStore into a
// RunSelection that every view page receives; exports through export_service.
#include "main_window.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QVBoxLayout>

#include "app_settings.h"
#include "experiment_panel.h"
#include "export_dialog.h"
#include "export_service.h"
#include "history_dock.h"
#include "history_store.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/json_io.h"
#include "message_banner.h"
#include "results_validation.h"
#include "run_coordinator.h"
#include "run_text.h"
#include "targets_control.h"
#include "window_actions.h"

namespace kernellab::app {
namespace {

QVector<widgets::VariantSwitch> variantCatalog(Family f) {
  QVector<widgets::VariantSwitch> out;
  for (const auto& v : describeVariants(f))
    out.push_back({QString::fromStdString(v.id), QString::fromStdString(v.title), QString::fromStdString(v.explanation), v.cudaOnly});
  return out;
}

}  // namespace

MainWindow::MainWindow(const QString& historyDir, QWidget* parent) : QMainWindow(parent) {
  const QString dir = historyDir.isEmpty() ? HistoryStore::defaultDirectory() : historyDir;
  history_ = new HistoryStore(dir, this);
  coordinator_ = new RunCoordinator(dir, this);
  buildUi();
  wireRuns();
  restoreState();
}

MainWindow::~MainWindow() { delete actions_; }

void MainWindow::buildUi() {
  setWindowTitle(tr("KernelLab"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/kernellab.svg")));
  setDockNestingEnabled(true);

  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(4, 4, 4, 0);
  banner_ = new widgets::MessageBanner(central);
  tabs_ = new QTabWidget(central);
  tabs_->setDocumentMode(true);
  // The views squeeze rather than widen the window: it keeps the size it was given (a page of
  // wide controls once made a 1500 px window 2229 px wide).
  tabs_->setMinimumSize(1, 1);
  pages_ = makeViewPages(tabs_);
  for (const auto& page : pages_) {
    page->setHost(this);
    tabs_->addTab(page->widget(), page->title());
  }
  layout->addWidget(banner_);
  layout->addWidget(tabs_, 1);
  setCentralWidget(central);

  panel_ = new widgets::ExperimentPanel;
  panel_->setVariantCatalog(&variantCatalog);
  auto* scroll = new QScrollArea;
  scroll->setWidget(panel_);
  scroll->setWidgetResizable(true);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setMinimumWidth(panel_->sizeHint().width() + 24);
  auto* panelDock = new QDockWidget(tr("Experiment"), this);
  panelDock->setObjectName(QStringLiteral("experimentDock"));
  panelDock->setWidget(scroll);
  addDockWidget(Qt::LeftDockWidgetArea, panelDock);

  historyDock_ = new HistoryDock;
  auto* runsDock = new QDockWidget(tr("Runs"), this);
  runsDock->setObjectName(QStringLiteral("runsDock"));
  runsDock->setWidget(historyDock_);
  addDockWidget(Qt::BottomDockWidgetArea, runsDock);

  backend_ = new QLabel(this);
  backend_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  // The reason for a missing GPU can be long: the line clips rather than widen the window (the
  // tooltip holds all of it).
  backend_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  stage_ = new QLabel(this);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1000);
  progress_->setMaximumWidth(220);
  progress_->setTextVisible(true);
  progress_->hide();
  cancel_ = new QPushButton(tr("Cancel"), this);
  cancel_->setToolTip(tr("Stop after the launch in progress (Esc)"));
  cancel_->hide();
  // Where runs run (issue 11): the switch, then what that target's worker said about itself.
  targets_ = new TargetsControl(coordinator_, this);
  connect(targets_, &TargetsControl::changed, this, &MainWindow::updateStatusBackend);
  statusBar()->addWidget(targets_->switcher());
  statusBar()->addWidget(backend_, 1);
  statusBar()->addPermanentWidget(stage_);
  statusBar()->addPermanentWidget(progress_);
  statusBar()->addPermanentWidget(cancel_);

  resize(1500, 950);
  resizeDocks({runsDock}, {150}, Qt::Vertical);
  resizeDocks({panelDock}, {scroll->minimumWidth()}, Qt::Horizontal);
  actions_ = createWindowActions(this, {panelDock, runsDock});
  const QByteArray initialLayout = QMainWindow::saveState();
  connect(actions_->resetLayout, &QAction::triggered, this, [this, initialLayout] {
    QMainWindow::restoreState(initialLayout);
    for (QDockWidget* d : findChildren<QDockWidget*>()) d->show();
  });
  liveDelay_.setSingleShot(true);
  liveDelay_.setInterval(300);
  connect(&liveDelay_, &QTimer::timeout, this, &MainWindow::startRun);

  connect(panel_, &widgets::ExperimentPanel::edited, this, &MainWindow::panelEdited);
  connect(panel_, &widgets::ExperimentPanel::runRequested, this, &MainWindow::startRun);
  connect(panel_, &widgets::ExperimentPanel::cancelRequested, this, &MainWindow::cancelRun);
  connect(cancel_, &QPushButton::clicked, this, &MainWindow::cancelRun);
  connect(history_, &HistoryStore::changed, this, [this] { historyDock_->setEntries(history_->entries()); });
  connect(history_, &HistoryStore::problem, this, [this](const QString& text) {
    banner_->showMessage(text, widgets::MessageBanner::Level::Warning);
  });
  connect(historyDock_, &HistoryDock::selectionChanged, this,
          [this](const QStringList& ids, const QString& primary) { selectEntries(ids, primary); });
  historyDock_->setRunDescriber([this](const QString& id) {
    QVector<RunRow> rows;
    const HistoryEntry* e = history_->find(id);
    QString why;
    const ResultsPtr file = e ? history_->results(id, &why) : nullptr;
    if (!file) return rows;
    const QStringList labels = HistoryStore::runLabels(*e, *file);
    for (size_t i = 0; i < file->runs.size(); ++i) {
      const RunResult& r = file->runs[i];
      RunRow row{labels.value(static_cast<int>(i)), requestSummary(r.request), deviceShort(r), r.ok, fromStd(r.message)};
      for (const VariantResult& v : r.variants)
        if (!v.ok || (v.verification.performed && !v.verification.passed))
          row.problem += QStringLiteral("\n%1: %2").arg(variantTitle(r.request.family, v.variant),
                                                         v.ok ? fromStd(v.verification.note) : fromStd(v.error));
      rows << row;
    }
    return rows;
  });
  connect(historyDock_, &HistoryDock::runChosen, this, [this](const QString& id, int index) {
    QStringList ids = checked_;
    if (!ids.contains(id)) ids << id;
    selectEntries(ids, id, index);
  });
  connect(historyDock_, &HistoryDock::removeRequested, this, [this](const QString& id) {
    history_->remove(id);
    checked_.removeAll(id);
    selectEntries(checked_, primary_ == id ? QString() : primary_);
  });
  connect(historyDock_, &HistoryDock::loadSettingsRequested, this, [this](const QString& id, int runIndex) {
    QString why;
    ResultsPtr file = history_->results(id, &why);
    if (file && runIndex >= 0 && runIndex < static_cast<int>(file->runs.size())) {
      // One run of the file: exactly its request, without the file's sweep.
      panel_->setRequest(file->runs[static_cast<size_t>(runIndex)].request);
      panel_->setSweep(QString(), QString());
    } else if (file && !file->runs.empty()) {
      panel_->setRequest(file->runs.front().request);
      // A sweep runs again as a sweep: its axis and values with the first point as the base.
      const SweepAxis* axis = file->sweep.size() == 1 ? &file->sweep.front() : nullptr;
      QStringList values;
      if (axis)
        for (const std::string& v : axis->values) values << QString::fromStdString(v);
      panel_->setSweep(axis ? QString::fromStdString(axis->name) : QString(),
                       values.join(QLatin1Char(',')));
    } else
      showError(why);
    panelEdited();
  });
}

void MainWindow::wireRuns() {
  connect(coordinator_, &RunCoordinator::backendChanged, this, [this](const QString& summary) {
    cudaSummary_ = summary;
    updateStatusBackend();
  });
  connect(coordinator_, &RunCoordinator::backendStatusChanged, this, [this](const BackendStatus& status) {
    panel_->setCudaAvailability(status.cudaUsable, QString::fromStdString(status.cudaReason));
    for (const auto& p : pages_) p->showBackend(status);
    if (startWhenAnswered_ && coordinator_->backendAnswered()) {
      startWhenAnswered_ = false;
      startRun();
    }
  });
  connect(coordinator_, &RunCoordinator::started, this, [this](const RunRequest& r, const SweepAxes& axes) {
    runFamily_ = r.family;
    cancelling_ = false;
    cancel_->setEnabled(true);
    cancel_->setText(tr("Cancel"));
    cancel_->setToolTip(coordinator_->usingWorkers() ? tr("End the run now: its worker process stops at once (Esc)")
                                                     : tr("Stop after the launch in progress (Esc)"));
    for (const auto& p : pages_) p->runStarted(r, axes);
    progress_->setValue(0);
    progress_->show();
    cancel_->show();
    stage_->setText(tr("Starting..."));
    panel_->setRunning(true);
    actions_->cancel->setEnabled(true);
  });
  connect(coordinator_, &RunCoordinator::progress, this, [this](const QString& stage, double f) {
    if (!cancelling_) stage_->setText(stage);
    progress_->setValue(static_cast<int>(f * 1000));
  });
  connect(coordinator_, &RunCoordinator::iteration, this, [this](const LiveIteration& it) {
    for (const auto& p : pages_) p->showIteration(it);
  });
  connect(coordinator_, &RunCoordinator::stored, this,
          [this](const ResultsPtr& file, const QString& path, bool current, const QString& storeError) {
            if (path.isEmpty()) {
              showError(tr("The run finished but could not be kept in the history: %1").arg(storeError));
              return;
            }
            const HistoryEntry e =
                history_->adopt(path, file, tr("run on %1").arg(coordinator_->targetLabel()));
            if (!current) return;
            selectEntries({e.id}, e.id);
            const RunResult& last = file->runs.back();
            if (file->runs.size() == 1 && !last.ok) banner_->showMessage(QString::fromStdString(last.message), widgets::MessageBanner::Level::Warning);
            else banner_->clear();
            stage_->setText(tr("Done: run #%1").arg(e.number));
            emit runSettled(true, QString());
          });
  connect(coordinator_, &RunCoordinator::failed, this, [this](const QString& message, bool badInput) {
    // The request checks name command-line options; the window names its own fields.
    const QString said = inPanelTerms(message, runFamily_);
    showError(badInput ? tr("Cannot run: %1").arg(said) : tr("The run failed: %1").arg(said));
    stage_->setText(tr("Failed"));
    emit runSettled(false, message);
  });
  connect(coordinator_, &RunCoordinator::cancelled, this, [this] {
    stage_->setText(tr("Cancelled"));
    emit runSettled(false, tr("cancelled"));
  });
  connect(coordinator_, &RunCoordinator::settled, this, [this] {
    cancelling_ = false;
    progress_->hide();
    cancel_->hide();
    panel_->setRunning(false);
    actions_->cancel->setEnabled(false);
    for (const auto& p : pages_) p->runEnded();
  });
}

void MainWindow::restoreState() {
  QSettings s;
  panel_->setRequest(loadSavedRequest(s).value_or(defaultRequest()));
  panel_->setSweep(s.value(QStringLiteral("panel/sweepAxis")).toString(), s.value(QStringLiteral("panel/sweepValues")).toString());
  panel_->setLive(s.value(QStringLiteral("panel/live"), false).toBool());
  exportSize_ = s.value(QStringLiteral("export/size"), exportSize_).toSize();
  exportDir_ = s.value(QStringLiteral("export/dir"), QDir::homePath()).toString();
  for (const auto& p : pages_) p->restoreSettings(s);
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  QMainWindow::restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  // The family's own result view (its form's registration: the Clusters view for clustering).
  const QString familyView = panel_->resultView();
  showView(s.value(QStringLiteral("window/view"),
                   familyView.isEmpty() ? QStringLiteral("timing") : familyView)
               .toString());

  history_->load();
  QStringList checked = s.value(QStringLiteral("history/checked")).toStringList();
  QString primary = s.value(QStringLiteral("history/primary")).toString();
  checked.erase(std::remove_if(checked.begin(), checked.end(), [this](const QString& id) { return !history_->find(id); }),
                checked.end());
  if (checked.isEmpty() && !history_->entries().isEmpty() && !s.contains(QStringLiteral("history/checked")))
    checked << history_->entries().back().id;  // first start with a history: show the newest run
  selectEntries(checked, primary);
  panelEdited();
  updateStatusBackend();
}

void MainWindow::saveState() const {
  QSettings s;
  saveRequest(s, panel_->request());
  s.setValue(QStringLiteral("panel/sweepAxis"), panel_->sweepAxis());
  s.setValue(QStringLiteral("panel/sweepValues"), panel_->sweepValues());
  s.setValue(QStringLiteral("panel/live"), panel_->live());
  s.setValue(QStringLiteral("export/size"), exportSize_);
  s.setValue(QStringLiteral("export/dir"), exportDir_);
  s.setValue(QStringLiteral("history/checked"), checked_);
  s.setValue(QStringLiteral("history/primary"), primary_);
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), QMainWindow::saveState());
  if (tabs_->currentIndex() >= 0) s.setValue(QStringLiteral("window/view"), pages_[static_cast<size_t>(tabs_->currentIndex())]->id());
  for (const auto& p : pages_) p->saveSettings(s);
}

void MainWindow::closeEvent(QCloseEvent* e) {
  saveState();
  coordinator_->cancel();
  QMainWindow::closeEvent(e);
}

void MainWindow::changeEvent(QEvent* e) {
  if (e->type() == QEvent::ActivationChange && isActiveWindow()) history_->refresh();
  QMainWindow::changeEvent(e);
}

ViewPage* MainWindow::page(const QString& id) const {
  for (const auto& p : pages_)
    if (p->id() == id) return p.get();
  return nullptr;
}

QString MainWindow::backendText() const { return backend_->text(); }
QString MainWindow::stageText() const { return stage_->text(); }

void MainWindow::updateStatusBackend() {
  // Always say what runs and why: the GPU, or the CPU with CUDA's own reason.
  const RunRequest r = panel_->request();
  QString text;
  if (r.backend == BackendChoice::Cpu) text = tr("Backend: CPU (chosen in the panel)");
  else if (cudaSummary_.isEmpty()) text = tr("Backend: probing CUDA...");
  else text = tr("Backend: %1").arg(cudaSummary_);
  if (coordinator_->usingWorkers() || !targets_->list().currentTarget().isLocal())
    text = QStringLiteral("%1 · %2").arg(coordinator_->targetLabel(), text);
  backend_->setText(text);
  backend_->setToolTip(cudaSummary_.startsWith(QLatin1String("CPU"))
                           ? text + QStringLiteral("\n\n") +
                                 tr("No usable GPU: every run uses the multithreaded CPU backend, which runs the "
                                    "kernels' own index functions. Times are CPU times; the Timing charts show "
                                    "KernelLab's H200 runs beside them.")
                           : text);
}

void MainWindow::showError(const QString& text) {
  if (text.isEmpty()) return;
  banner_->showMessage(text, widgets::MessageBanner::Level::Error);
}

void MainWindow::panelEdited() {
  const RunRequest r = panel_->request();
  bool bad = false;
  const QString hint = launchHint(r, &bad);
  panel_->setLaunchHint(hint, bad);
  for (const auto& p : pages_) p->showRequest(r);
  updateStatusBackend();
  if (panel_->live() && panel_->problem().isEmpty() && !bad) liveDelay_.start();
}

bool MainWindow::startRun() {
  liveDelay_.stop();
  const QString problem = panel_->problem();
  if (!problem.isEmpty()) {
    banner_->showMessage(problem, widgets::MessageBanner::Level::Warning);
    emit runSettled(false, problem);
    return false;
  }
  if (!coordinator_->backendAnswered()) {
    // Which variants the panel may send depends on the target's backend (the GPU-only engines):
    // a run started before its worker's hello named them on a CPU target and was refused.
    startWhenAnswered_ = true;
    stage_->setText(tr("Waiting for %1...").arg(coordinator_->targetLabel()));
    return true;
  }
  QSettings s;
  saveRequest(s, panel_->request());
  coordinator_->start(panel_->request(), panel_->sweepAxes());
  return true;
}

void MainWindow::cancelRun() {
  liveDelay_.stop();
  if (startWhenAnswered_) {
    startWhenAnswered_ = false;
    stage_->setText(tr("Cancelled"));
  }
  if (!coordinator_->running()) return;
  coordinator_->cancel();
  // In-process, the run stops between two launches: say so until it has (a launch can take
  // seconds). A worker is ended at once.
  cancelling_ = true;
  stage_->setText(coordinator_->usingWorkers() ? tr("Cancelling...") : tr("Cancelling... (after the launch in progress)"));
  cancel_->setEnabled(false);
  cancel_->setText(tr("Cancelling..."));
  panel_->setCancelling();
  actions_->cancel->setEnabled(false);
}

void MainWindow::selectEntries(const QStringList& ids, const QString& primary, int primaryRun) {
  checked_ = ids;
  primary_ = ids.contains(primary) ? primary : (ids.isEmpty() ? QString() : ids.back());
  primaryRun_ = primaryRun;
  historyDock_->setChecked(checked_, primary_);
  refreshViews();
}

void MainWindow::refreshViews() {
  QString why;
  selection_ = history_->selection(checked_, primary_, &why);
  // A run chosen in its file's rows is the primary run (the file's first otherwise).
  if (primaryRun_ > 0)
    for (int i = 0; i < selection_.runs.size(); ++i)
      if (selection_.runs[i].entryId == primary_ && selection_.runs[i].index == primaryRun_) selection_.primary = i;
  if (!why.isEmpty()) showError(tr("Some runs could not be read: %1").arg(why));
  for (const auto& p : pages_) p->showRuns(selection_);
}

bool MainWindow::openPath(const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  QString why;
  if (suffix == QLatin1String("csv") || suffix == QLatin1String("npy")) {
    const std::string chosen = QFileInfo(path).absoluteFilePath().toStdString();
    if (!QFileInfo(path).isReadable()) why = tr("cannot open '%1' for reading").arg(path);
    else if (const QString refusal = namedFileRefusal(chosen, chosen); !refusal.isEmpty())
      why = refusal;
    else if (panel_->takeDataFile(path)) {  // a family's form takes it (clustering: points)
      panelEdited();
      if (!panel_->resultView().isEmpty()) showView(panel_->resultView());
      return true;
    } else {
      why = tr("no kernel family of this build reads '%1'").arg(QFileInfo(path).fileName());
    }
  } else {
    // Read as data: no blocking on a FIFO or device, every index checked, nothing it names read.
    const ResultsRead read = readResultsForWindow(path);
    why = read.error;
    HistoryEntry e;
    if (read.file &&
        history_->import(read.file, read.sha1,
                         tr("opened %1").arg(QFileInfo(path).absoluteFilePath()), &e, &why)) {
      selectEntries({e.id}, e.id);
      if (e.runs > 1) historyDock_->expandEntry(e.id);  // a row per run, each with its status
      QString message = tr("Opened %1: %n run(s) from %2, kept as run #%3.", nullptr, e.runs)
                            .arg(QFileInfo(path).fileName(), e.device)
                            .arg(e.number);
      // The panel holds the next run's settings, so opening a file leaves it alone; say so when
      // the views now show another family than the panel (users read the mismatch as a bug).
      // Every family of the file is named: a mixed file's views show them all.
      if (const FamilyDescriptor* panelFamily = findFamily(panel_->request().family)) {
        QStringList fileFamilies;
        bool another = false;
        for (const RunResult& run : read.file->runs)
          if (const FamilyDescriptor* f = findFamily(run.request.family)) {
            another = another || f->family != panelFamily->family;
            const QString title = QString::fromStdString(f->title);
            if (!fileFamilies.contains(title)) fileFamilies << title;
          }
        if (another)
          message += tr(" The views show its %1 runs; the panel keeps its %2 settings for the next run "
                        "(History: right-click its row, \"%3\").")
                         .arg(QLocale(QLocale::English).createSeparatedList(fileFamilies),
                              QString::fromStdString(panelFamily->title), HistoryDock::loadSettingsText());
      }
      banner_->showMessage(message, widgets::MessageBanner::Level::Info);
      return true;
    }
  }
  showError(tr("Cannot open: %1").arg(why));
  if (error) *error = why;
  return false;
}

void MainWindow::usePreset(const RunRequest& request, bool run) {
  RunRequest r = request;
  r.backend = panel_->request().backend;
  panel_->setRequest(r);
  panelEdited();
  if (run) startRun();
}

bool MainWindow::loadRequestFile(const QString& path, QString* error) {
  try {
    panel_->setRequest(readRequestFile(path.toStdString()));
    panelEdited();
    return true;
  } catch (const std::exception& ex) {
    showError(tr("Cannot load the request: %1").arg(QString::fromStdString(ex.what())));
    if (error) *error = QString::fromStdString(ex.what());
    return false;
  }
}

bool MainWindow::saveRequestFile(const QString& path, QString* error) {
  try {
    writeRequestFile(path.toStdString(), panel_->request());
    return true;
  } catch (const std::exception& ex) {
    showError(QString::fromStdString(ex.what()));
    if (error) *error = QString::fromStdString(ex.what());
    return false;
  }
}

bool MainWindow::selectTarget(const QString& name) { return targets_->select(name); }

bool MainWindow::showView(const QString& id) {
  for (size_t i = 0; i < pages_.size(); ++i)
    if (pages_[i]->id() == id || pages_[i]->parts().contains(id)) {
      tabs_->setCurrentIndex(static_cast<int>(i));
      if (pages_[i]->id() != id) pages_[i]->showPart(id);
      return true;
    }
  return false;
}

bool MainWindow::showChart(const QString& chartId) {
  for (const auto& p : pages_)
    if (p->showChart(chartId)) {
      showView(p->id());
      return true;
    }
  return false;
}

QVector<PagePicture> MainWindow::pictures() {
  // A page's picture is taken while its tab is on screen (OpenGL draws only what is shown).
  QVector<PagePicture> out;
  const int was = tabs_->currentIndex();
  for (size_t i = 0; i < pages_.size(); ++i) {
    tabs_->setCurrentIndex(static_cast<int>(i));
    QApplication::processEvents();
    for (const ViewPicture& p : pages_[i]->pictures())
      if (!p.image.isNull()) out.push_back({pages_[i]->id(), p.id, p.caption, p.image});
  }
  tabs_->setCurrentIndex(was);
  return out;
}

bool MainWindow::exportCharts(const QString& dir, QSize size, QStringList* written, QString* error) {
  QString why;
  const bool ok = exportAllCharts(pages_, pictures(), selection_, dir, size, widgets::allExportFormats(), written, &why);
  if (!ok) showError(tr("Export failed: %1").arg(why));
  if (error) *error = why;
  return ok;
}

ReportContent MainWindow::reportContent() { return collectReport(pages_, pictures(), selection_, backend_->text()); }

bool MainWindow::exportReport(const QString& path, QString* error) {
  QString why;
  const bool ok = writeReport(reportContent(), path, &why);
  if (!ok) showError(tr("Report failed: %1").arg(why));
  if (error) *error = why;
  return ok;
}

void MainWindow::openDialog() {
  const QString path = QFileDialog::getOpenFileName(
      this, tr("Open"), QString(), tr("Results and points (*.json *.json.xz *.csv *.npy);;Results (*.json *.json.xz);;Points (*.csv *.npy);;All files (*)"));
  if (!path.isEmpty()) openPath(path);
}

void MainWindow::exportChartDialog() {
  QVector<ChartChoice> choices;
  QString current;
  for (const auto& p : pages_) {
    for (const auto& c : p->charts())
      choices.push_back({p->id() + QLatin1Char('/') + c.id, QStringLiteral("%1: %2").arg(p->title(), c.title)});
    if (tabs_->currentWidget() == p->widget() && !p->currentChartId().isEmpty())
      current = p->id() + QLatin1Char('/') + p->currentChartId();
  }
  if (choices.isEmpty()) {
    banner_->showMessage(tr("There is no chart to export yet: run an experiment or open a results file."),
                         widgets::MessageBanner::Level::Info);
    return;
  }
  if (current.isEmpty()) current = choices.front().key;
  ExportDialog dialog(choices, current, exportSize_, exportDir_, this);
  if (dialog.exec() != QDialog::Accepted) return;
  const ExportChoice choice = dialog.choice();
  exportSize_ = choice.size;
  exportDir_ = choice.directory;
  QStringList written;
  QString why;
  for (const QString& key : choice.keys)
    if (!exportOneChart(pages_, key, choice.directory, choice.size, choice.formats, &written, &why)) {
      showError(tr("Export failed: %1").arg(why));
      return;
    }
  banner_->showMessage(tr("Exported %n file(s) into %1.", nullptr, static_cast<int>(written.size())).arg(choice.directory),
                       widgets::MessageBanner::Level::Info);
}

void MainWindow::exportReportDialog() {
  const QString path = QFileDialog::getSaveFileName(this, tr("Export report"), QDir(exportDir_).filePath(QStringLiteral("kernellab-report.html")),
                                                    tr("HTML report (*.html);;PDF report (*.pdf)"));
  if (path.isEmpty()) return;
  exportDir_ = QFileInfo(path).absolutePath();
  if (exportReport(path)) banner_->showMessage(tr("Report written: %1").arg(path), widgets::MessageBanner::Level::Info);
}

}  // namespace kernellab::app
