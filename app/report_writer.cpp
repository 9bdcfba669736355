// SPDX-License-Identifier: MIT
// Report as HTML (images as data URIs) or PDF (QTextDocument printed through QPrinter).
#include "report_writer.h"

#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QPageLayout>
#include <QPrinter>
#include <QSet>
#include <QTextDocument>
#include <QUrl>

#include "chart_data_io.h"
#include "chart_export.h"
#include "kernellab/experiment.h"
#include "kernellab/text.h"
#include "run_text.h"

namespace kernellab::app {
namespace {

QString esc(const QString& s) { return s.toHtmlEscaped(); }

QString bytesText(uint64_t b) {
  if (b == 0) return QStringLiteral("-");
  return QString::fromStdString(formatBytes(static_cast<double>(b)));
}

QString row(const QStringList& cells, bool header = false) {
  QString r = QStringLiteral("<tr>");
  for (const QString& c : cells)
    r += header ? QStringLiteral("<th>%1</th>").arg(esc(c)) : QStringLiteral("<td>%1</td>").arg(esc(c));
  return r + QStringLiteral("</tr>\n");
}

// One small two-column table per device: reads well on paper and in a browser.
QString devicesSection(const RunSelection& sel) {
  QString html = QStringLiteral("<h2>Devices</h2>\n");
  QSet<QString> seen;
  for (const RunRef& ref : sel.runs) {
    const RunResult& r = ref.run();
    const DeviceInfo& d = r.device;
    const QString key = fromStd(d.name) + fromStd(r.backend) + fromStd(r.backendNote);
    if (seen.contains(key)) continue;
    seen.insert(key);
    const bool cuda = r.backend == "cuda";
    html += QStringLiteral("<table>\n");
    html += row({QObject::tr("Device"), fromStd(d.name)}, false);
    html += row({QObject::tr("Backend"), cuda ? QObject::tr("CUDA") : QObject::tr("CPU (the kernels' index functions on CPU threads)")});
    html += row({QObject::tr("Why this backend"), fromStd(r.backendNote)});
    if (cuda) {
      html += row({QObject::tr("Compute capability"), QStringLiteral("%1.%2").arg(d.ccMajor).arg(d.ccMinor)});
      html += row({QObject::tr("Multiprocessors"), QString::number(d.smCount)});
      html += row({QObject::tr("Global memory / L2"), bytesText(d.globalMemBytes) + QStringLiteral(" / ") + bytesText(d.l2Bytes)});
      html += row({QObject::tr("Shared memory per block / per SM"), bytesText(d.sharedPerBlock) + QStringLiteral(" / ") + bytesText(d.sharedPerSM)});
      html += row({QObject::tr("Registers per SM"), QString::number(d.regsPerSM)});
      html += row({QObject::tr("Max threads per block / per SM"), QStringLiteral("%1 / %2").arg(d.maxThreadsPerBlock).arg(d.maxThreadsPerSM)});
      html += row({QObject::tr("Driver / runtime"), QStringLiteral("%1 / %2").arg(d.driverVersion).arg(d.runtimeVersion)});
    } else {
      html += row({QObject::tr("Hardware threads"), QString::number(d.smCount)});
      html += row({QObject::tr("Memory"), bytesText(d.globalMemBytes)});
    }
    html += QStringLiteral("</table>\n");
  }
  return html;
}

QString configurationSection(const RunSelection& sel) {
  QString html = QStringLiteral("<h2>Configuration</h2>\n<table>\n");
  html += row({QObject::tr("Run"), QObject::tr("When (UTC)"), QObject::tr("Problem and launch"), QObject::tr("Variants"),
               QObject::tr("Repetitions"), QObject::tr("Seed"), QObject::tr("Outcome")},
              true);
  for (const RunRef& ref : sel.runs) {
    const RunResult& r = ref.run();
    QStringList variants;
    for (const VariantResult& v : r.variants) variants << variantTitle(r.request.family, v.variant);
    QString outcome = r.ok ? (r.request.verify ? QObject::tr("ok, verified") : QObject::tr("ok, not verified")) : fromStd(r.message);
    html += row({ref.label, fromStd(r.createdAt).replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z')),
                 requestSummary(r.request), variants.join(QStringLiteral(", ")),
                 QObject::tr("%1 after %2 warm-up").arg(r.request.repetitions).arg(r.request.warmup),
                 QString::number(r.request.seed), outcome});
  }
  return html + QStringLiteral("</table>\n");
}

QString tableSection(const TableData& t) {
  QString html = QStringLiteral("<h2>Results</h2>\n<table>\n") + row(t.headers, true);
  for (const QStringList& r : t.rows) html += row(r);
  return html + QStringLiteral("</table>\n");
}

QString sourcesSection(const QVector<widgets::ChartSpec>& charts) {
  QStringList sources;
  for (const auto& c : charts)
    for (const auto& s : c.series)
      if (s.published && !s.source.isEmpty() && !sources.contains(s.source)) sources << s.source;
  if (sources.isEmpty()) return {};
  QString html = QStringLiteral("<h2>Published figures</h2>\n<p>Hatched bars are published measurements shown for comparison, not measured in these runs:</p>\n<ul>\n");
  for (const QString& s : sources) html += QStringLiteral("<li>%1</li>\n").arg(esc(s));
  return html + QStringLiteral("</ul>\n");
}

QString pngDataUri(const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(bytes.toBase64());
}

}  // namespace

QString reportHtml(const ReportContent& c, const QHash<QString, QString>& imageUrls) {
  QString html = QStringLiteral(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>%1</title>\n<style>\n"
      "body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #222; margin: 24px; }\n"
      "h1 { font-size: 18pt; } h2 { font-size: 13pt; margin-top: 22px; border-bottom: 1px solid #ccc; }\n"
      "table { border-collapse: collapse; margin: 6px 0; }\n"
      "th, td { border: 1px solid #bbb; padding: 3px 6px; font-size: 8.5pt; text-align: left; }\n"
      "th { background: #eef2f6; }\n .note { color: #555; font-size: 8.5pt; }\n"
      "img { max-width: 100%; }\n</style></head><body>\n")
                     .arg(esc(c.title));
  html += QStringLiteral("<h1>%1</h1>\n").arg(esc(c.title));
  html += QStringLiteral("<p>%1 · generated %2 UTC by %3</p>\n")
              .arg(esc(QObject::tr("%n run(s)", nullptr, static_cast<int>(c.selection.runs.size()))),
                   QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyy-MM-dd HH:mm")),
                   esc(fromStd(toolVersion())));
  if (!c.backendSummary.isEmpty())
    html += QStringLiteral("<p class=\"note\">Backend of this window: %1</p>\n").arg(esc(c.backendSummary));
  html += devicesSection(c.selection);
  html += configurationSection(c.selection);
  html += QStringLiteral("<h2>Charts</h2>\n");
  for (int i = 0; i < c.charts.size(); ++i) {
    const auto& chart = c.charts[i];
    // The picture carries the chart's title, units and notes (the same as an exported chart).
    html += QStringLiteral("<p><img src=\"%2\" width=\"680\" alt=\"%1\"><br><span class=\"note\">Figure %3.</span></p>\n")
                .arg(esc(chart.title), imageUrls.value(QStringLiteral("chart-%1").arg(i)))
                .arg(i + 1);
  }
  for (int i = 0; i < c.pictures.size(); ++i)
    html += QStringLiteral("<h3>%1</h3>\n<p><img src=\"%2\" width=\"680\" alt=\"%1\"></p>\n")
                .arg(esc(c.pictures[i].first), imageUrls.value(QStringLiteral("picture-%1").arg(i)));
  html += tableSection(c.table);
  html += sourcesSection(c.charts);
  html += QStringLiteral("<p class=\"note\">Times in milliseconds; bandwidth in decimal GB/s (1 GB = 10^9 bytes), "
                         "each input read once and each output written once.</p>\n</body></html>\n");
  return html;
}

bool writeReport(const ReportContent& c, const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const bool pdf = suffix == QLatin1String("pdf");
  if (!pdf && suffix != QLatin1String("html") && suffix != QLatin1String("htm")) {
    if (error) *error = QObject::tr("report '%1': the name must end in .html or .pdf").arg(path);
    return false;
  }
  // Charts are rendered at 1.5x for sharp pictures in browsers and on paper.
  QHash<QString, QImage> images;
  for (int i = 0; i < c.charts.size(); ++i)
    images[QStringLiteral("chart-%1").arg(i)] = widgets::renderChartImage(c.charts[i], c.logY, c.chartSize, 1.5);
  for (int i = 0; i < c.pictures.size(); ++i) images[QStringLiteral("picture-%1").arg(i)] = c.pictures[i].second;

  if (!pdf) {
    QHash<QString, QString> urls;
    for (auto it = images.begin(); it != images.end(); ++it) urls[it.key()] = pngDataUri(it.value());
    return widgets::writeFileBytes(path, reportHtml(c, urls).toUtf8(), error);
  }
  QHash<QString, QString> urls;
  QTextDocument doc;
  for (auto it = images.begin(); it != images.end(); ++it) {
    const QString name = it.key() + QStringLiteral(".png");
    urls[it.key()] = name;
    doc.addResource(QTextDocument::ImageResource, QUrl(name), it.value());
  }
  doc.setHtml(reportHtml(c, urls));
  QPrinter printer(QPrinter::HighResolution);
  printer.setOutputFormat(QPrinter::PdfFormat);
  printer.setOutputFileName(path);
  printer.setPageSize(QPageSize(QPageSize::A4));
  printer.setPageMargins(QMarginsF(12, 12, 12, 12), QPageLayout::Millimeter);
  printer.setDocName(c.title);
  printer.setCreator(fromStd(toolVersion()));
  doc.print(&printer);
  if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0) {
    if (error) *error = QObject::tr("cannot write '%1'").arg(path);
    return false;
  }
  return true;
}

}  // namespace kernellab::app
