// SPDX-License-Identifier: MIT
// The Schedule tab.
#include "schedule_page.h"

#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSignalBlocker>
#include <QTabWidget>
#include <QVBoxLayout>
#include <algorithm>

#include "gantt_view.h"
#include "kernellab/errors.h"
#include "kernellab/schedule_model.h"
#include "kernellab/transpose.h"
#include "model_charts.h"
#include "page_hint.h"
#include "page_presets.h"
#include "run_text.h"
#include "schedule_view.h"

namespace kernellab::app {
namespace {

const QString kRunArch = QStringLiteral("run");
constexpr double kPreviewBlocks = 1 << 18;  // 512 x 512 tiles: a 16384^2 matrix
const QString kDeviceArch = QStringLiteral("device");

bool isTranspose(const RunResult& r) { return r.request.family == transpose::kFamily; }

bool hasSchedule(const RunResult& r) {
  for (const VariantResult& v : r.variants)
    if (!v.schedule.empty()) return true;
  return false;
}

// Registers per thread of the padded kernel when the run measured them (CUDA), else 0: the
// schedule model's residency then follows threads and shared memory only.
int paddedRegisters(const RunResult& r) {
  for (const VariantResult& v : r.variants)
    if (v.variant == "padded")
      for (const KernelResult& k : v.kernels)
        if (k.resources) return k.resources->registersPerThread;
  return 0;
}

QString gpuLabel(const DeviceInfo& d) {
  return QStringLiteral("%1 (cc %2.%3, %4 SMs)").arg(fromStd(d.name)).arg(d.ccMajor).arg(d.ccMinor).arg(d.smCount);
}

}  // namespace

SchedulePage::SchedulePage(QWidget* parent) {
  root_ = makePageRoot(new QWidget, parent);
  auto* layout = new QVBoxLayout(root_);
  layout->setContentsMargins(0, 0, 0, 0);
  tabs_ = new QTabWidget(root_);
  tabs_->setDocumentMode(true);
  layout->addWidget(tabs_);

  auto* model = new QWidget;
  auto* ml = new QVBoxLayout(model);
  ml->setContentsMargins(4, 4, 4, 4);
  modelHint_ = new PageHint(model);
  ml->addWidget(modelHint_);
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Architecture:"), model));
  arch_ = new QComboBox(model);
  arch_->setToolTip(tr("SMs and resident blocks per SM of the model come from this architecture's "
                       "occupancy (the padded kernel's block and shared memory)"));
  row->addWidget(arch_);
  source_ = new QLabel(model);
  source_->setWordWrap(true);
  row->addWidget(source_, 1);
  ml->addLayout(row);
  schedule_ = new widgets::ScheduleView(model);
  ml->addWidget(schedule_, 1);
  tabs_->addTab(makePageRoot(model, tabs_), tr("Model: Cartesian vs diagonal"));

  auto* recorded = new QWidget;
  auto* rl = new QVBoxLayout(recorded);
  rl->setContentsMargins(4, 4, 4, 4);
  ganttHint_ = new PageHint(recorded);
  rl->addWidget(ganttHint_);
  ganttSource_ = new QLabel(recorded);
  ganttSource_->setWordWrap(true);
  rl->addWidget(ganttSource_);
  gantt_ = new widgets::GanttView(recorded);
  rl->addWidget(gantt_, 1);
  tabs_->addTab(makePageRoot(recorded, tabs_), tr("Recorded on the GPU (Gantt)"));

  connect(arch_, &QComboBox::activated, this, [this] {
    wantedArch_ = arch_->currentData().toString();
    userHashed_.reset();
    refreshModel();
  });
  connect(schedule_, &widgets::ScheduleView::partitionMappingChanged, this, [this](bool hashed) { userHashed_ = hashed; });
  refreshArchChoices();
  refreshModel();
  refreshGantt();
}

QWidget* SchedulePage::widget() { return root_; }

QString SchedulePage::archId() const { return arch_->currentData().toString(); }

bool SchedulePage::setArch(const QString& id) {
  wantedArch_ = id;
  userHashed_.reset();
  refreshArchChoices();
  refreshModel();
  return archId() == id;
}

QString SchedulePage::currentPart() const { return tabs_->currentIndex() == 1 ? QStringLiteral("gantt") : QStringLiteral("schedule-model"); }

bool SchedulePage::showPart(const QString& part) {
  const int i = parts().indexOf(part);
  if (i < 0) return false;
  tabs_->setCurrentIndex(i);
  return true;
}

const RunRef* SchedulePage::modelRun() const { return selection_.pick(&isTranspose); }

void SchedulePage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  // A run recorded on a GPU is modelled on that GPU when it comes into view; the user's choice of
  // another architecture then holds until another run does.
  const RunRef* ref = modelRun();
  const QString key = ref ? QStringLiteral("%1/%2").arg(ref->entryId).arg(ref->index) : QString();
  if (key != modelRunKey_) {
    modelRunKey_ = key;
    if (ref && ref->run().device.backend == "cuda") {
      wantedArch_ = kRunArch;
      userHashed_.reset();
    } else if (wantedArch_ == kRunArch) {
      wantedArch_ = QStringLiteral("gt200");  // the teaching default for runs without a GPU
    }
  }
  refreshArchChoices();
  refreshModel();
  refreshGantt();
}

