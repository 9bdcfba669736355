// SPDX-License-Identifier: MIT
// "Export report": one HTML file (charts embedded) or one PDF with the device facts, the
// configuration of every shown run, the charts, pictures of other views and the results table.
#pragma once

#include <QHash>
#include <QImage>
#include <QPair>
#include <QSize>
#include <QString>
#include <QVector>

#include "app_types.h"
#include "chart_spec.h"
#include "results_table.h"

namespace kernellab::app {

struct ReportContent {
  QString title;
  QString backendSummary;                      // the status line of the window
  RunSelection selection;
  QVector<widgets::ChartSpec> charts;
  bool logY = false;
  QVector<QPair<QString, QImage>> pictures;    // caption, picture (the Clusters view)
  TableData table;
  QSize chartSize{960, 560};
};

// Writes HTML when the path ends in .html/.htm, PDF when it ends in .pdf.
bool writeReport(const ReportContent& content, const QString& path, QString* error);
// The report's HTML; images referenced by the names in `imageUrls` (chart-0, picture-0, ...).
QString reportHtml(const ReportContent& content, const QHash<QString, QString>& imageUrls);

}  // namespace kernellab::app
