// SPDX-License-Identifier: MIT
// Export chart...: which charts, which formats (PNG, PDF, SVG, CSV, JSON), what size, where.
#pragma once

#include <QDialog>
#include <QList>
#include <QSize>
#include <QStringList>
#include <QVector>

#include "chart_export.h"

class QCheckBox;
class QLineEdit;
class QListWidget;
class QSpinBox;

namespace kernellab::app {

struct ChartChoice {
  QString key;    // "timing/time"
  QString title;
};

struct ExportChoice {
  QStringList keys;
  QList<widgets::ExportFormat> formats;
  QSize size;
  QString directory;
};

class ExportDialog : public QDialog {
  Q_OBJECT
 public:
  ExportDialog(const QVector<ChartChoice>& charts, const QString& currentKey, QSize size,
               const QString& directory, QWidget* parent = nullptr);
  ExportChoice choice() const;

 private:
  QListWidget* charts_ = nullptr;
  QVector<QCheckBox*> formats_;
  QSpinBox* width_ = nullptr;
  QSpinBox* height_ = nullptr;
  QLineEdit* directory_ = nullptr;
};

}  // namespace kernellab::app
