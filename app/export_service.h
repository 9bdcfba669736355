// SPDX-License-Identifier: MIT
// Exports that span the views: every chart of every view into a folder (--export-charts), and
// the content of a report.
#pragma once

#include <QImage>
#include <QList>
#include <QSize>
#include <QStringList>

#include "chart_export.h"
#include "report_writer.h"
#include "view_page.h"

namespace kernellab::app {

struct PagePicture {
  QString pageId;
  QString partId;   // empty, or which picture of the page ("gantt")
  QString caption;
  QImage image;
};

// Writes each chart as <page>-<chart>.<format>, each picture as <page>[-<part>].png, the results table
// as results-table.csv. `written` lists the files.
bool exportAllCharts(const ViewPages& pages, const QVector<PagePicture>& pictures,
                     const RunSelection& selection, const QString& directory, QSize size,
                     const QList<widgets::ExportFormat>& formats, QStringList* written,
                     QString* error);

// One chart of one page ("timing/time") in the given formats.
bool exportOneChart(const ViewPages& pages, const QString& key, const QString& directory,
                    QSize size, const QList<widgets::ExportFormat>& formats, QStringList* written,
                    QString* error);

ReportContent collectReport(const ViewPages& pages, const QVector<PagePicture>& pictures,
                            const RunSelection& selection, const QString& backendSummary);

}  // namespace kernellab::app
