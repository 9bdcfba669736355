// SPDX-License-Identifier: MIT
// The Results tab.
#include "results_page.h"

#include <QHeaderView>
#include <QTableWidget>

namespace kernellab::app {

ResultsPage::ResultsPage(QWidget* parent) {
  widget_ = new QTableWidget(parent);
  widget_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  widget_->setSelectionBehavior(QAbstractItemView::SelectRows);
  widget_->setAlternatingRowColors(true);
  widget_->setSortingEnabled(false);
  widget_->verticalHeader()->setVisible(false);
  widget_->verticalHeader()->setDefaultSectionSize(widget_->fontMetrics().height() + 8);
  widget_->horizontalHeader()->setStretchLastSection(true);
  showRuns({});
}

QWidget* ResultsPage::widget() { return widget_; }

void ResultsPage::showRuns(const RunSelection& selection) {
  table_ = buildResultsTable(selection);
  widget_->clear();
  widget_->setColumnCount(static_cast<int>(table_.headers.size()));
  widget_->setHorizontalHeaderLabels(table_.headers);
  widget_->setRowCount(static_cast<int>(table_.rows.size()));
  for (int r = 0; r < table_.rows.size(); ++r) {
    for (int c = 0; c < table_.rows[r].size(); ++c) {
      auto* item = new QTableWidgetItem(table_.rows[r][c]);
      if (c >= 4 && c <= 8) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (table_.rowFailed.value(r)) item->setForeground(QColor(176, 0, 32));
      item->setToolTip(table_.rows[r][c]);
      widget_->setItem(r, c, item);
    }
  }
  widget_->resizeColumnsToContents();
}

}  // namespace kernellab::app
