// SPDX-License-Identifier: MIT
// The Targets dialog.
#include "targets_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QTextBrowser>
#include <QVBoxLayout>

#include "targets_control.h"
#include "worker_runs.h"

namespace kernellab::app {

TargetsDialog::TargetsDialog(TargetsControl* control, QWidget* parent)
    : QDialog(parent), control_(control) {
  setWindowTitle(tr("Targets"));
  setObjectName(QStringLiteral("targetsDialog"));
  auto* top = new QHBoxLayout;

  auto* left = new QVBoxLayout;
  list_ = new QListWidget(this);
  list_->setMinimumWidth(200);
  left->addWidget(list_, 1);
  auto* addSsh = new QPushButton(tr("Add SSH host"), this);
  addSsh->setToolTip(
      tr("A GPU server you reach with ssh: your ~/.ssh/config, keys and agent apply"));
  auto* addCommand = new QPushButton(tr("Add command"), this);
  addCommand->setToolTip(tr("A scheduler: srun, qsub... with {cli} where kernellab-cli goes"));
  remove_ = new QPushButton(tr("Remove"), this);
  left->addWidget(addSsh);
  left->addWidget(addCommand);
  left->addWidget(remove_);
  top->addLayout(left);

  auto* right = new QVBoxLayout;
  kind_ = new QLabel(this);
  right->addWidget(kind_);
  auto* form = form_ = new QFormLayout;
  name_ = new QLineEdit(this);
  name_->setObjectName(QStringLiteral("name"));
  form->addRow(tr("Name"), name_);
  host_ = new QLineEdit(this);
  host_->setObjectName(QStringLiteral("host"));
  host_->setPlaceholderText(tr("user@gpu-server, or a Host of ~/.ssh/config"));
  form->addRow(tr("Host"), host_);
  port_ = new QSpinBox(this);
  port_->setRange(0, 65535);
  port_->setSpecialValueText(tr("ssh's own (config or 22)"));
  form->addRow(tr("Port"), port_);
  cli_ = new QLineEdit(this);
  cli_->setObjectName(QStringLiteral("cli"));
  form->addRow(tr("kernellab-cli"), cli_);
  sshOptions_ = new QLineEdit(this);
  sshOptions_->setObjectName(QStringLiteral("sshOptions"));
  sshOptions_->setPlaceholderText(tr("optional, e.g. -J bastion.example.org"));
  form->addRow(tr("SSH options"), sshOptions_);
  launch_ = new QLineEdit(this);
  launch_->setObjectName(QStringLiteral("launch"));
  launchLabel_ = new QLabel(tr("Template"), this);
  form->addRow(launchLabel_, launch_);
  workers_ = new QSpinBox(this);
  workers_->setRange(0, 64);
  workers_->setSpecialValueText(tr("one per GPU"));
  workers_->setToolTip(
      tr("How many points of a sweep run at once here: one worker per GPU "
         "(CUDA_VISIBLE_DEVICES), or a number"));
  form->addRow(tr("Sweep workers"), workers_);
  share_ = new QCheckBox(tr("Also run points of sweeps started on another target"), this);
  form->addRow(QString(), share_);
  right->addLayout(form);
  problem_ = new QLabel(this);
  problem_->setWordWrap(true);
  problem_->setStyleSheet(QStringLiteral("color: #b00020;"));
  right->addWidget(problem_);
  auto* buttons = new QHBoxLayout;
  save_ = new QPushButton(tr("Save"), this);
  test_ = new QPushButton(tr("Test"), this);
  test_->setToolTip(tr("Start a worker there: its version, protocol and devices"));
  use_ = new QPushButton(tr("Use for runs"), this);
  buttons->addWidget(save_);
  buttons->addWidget(test_);
  buttons->addWidget(use_);
  buttons->addStretch(1);
  right->addLayout(buttons);
  facts_ = new QTextBrowser(this);
  facts_->setMinimumSize(460, 170);
  right->addWidget(facts_, 1);
  top->addLayout(right, 1);

  auto* outer = new QVBoxLayout(this);
  outer->addLayout(top, 1);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
  outer->addWidget(close);
  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);

  sshOnly_ = {host_, port_, sshOptions_};
  remoteOnly_ = {cli_, launch_};