void SchedulePage::showRequest(const RunRequest& request) {
  panelRequest_ = request;
  if (!modelRun()) refreshModel();  // the model previews the panel's transpose settings
  if (!selection_.pick(&hasSchedule)) refreshGantt();
}

void SchedulePage::showBackend(const BackendStatus& status) {
  if (status.cudaUsable && !status.cudaDevices.empty()) machineGpu_ = status.cudaDevices.front();
  else machineGpu_.reset();
  refreshArchChoices();
  refreshModel();
}

void SchedulePage::refreshArchChoices() {
  const QSignalBlocker block(arch_);
  arch_->clear();
  for (const auto& a : occupancy::presets()) arch_->addItem(fromStd(a.name), fromStd(a.id));
  const RunRef* ref = modelRun();
  if (ref && ref->run().device.backend == "cuda")
    arch_->addItem(tr("The run's GPU: %1").arg(gpuLabel(ref->run().device)), kRunArch);
  if (machineGpu_) arch_->addItem(tr("This machine's GPU: %1").arg(gpuLabel(*machineGpu_)), kDeviceArch);
  int i = arch_->findData(wantedArch_);
  if (i < 0) i = arch_->findData(QStringLiteral("gt200"));
  arch_->setCurrentIndex(i);
}

std::optional<occupancy::ArchSpec> SchedulePage::chosenArch(QString* why) const {
  const QString id = archId();
  try {
    if (id == kRunArch) {
      const RunRef* ref = modelRun();
      if (!ref) return std::nullopt;
      return occupancy::archFromDevice(ref->run().device);
    }
    if (id == kDeviceArch) {
      if (!machineGpu_) return std::nullopt;
      return occupancy::archFromDevice(*machineGpu_);
    }
    return occupancy::archById(id.toStdString());
  } catch (const std::exception& e) {
    if (why) *why = QString::fromStdString(e.what());
    return std::nullopt;
  }
}

