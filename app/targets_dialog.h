// SPDX-License-Identifier: MIT
// Run > Targets...: this machine, SSH hosts and command templates; each target's versions and
// devices as its worker reports them; which target runs the experiments.
#pragma once

#include <QDialog>

#include "targets.h"

class QCheckBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTextBrowser;

namespace kernellab::app {

class TargetsControl;

class TargetsDialog : public QDialog {
  Q_OBJECT
 public:
  TargetsDialog(TargetsControl* control, QWidget* parent = nullptr);

  // For tests and automation: the form's fields by name.
  QListWidget* list() const { return list_; }
  QLineEdit* field(const QString& name) const;
  QSpinBox* portBox() const { return port_; }
  QSpinBox* workersBox() const { return workers_; }
  QCheckBox* shareBox() const { return share_; }
  QTextBrowser* facts() const { return facts_; }
  QPushButton* saveButton() const { return save_; }
  QPushButton* testButton() const { return test_; }
  QPushButton* useButton() const { return use_; }
  // Adds a new target of this kind with a free name and selects it.
  void addTarget(Target::Kind kind);
  // Shows this target's form.
  void select(const QString& name);

 private:
  void refreshList();
  void showTarget(const QString& name);
  void showFacts();
  Target edited() const;
  bool saveEdits();

  TargetsControl* control_;
  QString shown_;  // the target in the form (its saved name)
  QListWidget* list_ = nullptr;
  QFormLayout* form_ = nullptr;
  QLabel* kind_ = nullptr;
  QLineEdit* name_ = nullptr;
  QLineEdit* host_ = nullptr;
  QSpinBox* port_ = nullptr;
  QLineEdit* cli_ = nullptr;
  QLineEdit* sshOptions_ = nullptr;
  QLineEdit* launch_ = nullptr;
  QLabel* launchLabel_ = nullptr;
  QSpinBox* workers_ = nullptr;
  QCheckBox* share_ = nullptr;
  QLabel* problem_ = nullptr;
  QTextBrowser* facts_ = nullptr;
  QPushButton* save_ = nullptr;
  QPushButton* test_ = nullptr;
  QPushButton* use_ = nullptr;
  QPushButton* remove_ = nullptr;
  QList<QWidget*> sshOnly_, remoteOnly_;
};

}  // namespace kernellab::app
