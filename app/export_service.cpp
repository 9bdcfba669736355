// SPDX-License-Identifier: MIT
// Exports across views.
#include "export_service.h"

#include <QDir>
#include <QHash>
#include <QObject>

#include "access_page.h"
#include "chart_data_io.h"
#include "model_vs_counters.h"
#include "results_table.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

bool ensureDir(const QString& dir, QString* error) {
  if (QDir().mkpath(dir)) return true;
  if (error) *error = QObject::tr("cannot create the folder '%1'").arg(dir);
  return false;
}

bool writeChart(const ViewPage& page, const widgets::ChartSpec& spec, const QString& dir, QSize size,
                const QList<widgets::ExportFormat>& formats, QStringList* written, QString* error) {
  for (widgets::ExportFormat f : formats) {
    const QString path = QDir(dir).filePath(widgets::exportFileName(spec, f, page.id()));
    if (!widgets::exportChart(spec, page.chartsLogScale(), path, f, size, error)) return false;
    if (written) *written << path;
  }
  return true;
}

}  // namespace

bool exportAllCharts(const ViewPages& pages, const QVector<PagePicture>& pictures,
                     const RunSelection& selection, const QString& dir, QSize size,
                     const QList<widgets::ExportFormat>& formats, QStringList* written,
                     QString* error) {
  if (!ensureDir(dir, error)) return false;
  for (const auto& page : pages)
    for (const widgets::ChartSpec& spec : page->charts())
      if (!writeChart(*page, spec, dir, size, formats, written, error)) return false;
  for (const PagePicture& p : pictures) {
    if (p.image.isNull()) continue;
    const QString name = p.partId.isEmpty() ? p.pageId : p.pageId + QLatin1Char('-') + p.partId;
    const QString path = QDir(dir).filePath(name + QStringLiteral(".png"));
    if (!p.image.save(path, "PNG")) {
      if (error) *error = QObject::tr("cannot write '%1'").arg(path);
      return false;
    }
    if (written) *written << path;
  }
  if (!selection.empty()) {
    const QString path = QDir(dir).filePath(QStringLiteral("results-table.csv"));
    if (!widgets::writeFileBytes(path, tableToCsv(buildResultsTable(selection)).toUtf8(), error)) return false;
    if (written) *written << path;
  }
  return true;
}

bool exportOneChart(const ViewPages& pages, const QString& key, const QString& dir, QSize size,
                    const QList<widgets::ExportFormat>& formats, QStringList* written,
                    QString* error) {
  if (!ensureDir(dir, error)) return false;
  const QString pageId = key.section(QLatin1Char('/'), 0, 0), chartId = key.section(QLatin1Char('/'), 1);
  for (const auto& page : pages) {
    if (page->id() != pageId) continue;
    for (const widgets::ChartSpec& spec : page->charts())
      if (spec.id == chartId) return writeChart(*page, spec, dir, size, formats, written, error);
  }
  if (error) *error = QObject::tr("no chart '%1' to export").arg(key);
  return false;
}

ReportContent collectReport(const ViewPages& pages, const QVector<PagePicture>& pictures,
                            const RunSelection& selection, const QString& backendSummary) {
  ReportContent c;
  c.selection = selection;
  c.backendSummary = backendSummary;
  c.title = QObject::tr("KernelLab report");
  QStringList families;
  for (const RunRef& r : selection.runs)
    if (!families.contains(familyTitle(r.run().request.family))) families << familyTitle(r.run().request.family);
  if (!families.isEmpty()) c.title = QObject::tr("KernelLab report: %1").arg(families.join(QStringLiteral(", ")));
  // Only what the runs contain: pages give charts and pictures only for runs that fit them.
  QHash<QString, QString> titles;
  for (const auto& page : pages) {
    titles[page->id()] = page->title();
    for (widgets::ChartSpec spec : page->charts()) {
      if (spec.caption.isEmpty()) {
        const QString run = page->chartRun(spec);
        if (!run.isEmpty()) spec.caption = QObject::tr("Of %1.").arg(run);
      }
      c.charts.push_back({page->chartSection(spec), spec, page->chartsLogScale()});
    }
  }
  for (const PagePicture& p : pictures)
    if (!p.image.isNull()) c.pictures.push_back({titles.value(p.pageId, p.pageId), p.caption, p.image});
  // Every profiled run: its models beside its counters. The access rows of the run the Access
  // tab shows come from the tab (computed off the GUI thread); others are traced now.
  const AccessPage* access = nullptr;
  for (const auto& page : pages)
    if (const auto* a = dynamic_cast<const AccessPage*>(page.get())) access = a;
  for (const RunRef& ref : selection.runs) {
    if (!kernellab::hasCounters(ref.run())) continue;
    ReportCounters rc;
    rc.run = runStamp(ref.label, ref.run());
    rc.tool = ref.run().profile ? QString::fromStdString(ref.run().profile->tool) : QObject::tr("Nsight Compute");
    if (!access || !access->shownCounters(ref, &rc.rows, &rc.notModelled))
      rc.rows = accessRows(ref.run(), &rc.notModelled);
    rc.rows += occupancyRows(ref.run());
    rc.rows += memoryRows(ref.run());
    c.counters.push_back(rc);
  }
  c.table = buildResultsTable(selection);
  return c;
}

}  // namespace kernellab::app
