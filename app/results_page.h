// SPDX-License-Identifier: MIT
// The Results tab: every variant of every shown run as a table (times, bandwidth, checks).
#pragma once

#include <QObject>

#include "results_table.h"
#include "view_page.h"

class QTableWidget;

namespace kernellab::app {

class ResultsPage : public QObject, public ViewPage {
  Q_OBJECT
 public:
  explicit ResultsPage(QWidget* parent);

  QString id() const override { return QStringLiteral("results"); }
  QString title() const override { return tr("Results table"); }
  QWidget* widget() override;
  void showRuns(const RunSelection& selection) override;

  const TableData& table() const { return table_; }
  QTableWidget* tableWidget() const { return widget_; }

 private:
  QTableWidget* widget_ = nullptr;
  TableData table_;
};

}  // namespace kernellab::app
