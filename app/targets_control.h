// SPDX-License-Identifier: MIT
// The window's targets: the saved list (QSettings), the switch in the status bar, the Targets
// dialog, and the run coordinator told which target runs the experiments.
#pragma once

#include <QObject>
#include <QString>

#include "targets.h"

class QComboBox;
class QWidget;

namespace kernellab::app {

class RunCoordinator;
struct TargetInfo;

class TargetsControl : public QObject {
  Q_OBJECT
 public:
  TargetsControl(RunCoordinator* coordinator, QWidget* window);

  const TargetList& list() const { return list_; }
  // The status bar's switch ("Target: [gpu-box (SSH)]").
  QWidget* switcher() const;
  // Adds or replaces a target (keeps the current one); saved at once. Returns the problem, if any.
  QString put(const Target& t, const QString& formerName = QString());
  bool remove(const QString& name);
  // Makes `name` the target of the next runs; false when there is no such target.
  bool select(const QString& name);
  void probe(const QString& name);
  TargetInfo info(const QString& name) const;
  // One paragraph for the dialog: versions, host, devices, or why the target cannot be reached.
  QString describe(const QString& name) const;
  // Run > Targets...
  void openDialog();

 signals:
  void changed();  // the list or the current target
  void probed(const QString& name);

 private:
  void apply();
  void fillSwitch();

  RunCoordinator* coordinator_;
  QWidget* window_;
  TargetList list_;
  QComboBox* switch_ = nullptr;
  QWidget* switchBox_ = nullptr;
};

}  // namespace kernellab::app
