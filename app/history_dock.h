// SPDX-License-Identifier: MIT
// The Runs dock: every kept run, newest first; checked runs are compared in the views.
#pragma once

#include <QStringList>
#include <QWidget>

#include "history_store.h"

class QTreeWidget;
class QTreeWidgetItem;

namespace kernellab::app {

class HistoryDock : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryDock(QWidget* parent = nullptr);

  void setEntries(const QVector<HistoryEntry>& entries);
  // Checks exactly `ids`; `primary` is the run single-run views show.
  void setChecked(const QStringList& ids, const QString& primary);
  QStringList checked() const;
  QString primary() const { return primary_; }
  QTreeWidget* tree() const { return tree_; }

 signals:
  void selectionChanged(const QStringList& checked, const QString& primary);
  void removeRequested(const QString& id);
  void loadSettingsRequested(const QString& id);

 private:
  void contextMenu(const QPoint& pos);
  QString idOf(const QTreeWidgetItem* item) const;

  QTreeWidget* tree_ = nullptr;
  QString primary_;
  bool updating_ = false;
};

}  // namespace kernellab::app
