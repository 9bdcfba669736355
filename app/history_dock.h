// SPDX-License-Identifier: MIT
// The Runs dock: every kept run, newest first; checked runs are compared in the views.
#pragma once

#include <QStringList>
#include <QWidget>
#include <functional>

#include "history_store.h"

class QTreeWidget;
class QTreeWidgetItem;

namespace kernellab::app {

// One run of a history entry, as its row under the entry shows it.
struct RunRow {
  QString label;     // "#12.3", "#12 tpb=64"
  QString summary;   // requestSummary of the run
  QString device;
  bool ok = true;
  QString problem;   // why not ok: the failing variant and its reason
};

class HistoryDock : public QWidget {
  Q_OBJECT
 public:
  explicit HistoryDock(QWidget* parent = nullptr);

  // Where the rows of an entry's runs come from (the window reads the entry's file); asked when
  // an entry of several runs is expanded.
  void setRunDescriber(std::function<QVector<RunRow>(const QString& entryId)> describer);
  void setEntries(const QVector<HistoryEntry>& entries);
  // Shows the runs of an entry (reading its file).
  void expandEntry(const QString& id);
  // Checks exactly `ids`; `primary` is the run single-run views show.
  void setChecked(const QStringList& ids, const QString& primary);
  QStringList checked() const;
  QString primary() const { return primary_; }
  QTreeWidget* tree() const { return tree_; }

  // The right-click action that loads an entry's settings (`oneRun`: a run row's) into the panel;
  // the window's messages name it, so they read the same words as the menu.
  static QString loadSettingsText(bool oneRun = false);

 signals:
  void selectionChanged(const QStringList& checked, const QString& primary);
  void removeRequested(const QString& id);
  // The settings of run `runIndex` of entry `id` into the panel; -1: the entry's (its first run,
  // and its sweep when it is one).
  void loadSettingsRequested(const QString& id, int runIndex);
  // A run's row was clicked: show that run (its entry checked) in the single-run views.
  void runChosen(const QString& id, int runIndex);

 private:
  void contextMenu(const QPoint& pos);
  QString idOf(const QTreeWidgetItem* item) const;
  void fillRuns(QTreeWidgetItem* entry);

  std::function<QVector<RunRow>(const QString&)> describer_;

  QTreeWidget* tree_ = nullptr;
  QString primary_;
  bool updating_ = false;
  bool boxToggled_ = false;  // a check box changed since the last press on a row
};

}  // namespace kernellab::app
