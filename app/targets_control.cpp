// SPDX-License-Identifier: MIT
// The window's targets: saved list, status-bar switch, dialog, coordinator.
#include "targets_control.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>

#include "kernellab/text.h"
#include "run_coordinator.h"
#include "targets_dialog.h"
#include "worker_runs.h"

namespace kernellab::app {

TargetsControl::TargetsControl(RunCoordinator* coordinator, QWidget* window)
    : QObject(window), coordinator_(coordinator), window_(window) {
  QSettings s;
  list_.load(s);
  switchBox_ = new QWidget(window);
  auto* layout = new QHBoxLayout(switchBox_);
  layout->setContentsMargins(0, 0, 6, 0);
  layout->addWidget(new QLabel(tr("Target:"), switchBox_));
  switch_ = new QComboBox(switchBox_);
  switch_->setObjectName(QStringLiteral("targetSwitch"));
  switch_->setToolTip(
      tr("Where runs run: this machine, an SSH host or a scheduler (Run > Targets...)"));
  switch_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  layout->addWidget(switch_);
  fillSwitch();
  connect(switch_, &QComboBox::activated, this, [this](int index) {
    const QString name = switch_->itemData(index).toString();
    if (name.isEmpty())
      openDialog();
    else
      select(name);
  });
  coordinator_->setTargets(list_);
  connect(coordinator_->workers(), &WorkerRuns::probed, this, &TargetsControl::probed);
}

QWidget* TargetsControl::switcher() const { return switchBox_; }

void TargetsControl::fillSwitch() {
  const QSignalBlocker block(switch_);
  switch_->clear();
  for (const Target& t : list_.all()) switch_->addItem(t.label(), t.name);
  switch_->addItem(tr("Targets..."), QString());
  switch_->setCurrentIndex(switch_->findData(list_.current()));
}

void TargetsControl::apply() {
  QSettings s;
  list_.save(s);
  fillSwitch();
  coordinator_->setTargets(list_);
  emit changed();
}

QString TargetsControl::put(const Target& t, const QString& formerName) {
  if (const QString why = t.problem(); !why.isEmpty()) return why;
  if (t.name != formerName && list_.find(t.name))
    return tr("a target named '%1' exists already").arg(t.name);
  if (!formerName.isEmpty() && formerName != t.name) {
    const bool wasCurrent = list_.current() == formerName;
    list_.remove(formerName);
    list_.put(t);
    if (wasCurrent) list_.setCurrent(t.name);
  } else {
    list_.put(t);
  }
  apply();
  return {};
}

bool TargetsControl::remove(const QString& name) {
  if (!list_.remove(name)) return false;
  apply();
  return true;
}

bool TargetsControl::select(const QString& name) {
  if (!list_.setCurrent(name)) return false;
  apply();
  return true;
}

void TargetsControl::probe(const QString& name) { coordinator_->workers()->probe(name); }

TargetInfo TargetsControl::info(const QString& name) const {
  return coordinator_->workers()->info(name);
}

QString TargetsControl::describe(const QString& name) const {
  const Target* t = list_.find(name);
  if (!t) return {};
  if (t->isLocal() && localCliPath().isEmpty())
    return tr(
        "No kernellab-cli was found next to the window, so runs on this machine run inside the "
        "window's process (Cancel then waits for the launch in progress). Build kernellab-cli "
        "or set KERNELLAB_CLI.");
  const TargetInfo i = info(name);
  if (i.probing) return tr("Connecting to %1...").arg(t->label());
  if (!i.ok)
    return i.error.isEmpty() ? tr("Not probed yet: press Test.")
                             : tr("<b>Not usable:</b> %1").arg(i.error.toHtmlEscaped());
  const WorkerHello& h = i.hello;
  QString html =
      tr("<b>%1</b> on host <b>%2</b> &middot; worker protocol %3 &middot; results schema %4")
          .arg(h.tool.toHtmlEscaped(), h.host.toHtmlEscaped())
          .arg(h.protocol)
          .arg(h.schemaVersion);
  html += tr("<br>Runs use: %1").arg(h.summary.toHtmlEscaped());
  html += QStringLiteral("<ul>");
  for (size_t k = 0; k < h.status.cudaDevices.size(); ++k) {
    const DeviceInfo& d = h.status.cudaDevices[k];
    html += tr("<li>GPU %1: %2, compute capability %3.%4, %5 SMs, %6</li>")
                .arg(k)
                .arg(QString::fromStdString(d.name).toHtmlEscaped())
                .arg(d.ccMajor)
                .arg(d.ccMinor)
                .arg(d.smCount)
                .arg(QString::fromStdString(formatBytes(double(d.globalMemBytes))));
  }
  const DeviceInfo& c = h.status.cpu;
  html += tr("<li>CPU: %1, %2 hardware threads, %3</li></ul>")
              .arg(QString::fromStdString(c.name).toHtmlEscaped())
              .arg(c.smCount)
              .arg(QString::fromStdString(formatBytes(double(c.globalMemBytes))));
  const int workers = t->sweepWorkers > 0 ? t->sweepWorkers : std::max(1, i.gpus());
  html +=
      (workers == 1 ? tr("Sweeps run one point at a time here")
                    : tr("Sweeps run %1 points at a time here").arg(workers)) +
      (t->sweepWorkers == 0 && i.gpus() > 0 ? tr(" (one worker per GPU).") : QStringLiteral("."));
  return html;
}

void TargetsControl::openDialog() {
  fillSwitch();  // the "Targets..." entry is not a selection
  TargetsDialog dialog(this, window_);
  dialog.exec();
}

}  // namespace kernellab::app
