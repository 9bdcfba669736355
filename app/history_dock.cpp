// SPDX-License-Identifier: MIT
// The Runs dock.
#include "history_dock.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace kernellab::app {

HistoryDock::HistoryDock(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  auto* hint = new QLabel(tr("Check runs to compare them; the highlighted one fills the Clusters view."), this);
  hint->setWordWrap(true);
  hint->setStyleSheet(QStringLiteral("color: #555;"));
  tree_ = new QTreeWidget(this);
  tree_->setRootIsDecorated(true);  // files of several runs open into a row per run
  tree_->setHeaderLabels({tr("#"), tr("When"), tr("What"), tr("Device")});
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(true);
  tree_->setContextMenuPolicy(Qt::CustomContextMenu);
  tree_->setSelectionMode(QAbstractItemView::SingleSelection);
  auto* buttons = new QHBoxLayout;
  auto* newest = new QPushButton(tr("Newest only"), this);
  newest->setToolTip(tr("Compare nothing: show the newest run alone"));
  auto* none = new QPushButton(tr("Uncheck all"), this);
  buttons->addWidget(newest);
  buttons->addWidget(none);
  buttons->addStretch(1);
  layout->addWidget(hint);
  layout->addWidget(tree_, 1);
  layout->addLayout(buttons);

  connect(tree_, &QTreeWidget::itemChanged, this, [this](QTreeWidgetItem* item, int column) {
    if (updating_ || column != 0) return;
    boxToggled_ = true;
    if (item->checkState(0) == Qt::Checked) primary_ = idOf(item);
    else if (primary_ == idOf(item)) primary_.clear();
    emit selectionChanged(checked(), primary_);
  });
  connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
    if (updating_ || !item) return;
    if (QTreeWidgetItem* entry = item->parent()) {
      // A run of a file: its entry joins the comparison and the run fills the single-run views.
      const QString id = idOf(entry);
      updating_ = true;
      entry->setCheckState(0, Qt::Checked);
      updating_ = false;
      primary_ = id;
      emit runChosen(id, item->data(0, Qt::UserRole + 1).toInt());
      return;
    }
    if (item->checkState(0) != Qt::Checked) return;
    primary_ = idOf(item);
    emit selectionChanged(checked(), primary_);
  });
  // A click on an entry's row, not on its check box, shows that entry, as the hint above says:
  // an unchecked entry joins the comparison and becomes the run the single-run views show (it
  // used to be highlighted only, while the views kept showing another run). A click on the box
  // toggles it on the release, before itemClicked, and emits no itemPressed; a press elsewhere
  // does, which clears what an earlier toggle noted.
  connect(tree_, &QTreeWidget::itemPressed, this, [this] { boxToggled_ = false; });
  connect(tree_, &QTreeWidget::itemClicked, this, [this](QTreeWidgetItem* item) {
    const bool onTheBox = boxToggled_;
    boxToggled_ = false;
    if (onTheBox || updating_ || !item || item->parent()) return;
    if (item->checkState(0) != Qt::Checked) {
      item->setCheckState(0, Qt::Checked);  // itemChanged makes it the primary and says so
    } else if (primary_ != idOf(item)) {
      primary_ = idOf(item);
      emit selectionChanged(checked(), primary_);
    }
  });
  connect(tree_, &QTreeWidget::itemExpanded, this, [this](QTreeWidgetItem* item) { fillRuns(item); });
  connect(newest, &QPushButton::clicked, this, [this] {
    if (tree_->topLevelItemCount() == 0) return;
    const QString id = idOf(tree_->topLevelItem(0));
    setChecked({id}, id);
    emit selectionChanged(checked(), primary_);
  });
  connect(none, &QPushButton::clicked, this, [this] {
    setChecked({}, {});
    emit selectionChanged({}, {});
  });
  connect(tree_, &QTreeWidget::customContextMenuRequested, this, &HistoryDock::contextMenu);
}