  connect(addSsh, &QPushButton::clicked, this, [this] { addTarget(Target::Kind::Ssh); });
  connect(addCommand, &QPushButton::clicked, this, [this] { addTarget(Target::Kind::Command); });
  connect(remove_, &QPushButton::clicked, this, [this] {
    if (control_->remove(shown_)) select(control_->list().current());
  });
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row >= 0 && row < control_->list().all().size())
      showTarget(control_->list().all()[row].name);
  });
  connect(save_, &QPushButton::clicked, this, &TargetsDialog::saveEdits);
  connect(test_, &QPushButton::clicked, this, [this] {
    if (saveEdits()) control_->probe(shown_);
  });
  connect(use_, &QPushButton::clicked, this, [this] {
    if (saveEdits()) {
      control_->select(shown_);
      refreshList();
    }
  });
  connect(control_, &TargetsControl::probed, this, [this](const QString& name) {
    if (name == shown_) showFacts();
  });
  refreshList();
  select(control_->list().current());
}

QLineEdit* TargetsDialog::field(const QString& name) const { return findChild<QLineEdit*>(name); }

void TargetsDialog::refreshList() {
  const QSignalBlocker block(list_);
  list_->clear();
  for (const Target& t : control_->list().all())
    list_->addItem(t.label() +
                   (t.name == control_->list().current() ? tr("  \u2190 runs here") : QString()));
}

void TargetsDialog::select(const QString& name) {
  const auto& all = control_->list().all();
  for (int i = 0; i < all.size(); ++i)
    if (all[i].name == name) {
      const QSignalBlocker block(list_);
      list_->setCurrentRow(i);
    }
  showTarget(name);
}

void TargetsDialog::addTarget(Target::Kind kind) {
  Target t;
  t.kind = kind;
  const QString base = kind == Target::Kind::Ssh ? tr("gpu-server") : tr("cluster");
  t.name = base;
  for (int i = 2; control_->list().find(t.name); ++i)
    t.name = QStringLiteral("%1-%2").arg(base).arg(i);
  if (kind == Target::Kind::Ssh) {
    t.host = QStringLiteral("user@gpu-server");
    t.cliPath = QStringLiteral("~/kernellab/build/gpu/kernellab-cli");
  } else {
    t.launch = QStringLiteral("srun --gres=gpu:1 --time=10 {cli}");
  }
  control_->put(t);
  refreshList();
  select(t.name);
  name_->setFocus();
  name_->selectAll();
}

void TargetsDialog::showTarget(const QString& name) {
  const Target* t = control_->list().find(name);
  if (!t) return;
  shown_ = name;
  const bool ssh = t->kind == Target::Kind::Ssh, command = t->kind == Target::Kind::Command;
  kind_->setText(
      ssh ? tr("<b>SSH host</b>: runs through the system's ssh (keys, agent and ~/.ssh/config "
               "apply; no password is stored), one shared connection per window session.")
      : command ? tr("<b>Command template</b>: runs kernellab-cli through your scheduler; {cli} "
                     "is replaced by the worker's command line, {gpu} by its GPU index.")
                : tr("<b>This machine</b>: a worker process beside the window."));
  name_->setText(t->name);
  name_->setEnabled(!t->isLocal());
  host_->setText(t->host);
  port_->setValue(t->port);
  cli_->setText(t->cliPath);
  cli_->setPlaceholderText(ssh ? tr("kernellab-cli on the server's PATH")
                               : tr("this window's kernellab-cli"));
  sshOptions_->setText(t->sshOptions);
  launch_->setText(t->launch);
  launchLabel_->setText(ssh ? tr("Wrapper") : tr("Template"));
  launch_->setPlaceholderText(ssh ? tr("optional, on the server: srun --gres=gpu:1 {cli}")
                                  : tr("srun --gres=gpu:1 --time=10 {cli}"));
  workers_->setValue(t->sweepWorkers);
  share_->setChecked(t->shareSweeps);
  for (QWidget* w : sshOnly_) form_->setRowVisible(w, ssh);
  for (QWidget* w : remoteOnly_) form_->setRowVisible(w, !t->isLocal());
  remove_->setEnabled(!t->isLocal());
  problem_->clear();
  showFacts();
}

void TargetsDialog::showFacts() { facts_->setHtml(control_->describe(shown_)); }

Target TargetsDialog::edited() const {
  Target t = control_->list().find(shown_) ? *control_->list().find(shown_) : Target{};
  t.name = name_->text().trimmed();
  t.host = host_->text().trimmed();
  t.port = port_->value();
  t.cliPath = cli_->text().trimmed();
  t.sshOptions = sshOptions_->text().trimmed();
  t.launch = launch_->text().trimmed();
  t.sweepWorkers = workers_->value();
  t.shareSweeps = share_->isChecked();
  return t;
}

bool TargetsDialog::saveEdits() {
  const Target t = edited();
  const Target* before = control_->list().find(shown_);
  if (before && *before == t) return true;
  const QString why = control_->put(t, shown_);
  problem_->setText(why);
  if (!why.isEmpty()) return false;
  shown_ = t.name;
  refreshList();
  select(shown_);
  return true;
}

}  // namespace kernellab::app
