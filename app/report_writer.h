// SPDX-License-Identifier: MIT
// "Export report": one HTML file (charts embedded) or one PDF (landscape A4) with the device
// facts, the configuration of every shown run, the charts and pictures of the views (sections
// only for what the runs contain), one results table per run, and each family's own footnote.
#pragma once

#include <QHash>
#include <QImage>
#include <QSize>
#include <QString>
#include <QVector>
#include <memory>

#include "app_types.h"
#include "chart_spec.h"
#include "counters_table.h"
#include "results_table.h"

class QPagedPaintDevice;
class QPrinter;
class QTextDocument;

namespace kernellab::app {

struct ReportChart {
  QString section;               // "Timing: Matrix transpose", "Schedule"
  widgets::ChartSpec spec;       // its caption says which runs, device and date
  bool logY = false;
};

// A profiled run's models beside its counters (issue 13): the access model, the occupancy
// calculator and the bandwidth figures' bytes against Nsight Compute's counts.
struct ReportCounters {
  QString run;                   // "#3 (transpose 8192x8192 ...), NVIDIA H200, 2026-12-02 ..."
  QString tool;                  // "Nsight Compute (ncu) Version 2025.3.1 ..."
  QVector<widgets::CounterComparison> rows;
  QStringList notModelled;       // variants and kernels without a model, and why
};

struct ReportPicture {
  QString section;
  QString caption;               // what it shows, with the run, device and date
  QImage image;
};

struct ReportContent {
  QString title;
  QString backendSummary;        // the status line of the window
  RunSelection selection;
  QVector<ReportChart> charts;
  QVector<ReportPicture> pictures;
  QVector<ReportCounters> counters;
  TableData table;
  // Charts are drawn at this size (logical pixels) and shown at its width: it fits the text
  // width of a landscape A4 page with 12 mm margins (273 mm = 1031 px at 96 dpi).
  QSize chartSize{1000, 560};
};

// Writes HTML when the path ends in .html/.htm, PDF when it ends in .pdf.
bool writeReport(const ReportContent& content, const QString& path, QString* error);
// The report's HTML; images referenced by the names in `imageUrls` (chart-0, picture-0, ...).
QString reportHtml(const ReportContent& content, const QHash<QString, QString>& imageUrls);
// The PDF's document, laid out for `device` (its pages, landscape A4): what writeReport prints,
// and what tests measure (no table cell broken inside a number or a word).
std::unique_ptr<QTextDocument> reportDocument(const ReportContent& content, QPagedPaintDevice* device);
// The printer of a PDF report: landscape A4 with 12 mm margins, at print resolution.
void setUpReportPrinter(QPrinter& printer, const QString& path, const QString& title);
// The footnote of a family: its units and what its figures count.
QString familyFootnote(kernellab::Family family);

}  // namespace kernellab::app