void SchedulePage::refreshModel() {
  const RunRef* ref = modelRun();
  RunRequest request;
  QString hint;
  QVector<PageHint::Action> actions;
  modelRunLabel_.clear();
  modelFromRun_ = false;
  if (ref) {
    request = ref->run().request;
    modelRunLabel_ = tr("run %1 (%2)").arg(ref->label, requestSummary(request));
  } else {
    // The panel's settings are previewed as they are typed: only grids that simulate in a blink.
    const RunRequest& p = panelRequest_;
    const int tile = std::max(1, p.section<TransposeProblem>().tile);
    const double blocks = double((p.section<TransposeProblem>().width + tile - 1) / tile) *
                          double((p.section<TransposeProblem>().height + tile - 1) / tile);
    const bool panelTranspose = p.family == transpose::kFamily && blocks <= kPreviewBlocks;
    request = panelTranspose ? p : transposePreset();
    const RunRef* primary = selection_.primaryRun();
    hint = primary ? tr("The selected run %1 is a %2 run: the block-schedule model is the transpose's (a "
                        "block reads one tile and writes the transposed tile). Select a transpose run to model it.")
                         .arg(primary->label, familyTitle(primary->run().request.family))
                   : tr("No transpose run selected: select one in the Runs list, or run one.");
    hint += QLatin1Char(' ') +
            (panelTranspose
                 ? tr("Shown meanwhile: the model of the experiment panel's transpose settings "
                      "(not run yet).")
                 : tr("Shown meanwhile: the model of the transpose paper's 2048 x 2048 matrix%1.")
                       .arg(p.family == transpose::kFamily
                                ? tr(" (the panel's matrix is too large to preview)")
                                : QString()));
    actions.push_back({tr("Set up a transpose run"), tr("Matrix transpose, every variant, 2048 x 2048, in the experiment panel"),
                       [this] {
                         if (host()) host()->usePreset(transposePreset(), false);
                       }});
    actions.push_back({tr("Run it"), tr("Run every transpose variant on 2048 x 2048 now"), [this] {
                         if (host()) host()->usePreset(transposePreset(), true);
                       }});
  }
  QString why;
  const std::optional<occupancy::ArchSpec> arch = chosenArch(&why);
  if (!arch) {
    modelHint_->showHint(tr("Cannot model this architecture: %1").arg(why));
    return;
  }
  try {
    schedule::Config config = schedule::transposeConfig(request, *arch, archId() == kRunArch && ref ? paddedRegisters(ref->run()) : 0);
    // Since compute capability 2.0 addresses are hashed over partitions: start from what the
    // chosen architecture does; the toggle stays the user's once touched.
    const bool hashed = userHashed_.value_or(arch->ccMajor >= 2);
    config.partitions.mapping = hashed ? schedule::PartitionMapping::Hashed : schedule::PartitionMapping::Linear;
    schedule_->setConfig(config);
  } catch (const std::exception& e) {
    modelHint_->showHint(tr("The padded transpose of %1 cannot be modelled on %2: %3. Choose another architecture.")
                             .arg(requestSummary(request), fromStd(arch->name), QString::fromStdString(e.what())),
                         actions);
    return;
  }
  modelContext_ = tr("%1 on %2").arg(requestSummary(request), fromStd(arch->name));
  modelFromRun_ = ref != nullptr;
  source_->setText(ref ? tr("Model of %1 on %2.").arg(modelRunLabel_, fromStd(arch->name))
                       : tr("Model of %1 on %2 (not a run).").arg(requestSummary(request), fromStd(arch->name)));
  if (hint.isEmpty()) modelHint_->clearHint();
  else modelHint_->showHint(hint, actions);
}

void SchedulePage::refreshGantt() {
  const RunRef* ref = selection_.pick(&hasSchedule);
  ganttRunLabel_.clear();
  if (ref) {
    const RunResult& run = ref->run();
    ganttRunLabel_ = tr("run %1 (%2)").arg(ref->label, requestSummary(run.request));
    gantt_->setResult(run);
    ganttHint_->clearHint();
    ganttSource_->setText(tr("Recorded in %1 on %2 with %smid and %globaltimer: one lane per SM, one bar "
                             "per block. Drag and scroll to zoom the time axis.")
                              .arg(ganttRunLabel_, deviceShort(run)));
    ganttSource_->show();
    return;
  }
  gantt_->setRuns({});
  ganttSource_->hide();
  QString text = tr("No recorded block schedule in the selected runs.");
  if (const RunRef* t = modelRun(); t && t->run().request.recordSchedule && t->run().backend != "cuda")
    text += QLatin1Char(' ') + tr("Run %1 asked for schedules but ran on the CPU backend, which has no SMs, "
                                  "%smid or %globaltimer: schedules are recorded on a CUDA GPU only.")
                                   .arg(t->label);
  else
    text += QLatin1Char(' ') + tr("Tick \"Record block schedule\" in the experiment panel and run a transpose on a "
                                  "CUDA GPU (kernellab-cli run transpose --record-schedule on a GPU server works too).");
  QVector<PageHint::Action> actions;
  const QString example = recordedScheduleExample();
  if (!example.isEmpty()) {
    text += QLatin1Char(' ') + tr("The sources ship one recorded on an NVIDIA H200: padded vs diagonal, 4096 x 4096.");
    actions.push_back({tr("Open the H200 recording"), example, [this, example] {
                         if (host()) host()->openPath(example);
                       }});
  }
  actions.push_back({tr("Set up a recorded run"), tr("Padded vs diagonal, 4096 x 4096, schedules recorded"), [this] {
                       if (host()) host()->usePreset(recordedSchedulePreset(), false);
                     }});
  ganttHint_->showHint(text, actions);
}

