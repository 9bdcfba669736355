// SPDX-License-Identifier: MIT
// CountersTable (counters_table.h).
#include "counters_table.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

namespace kernellab::widgets {
namespace {
const QColor kAgree(215, 240, 215);
const QColor kDiffer(255, 205, 200);

QString number(double v, const QString& unit) {
  const int digits = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
  return QString::number(v, 'f', digits) + (unit.isEmpty() ? QString() : QStringLiteral(" ") + unit);
}
}  // namespace

CountersTable::CountersTable(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  title_ = new QLabel(this);
  title_->setWordWrap(true);
  layout->addWidget(title_);
  table_ = new QTableWidget(0, 6, this);
  table_->setHorizontalHeaderLabels(
      {tr("Variant"), tr("Kernel"), tr("Quantity"), tr("Model"), tr("Measured"), tr("Agree")});
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  layout->addWidget(table_);
  setRows(QString(), {});
}

void CountersTable::setRows(const QString& title, const QVector<CounterComparison>& rows,
                            const QString& emptyText) {
  rows_ = rows;
  title_->setText(rows.isEmpty() ? emptyText : title);
  title_->setVisible(!title_->text().isEmpty());
  table_->setVisible(!rows.isEmpty());
  table_->setRowCount(rows.size());
  for (int i = 0; i < rows.size(); ++i) {
    const CounterComparison& r = rows[i];
    const QStringList cells = {r.variant, r.kernel, r.quantity,
                               r.hasPrediction ? number(r.predicted, r.unit) : QStringLiteral("-"),
                               number(r.measured, r.unit),
                               !r.hasPrediction ? tr("(no model)") : r.agrees ? tr("yes") : tr("NO")};
    for (int col = 0; col < cells.size(); ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      if (col == 3 || col == 4) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      if (r.hasPrediction) item->setBackground(r.agrees ? kAgree : kDiffer);
      item->setToolTip(r.note);
      table_->setItem(i, col, item);
    }
  }
  // Tall enough for the rows, up to a limit: the model's view above keeps most of the page.
  const int rowH = table_->verticalHeader()->defaultSectionSize();
  table_->setMaximumHeight(std::min(300, rowH * (int(rows.size()) + 1) + 8));
}

int CountersTable::disagreements() const {
  int n = 0;
  for (const auto& r : rows_) n += r.hasPrediction && !r.agrees;
  return n;
}

}  // namespace kernellab::widgets
