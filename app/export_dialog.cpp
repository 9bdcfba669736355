// SPDX-License-Identifier: MIT
// The export dialog.
#include "export_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

namespace kernellab::app {

ExportDialog::ExportDialog(const QVector<ChartChoice>& charts, const QString& currentKey, QSize size,
                           const QString& directory, QWidget* parent)
    : QDialog(parent) {
  setWindowTitle(tr("Export charts"));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Charts"), this));
  charts_ = new QListWidget(this);
  for (const ChartChoice& c : charts) {
    auto* item = new QListWidgetItem(c.title, charts_);
    item->setData(Qt::UserRole, c.key);
    item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
    item->setCheckState(c.key == currentKey ? Qt::Checked : Qt::Unchecked);
  }
  layout->addWidget(charts_);

  auto* form = new QFormLayout;
  auto* formatRow = new QHBoxLayout;
  for (widgets::ExportFormat f : widgets::allExportFormats()) {
    auto* box = new QCheckBox(widgets::suffixOf(f).toUpper(), this);
    box->setChecked(f == widgets::ExportFormat::Png || f == widgets::ExportFormat::Csv);
    box->setProperty("format", int(f));
    box->setToolTip(f == widgets::ExportFormat::Csv || f == widgets::ExportFormat::Json
                        ? tr("The data behind the chart")
                        : tr("The chart as a picture"));
    formats_ << box;
    formatRow->addWidget(box);
  }
  form->addRow(tr("Formats"), formatRow);
  auto* sizeRow = new QHBoxLayout;
  width_ = new QSpinBox(this);
  width_->setRange(200, 10000);
  width_->setValue(size.width());
  width_->setSuffix(tr(" px"));
  height_ = new QSpinBox(this);
  height_->setRange(150, 10000);
  height_->setValue(size.height());
  height_->setSuffix(tr(" px"));
  sizeRow->addWidget(width_);
  sizeRow->addWidget(new QLabel(QStringLiteral("x"), this));
  sizeRow->addWidget(height_);
  sizeRow->addStretch(1);
  form->addRow(tr("Size"), sizeRow);
  auto* dirRow = new QHBoxLayout;
  directory_ = new QLineEdit(directory, this);
  auto* browse = new QToolButton(this);
  browse->setText(tr("Browse..."));
  dirRow->addWidget(directory_, 1);
  dirRow->addWidget(browse);
  form->addRow(tr("Folder"), dirRow);
  layout->addLayout(form);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse, &QToolButton::clicked, this, [this] {
    const QString dir = QFileDialog::getExistingDirectory(this, tr("Export into"), directory_->text());
    if (!dir.isEmpty()) directory_->setText(dir);
  });
}

ExportChoice ExportDialog::choice() const {
  ExportChoice c;
  for (int i = 0; i < charts_->count(); ++i)
    if (charts_->item(i)->checkState() == Qt::Checked) c.keys << charts_->item(i)->data(Qt::UserRole).toString();
  for (QCheckBox* b : formats_)
    if (b->isChecked()) c.formats << static_cast<widgets::ExportFormat>(b->property("format").toInt());
  c.size = QSize(width_->value(), height_->value());
  c.directory = directory_->text();
  return c;
}

}  // namespace kernellab::app