QVector<widgets::ChartSpec> SchedulePage::charts() const {
  QVector<widgets::ChartSpec> out;
  // Only for a selected run: a report of a k-means run has no use for a transpose model.
  if (modelFromRun_) {
    const auto& cart = schedule_->model(schedule::Mapping::Cartesian);
    const auto& diag = schedule_->model(schedule::Mapping::Diagonal);
    out << partitionShareChart(cart, diag, modelContext_) << waveLoadChart(cart, diag, schedule_->wave(), modelContext_);
  }
  if (const RunRef* ref = selection_.pick(&hasSchedule)) out << recordedConcurrencyChart(ref->run());
  return out;
}

QString SchedulePage::chartRun(const widgets::ChartSpec& chart) const {
  // The recorded chart is the Gantt run's; the model's charts the modelled run's.
  const RunRef* ref = chart.id.startsWith(QStringLiteral("gantt")) ? selection_.pick(&hasSchedule) : modelRun();
  return ref ? runStamp(ref->label, ref->run()) : QString();
}

QVector<ViewPicture> SchedulePage::pictures() {
  QVector<ViewPicture> out;
  const int was = tabs_->currentIndex();
  // The views alone: not the page's architecture choice and hints, not the views' controls.
  auto grab = [&](int tab, const QString& id, const QString& caption, auto picture) {
    tabs_->setCurrentIndex(tab);
    QApplication::processEvents();
    out.push_back({id, caption, picture()});
  };
  if (const RunRef* ref = modelRun(); ref && modelFromRun_)
    grab(0, QStringLiteral("model"),
         tr("Block-schedule model of %1 on %2").arg(runStamp(ref->label, ref->run()), arch_->currentText()),
         [this] { return schedule_->reportPicture(); });
  if (const RunRef* ref = selection_.pick(&hasSchedule))
    grab(1, QStringLiteral("gantt"), tr("Recorded block schedule of %1").arg(runStamp(ref->label, ref->run())),
         [this] { return gantt_->reportPicture(); });
  tabs_->setCurrentIndex(was);
  return out;
}

void SchedulePage::saveSettings(QSettings& s) const {
  s.setValue(QStringLiteral("schedule/arch"), wantedArch_);
  s.setValue(QStringLiteral("schedule/part"), currentPart());
  s.setValue(QStringLiteral("schedule/ganttSms"), gantt_->smsShown());
  s.setValue(QStringLiteral("schedule/ganttColorByRun"), gantt_->colorBy() == widgets::GanttView::ColorBy::Run);
}

void SchedulePage::restoreSettings(QSettings& s) {
  wantedArch_ = s.value(QStringLiteral("schedule/arch"), QStringLiteral("gt200")).toString();
  showPart(s.value(QStringLiteral("schedule/part"), QStringLiteral("schedule-model")).toString());
  gantt_->setSmsShown(s.value(QStringLiteral("schedule/ganttSms"), 0).toInt());
  if (s.value(QStringLiteral("schedule/ganttColorByRun"), false).toBool()) gantt_->setColorBy(widgets::GanttView::ColorBy::Run);
  refreshArchChoices();
  refreshModel();
}

}  // namespace kernellab::app