QString HistoryDock::idOf(const QTreeWidgetItem* item) const {
  return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void HistoryDock::setEntries(const QVector<HistoryEntry>& entries) {
  const QStringList was = checked();
  updating_ = true;
  tree_->clear();
  for (int i = static_cast<int>(entries.size()) - 1; i >= 0; --i) {
    const HistoryEntry& e = entries[i];
    auto* item = new QTreeWidgetItem(tree_);
    item->setData(0, Qt::UserRole, e.id);
    item->setText(0, QString::number(e.number));
    item->setText(1, e.created.toLocalTime().toString(QStringLiteral("MM-dd HH:mm:ss")));
    item->setText(2, e.summary + (e.ok ? QString() : tr("  [failed]")));
    item->setText(3, e.device);
    item->setToolTip(2, tr("%1\n%2 run(s), %3\n%4").arg(e.summary).arg(e.runs).arg(e.origin, e.file));
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(0, was.contains(e.id) ? Qt::Checked : Qt::Unchecked);
    if (e.runs > 1) {
      // A file of several runs: each run gets its row (and its own status) when opened; the
      // file's row does not turn red for one failing run among others.
      item->setChildIndicatorPolicy(QTreeWidgetItem::ShowIndicator);
      item->setText(2, e.ok ? e.summary + tr("  (%n runs)", nullptr, e.runs)
                            : e.summary + tr("  (%n runs, not all ok: open the row)", nullptr, e.runs));
      if (!e.ok) item->setForeground(2, QColor(138, 75, 0));
    } else if (!e.ok) {
      item->setForeground(2, QColor(176, 0, 32));
    }
  }
  updating_ = false;
}

void HistoryDock::setRunDescriber(std::function<QVector<RunRow>(const QString&)> describer) {
  describer_ = std::move(describer);
}

void HistoryDock::fillRuns(QTreeWidgetItem* entry) {
  if (!entry || entry->parent() || entry->childCount() > 0 || !describer_) return;
  const QVector<RunRow> rows = describer_(idOf(entry));
  const bool was = updating_;
  updating_ = true;
  int failed = 0;
  QStringList families;
  for (int i = 0; i < rows.size(); ++i) {
    const RunRow& r = rows[i];
    auto* child = new QTreeWidgetItem(entry);
    child->setData(0, Qt::UserRole + 1, i);
    child->setText(0, r.label);
    child->setText(2, r.ok ? r.summary : r.summary + tr("  [failed]"));
    child->setText(3, r.device);
    child->setToolTip(2, r.ok ? r.summary : QStringLiteral("%1\n%2").arg(r.summary, r.problem));
    if (!r.ok) {
      child->setForeground(2, QColor(176, 0, 32));
      ++failed;
    }
    const QString family = r.summary.section(QLatin1Char(' '), 0, 0);
    if (!families.contains(family)) families << family;
  }
  // The file's own row, now that its runs are known: how many, which families, how many failed.
  if (!rows.isEmpty()) {
    QString text = tr("%n runs: %1", nullptr, static_cast<int>(rows.size())).arg(families.join(QStringLiteral(", ")));
    if (failed > 0) text += tr("  (%1 failed)").arg(failed);
    entry->setText(2, text);
    entry->setForeground(2, failed > 0 ? QColor(138, 75, 0) : palette().color(QPalette::Text));
  }
  updating_ = was;
}

void HistoryDock::expandEntry(const QString& id) {
  for (int i = 0; i < tree_->topLevelItemCount(); ++i)
    if (idOf(tree_->topLevelItem(i)) == id) {
      fillRuns(tree_->topLevelItem(i));
      tree_->topLevelItem(i)->setExpanded(true);
    }
}

void HistoryDock::setChecked(const QStringList& ids, const QString& primary) {
  updating_ = true;
  primary_ = primary;
  for (int i = 0; i < tree_->topLevelItemCount(); ++i) {
    QTreeWidgetItem* item = tree_->topLevelItem(i);
    item->setCheckState(0, ids.contains(idOf(item)) ? Qt::Checked : Qt::Unchecked);
    if (idOf(item) == primary) tree_->setCurrentItem(item);
  }
  updating_ = false;
}

QStringList HistoryDock::checked() const {
  QStringList ids;
  for (int i = 0; i < tree_->topLevelItemCount(); ++i)
    if (tree_->topLevelItem(i)->checkState(0) == Qt::Checked) ids << idOf(tree_->topLevelItem(i));
  return ids;
}

QString HistoryDock::loadSettingsText(bool oneRun) {
  return oneRun ? tr("Load this run's settings into the panel") : tr("Load its settings into the panel");
}

void HistoryDock::contextMenu(const QPoint& pos) {
  QTreeWidgetItem* item = tree_->itemAt(pos);
  // A run's row of a file: the file's menu, but its settings are that run's (the first run's
  // were loaded, a transpose's for the k-means row of a mixed file).
  const int runIndex = item && item->parent() ? item->data(0, Qt::UserRole + 1).toInt() : -1;
  if (item && item->parent()) item = item->parent();
  if (!item) return;
  const QString id = idOf(item);
  QMenu menu(this);
  menu.addAction(tr("Show only this run"), this, [this, id] {
    setChecked({id}, id);
    emit selectionChanged(checked(), primary_);
  });
  menu.addAction(loadSettingsText(runIndex >= 0),
                 this, [this, id, runIndex] { emit loadSettingsRequested(id, runIndex); });
  menu.addSeparator();
  menu.addAction(tr("Remove from history"), this, [this, id] { emit removeRequested(id); });
  menu.exec(tree_->viewport()->mapToGlobal(pos));
}

}  // namespace kernellab::app
