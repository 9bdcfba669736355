// SPDX-License-Identifier: MIT
// CountersTable: a model's predictions beside the GPU's counters, one row per variant, kernel and
// quantity (sectors per request, bank conflicts, occupancy, DRAM bytes...), the rows where the two
// differ by more than the quantity's tolerance marked, with the reason in the row's tooltip. The
// rows come from app/ (model_vs_counters.h); the widget only shows them. No CUDA.
#pragma once

#include <QString>
#include <QVector>
#include <QWidget>

class QLabel;
class QTableWidget;

namespace kernellab::widgets {

struct CounterComparison {
  QString variant;
  QString kernel;
  QString quantity;   // "global load sectors per request"
  double predicted = 0;
  double measured = 0;
  bool hasPrediction = true;
  QString unit;       // "", "%", "MB"
  bool agrees = true; // within the quantity's tolerance
  QString note;       // the tolerance, and why they may differ
};

class CountersTable : public QWidget {
  Q_OBJECT

 public:
  explicit CountersTable(QWidget* parent = nullptr);
  // A title line (what was compared, by which tool) and the rows; no rows hides the table and
  // shows `emptyText` instead.
  void setRows(const QString& title, const QVector<CounterComparison>& rows,
               const QString& emptyText = QString());
  const QVector<CounterComparison>& rows() const { return rows_; }
  QTableWidget* table() const { return table_; }
  int disagreements() const;

 private:
  QLabel* title_ = nullptr;
  QTableWidget* table_ = nullptr;
  QVector<CounterComparison> rows_;
};

}  // namespace kernellab::widgets
