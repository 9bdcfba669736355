// SPDX-License-Identifier: MIT
// The Occupancy tab.
#include "occupancy_page.h"

#include <QVBoxLayout>

#include "kernellab/backend.h"
#include "kernellab/knn.h"
#include "kernellab/schedule_model.h"
#include "kernellab/transpose.h"
#include "model_charts.h"
#include "occupancy_view.h"
#include "page_hint.h"
#include "page_presets.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

// A run whose kernels carry the device's own resource record (a CUDA run).
bool hasResources(const RunResult& r) {
  for (const VariantResult& v : r.variants)
    for (const KernelResult& k : v.kernels)
      if (k.resources) return true;
  return false;
}

}  // namespace

OccupancyPage::OccupancyPage(QWidget* parent) {
  auto* content = new QWidget;
  auto* layout = new QVBoxLayout(content);
  layout->setContentsMargins(4, 4, 4, 4);
  hint_ = new PageHint(content);
  layout->addWidget(hint_, 0, Qt::AlignTop);
  view_ = new widgets::OccupancyView(content);
  layout->addWidget(view_, 1);
  refresh();
  root_ = makePageRoot(content, parent);
}

QWidget* OccupancyPage::widget() { return root_; }

void OccupancyPage::showRuns(const RunSelection& selection) {
  selection_ = selection;
  refresh();
}

void OccupancyPage::showBackend(const BackendStatus& status) {
  if (status.cudaUsable && !status.cudaDevices.empty()) machineGpu_ = status.cudaDevices.front();
  else machineGpu_.reset();
  refresh();
}

void OccupancyPage::refresh() {
  runLabel_.clear();
  deviceValues_ = false;
  kernelKnown_ = false;
  const RunRef* ref = selection_.pick(&hasResources);
  if (ref) {
    // The run's GPU becomes the "this GPU" preset and its kernels fill the device table.
    const RunResult& run = ref->run();
    view_->setResult(run);
    runLabel_ = ref->label;
    deviceName_ = fromStd(run.device.name);
    deviceValues_ = true;
    kernelKnown_ = true;
    hint_->clearHint();
    return;
  }
  // No device values to show: the table empties, the preset is this machine's GPU (if any).
  RunResult blank;
  blank.device = cpuDeviceInfo();
  view_->setResult(blank);
  if (machineGpu_) view_->setDevice(*machineGpu_);
  QString text;
  QVector<PageHint::Action> actions;
  if (const RunRef* any = selection_.primaryRun()) {
    const RunResult& run = any->run();
    runLabel_ = any->label;
    // The calculator takes the run's launch: threads per block of its first kernel, and the
    // shared memory of the kernel a view models. A transpose run is the padded kernel, as the
    // Schedule view's model has it (one function gives both). Registers are only known from a
    // CUDA build's kernels: 0 here, "not limiting", in both views.
    int tpb = run.request.launch.threadsPerBlock;
    int shared = 0;
    QString kernel;
    if (run.request.family == transpose::kFamily) {
      kernelKnown_ = true;
      const occupancy::Input in = schedule::transposeOccupancyInput(run.request, 0);
      tpb = in.threadsPerBlock;
      shared = in.sharedBytesPerBlock;
      kernel = tr("the padded transpose kernel (a %1 x %2 tile of floats: %L3 B of shared memory), "
                  "as in the "
                  "Schedule view's model")
                   .arg(run.request.section<TransposeProblem>().tile + 1)
                   .arg(run.request.section<TransposeProblem>().tile)
                   .arg(shared);
    } else {
      for (const VariantResult& v : run.variants) {
        if (!v.ok || v.kernels.empty()) continue;
        const KernelResult& k = v.kernels.front();
        if (k.blockX > 0) tpb = k.blockX * std::max(1, k.blockY);
        if (v.detail<KnnDetails>())
          shared = static_cast<int>(v.detail<KnnDetails>()->sharedBytesPerBlock);
        break;
      }
      kernel = shared > 0 ? tr("%L1 B of shared memory per block").arg(shared) : tr("no shared memory counted");
    }
    view_->setInputs(tpb, 0, shared);
    text = tr("Run %1 ran on the %2 backend: its kernels have no registers or CUDA occupancy API values to "
              "put next to the calculator (those are read from a CUDA device). The calculator shows its launch: "
              "%3 threads per block, %4; registers unknown (0, not limiting).")
               .arg(any->label, fromStd(run.backend).toUpper())
               .arg(tpb)
               .arg(kernel);
  } else {
    text = tr("No run selected: the calculator works on its own. Select a run recorded on a CUDA GPU to "
              "see every kernel's registers, shared memory and blocks per SM next to the calculator's answer.");
  }
  if (const QString example = recordedScheduleExample(); !example.isEmpty()) {
    text += QLatin1Char(' ') + tr("The sources ship a results file recorded on an NVIDIA H200.");
    actions.push_back({tr("Open the H200 results"), example, [this, example] {
                         if (host()) host()->openPath(example);
                       }});
  }
  hint_->showHint(text, actions);
}

QVector<widgets::ChartSpec> OccupancyPage::charts() const {
  // Exports and reports: only for a kernel of the run, not for a calculator left at its inputs.
  if (runLabel_.isEmpty() || !kernelKnown_) return {};
  const occupancy::Result& r = view_->result();
  QVector<widgets::ChartSpec> out = occupancyCharts(r.arch, r.input);
  if (deviceValues_) {
    std::vector<occupancy::DeviceCheck> checks(view_->deviceChecks().begin(), view_->deviceChecks().end());
    const widgets::ChartSpec device = occupancyDeviceChart(checks, deviceName_);
    if (!device.isEmpty()) out.prepend(device);
  }
  return out;
}

QImage OccupancyPage::snapshot() {
  // The device's own registers, shared memory and blocks per SM next to the calculator: only
  // a GPU run has them (its charts say the rest).
  if (!deviceValues_) return {};
  return view_->reportPicture();
}

QString OccupancyPage::chartRun(const widgets::ChartSpec&) const {
  const RunRef* ref = deviceValues_ ? selection_.pick(&hasResources) : selection_.primaryRun();
  return ref ? runStamp(ref->label, ref->run()) : QString();
}

QVector<ViewPicture> OccupancyPage::pictures() {
  const RunRef* ref = selection_.pick(&hasResources);
  const QImage image = snapshot();
  if (!ref || image.isNull()) return {};
  return {ViewPicture{QString(), tr("Occupancy of the kernels of %1").arg(runStamp(ref->label, ref->run())), image}};
}

}  // namespace kernellab::app
