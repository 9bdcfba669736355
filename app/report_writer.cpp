// SPDX-License-Identifier: MIT
// Report as HTML (images as data URIs) or PDF (QTextDocument printed through QPrinter, landscape).
#include "report_writer.h"

#include <QAbstractTextDocumentLayout>
#include <QBuffer>
#include <QDateTime>
#include <QFileInfo>
#include <QPageLayout>
#include <QPrinter>
#include <QRegularExpression>
#include <QSet>
#include <QTextDocument>
#include <QUrl>
#include <algorithm>
#include <cmath>

#include "chart_data_io.h"
#include "chart_export.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/text.h"
#include "run_text.h"
#include "view_style.h"

namespace kernellab::app {
namespace {

QString esc(const QString& s) { return s.toHtmlEscaped(); }

QString bytesText(uint64_t b) {
  if (b == 0) return QStringLiteral("-");
  return QString::fromStdString(formatBytes(static_cast<double>(b)));
}

// A number, a percentage or a count: kept on one line and right-aligned.
bool looksNumeric(const QString& cell) {
  static const QRegularExpression re(QStringLiteral("^[-+]?[0-9][0-9.,\\s]*(%| %|ms| ms)?$"));
  return re.match(cell.trimmed()).hasMatch();
}

QString cellHtml(const QString& text, bool header = false) {
  const QString tag = header ? QStringLiteral("th") : QStringLiteral("td");
  if (!header && looksNumeric(text))
    return QStringLiteral("<%1 class=\"num\" align=\"right\" nowrap>%2</%1>").arg(tag, esc(text));
  return QStringLiteral("<%1>%2</%1>").arg(tag, esc(text));
}

QString row(const QStringList& cells, bool header = false) {
  QString r = QStringLiteral("<tr>");
  for (const QString& c : cells) r += cellHtml(c, header);
  return r + QStringLiteral("</tr>\n");
}

// Label / value rows: the label never wraps.
QString factRow(const QString& label, const QString& value) {
  return QStringLiteral("<tr><th align=\"left\" nowrap>%1</th><td>%2</td></tr>\n").arg(esc(label), esc(value));
}

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
    html += QStringLiteral("<table class=\"facts\">\n");
    html += factRow(QObject::tr("Device"), fromStd(d.name));
    html += factRow(QObject::tr("Backend"), cuda ? QObject::tr("CUDA") : QObject::tr("CPU (the kernels' index functions on CPU threads)"));
    html += factRow(QObject::tr("Why this backend"), fromStd(r.backendNote));
    if (cuda) {
      html += factRow(QObject::tr("Compute capability"), QStringLiteral("%1.%2").arg(d.ccMajor).arg(d.ccMinor));
      html += factRow(QObject::tr("Multiprocessors"), QString::number(d.smCount));
      html += factRow(QObject::tr("Global memory / L2"), bytesText(d.globalMemBytes) + QStringLiteral(" / ") + bytesText(d.l2Bytes));
      // Shared memory in KiB, as everywhere in KernelLab (CUDA's own limits are binary).
      html += factRow(QObject::tr("Shared memory per block / per SM (KiB = 1024 B)"),
                      widgets::sharedMemoryText(double(d.sharedPerBlock)) + QStringLiteral(" / ") +
                          widgets::sharedMemoryText(double(d.sharedPerSM)));
      html += factRow(QObject::tr("Registers per SM"), QStringLiteral("%L1").arg(d.regsPerSM));
      html += factRow(QObject::tr("Max threads per block / per SM"), QStringLiteral("%1 / %2").arg(d.maxThreadsPerBlock).arg(d.maxThreadsPerSM));
      html += factRow(QObject::tr("Driver / runtime"), QStringLiteral("%1 / %2").arg(d.driverVersion).arg(d.runtimeVersion));
    } else {
      html += factRow(QObject::tr("Hardware threads"), QString::number(d.smCount));
      html += factRow(QObject::tr("Memory"), bytesText(d.globalMemBytes));
    }
    html += QStringLiteral("</table>\n");
  }
  return html;
}

QString whenText(const RunResult& r) {
  return fromStd(r.createdAt).replace(QLatin1Char('T'), QLatin1Char(' ')).remove(QLatin1Char('Z'));
}

QString configurationSection(const RunSelection& sel) {
  QString html = QStringLiteral("<h2>Configuration</h2>\n<table width=\"100%\">\n");
  html += row({QObject::tr("Run"), QObject::tr("When (UTC)"), QObject::tr("Problem and launch"), QObject::tr("Variants"),
               QObject::tr("Timing"), QObject::tr("Outcome")},
              true);
  for (const RunRef& ref : sel.runs) {
    const RunResult& r = ref.run();
    QStringList variants;
    for (const VariantResult& v : r.variants) variants << variantTitle(r.request.family, v.variant);
    const QString outcome = r.ok ? (r.request.verify ? QObject::tr("ok, verified") : QObject::tr("ok, not verified")) : fromStd(r.message);
    html += QStringLiteral("<tr><td nowrap>%1</td><td nowrap>%2</td><td>%3</td><td>%4</td><td>%5</td><td>%6</td></tr>\n")
                .arg(esc(ref.label), esc(whenText(r)), esc(requestSummary(r.request)), esc(variants.join(QStringLiteral(", "))),
                     esc(QObject::tr("%1 repetitions after %2 warm-up; seed %3").arg(r.request.repetitions).arg(r.request.warmup).arg(r.request.seed)),
                     esc(outcome));
  }
  return html + QStringLiteral("</table>\n");
}

// One table per run: the run's configuration and device as its heading, the variants as rows,
// the numbers on one line each, a variant's note on a row of its own under it. Fits a page
// however many columns the shared table grows.
QString resultsSection(const TableData& t) {
  const int runCol = static_cast<int>(t.headers.indexOf(QObject::tr("Run")));
  const int configCol = static_cast<int>(t.headers.indexOf(QObject::tr("Configuration")));
  const int deviceCol = static_cast<int>(t.headers.indexOf(QObject::tr("Device")));
  const int noteCol = static_cast<int>(t.headers.indexOf(QObject::tr("Note")));
  QVector<int> columns;
  for (int c = 0; c < t.headers.size(); ++c)
    if (c != runCol && c != configCol && c != deviceCol && c != noteCol) columns << c;
  QString html = QStringLiteral("<h2 style=\"page-break-before: always\">Results</h2>\n");
  QString current;
  for (int r = 0; r < t.rows.size(); ++r) {
    const QStringList& cells = t.rows[r];
    const QString label = cells.value(runCol);
    if (label != current) {
      if (!current.isEmpty()) html += QStringLiteral("</table>\n");
      current = label;
      html += QStringLiteral("<h3>Run %1: %2 on %3</h3>\n<table>\n").arg(esc(label), esc(cells.value(configCol)), esc(cells.value(deviceCol)));
      QStringList head;
      for (int c : columns) head << t.headers[c];
      html += row(head, true);
    }
    const bool failed = t.rowFailed.value(r);
    QString line = failed ? QStringLiteral("<tr class=\"failed\">") : QStringLiteral("<tr>");
    for (int c : columns) {
      QString cell = cellHtml(cells.value(c));
      if (failed) cell.replace(QStringLiteral("<td"), QStringLiteral("<td style=\"color:#b00020\""));
      line += cell;
    }
    html += line + QStringLiteral("</tr>\n");
    const QString note = cells.value(noteCol);
    if (!note.isEmpty())
      html += QStringLiteral("<tr><td colspan=\"%1\" class=\"note\">%2</td></tr>\n").arg(columns.size()).arg(esc(note));
  }
  if (!current.isEmpty()) html += QStringLiteral("</table>\n");
  return html;
}

QString sourcesSection(const QVector<ReportChart>& charts) {
  QStringList published, reference;
  for (const auto& c : charts)
    for (const auto& s : c.spec.series) {
      if (!s.published || s.source.isEmpty()) continue;
      QStringList& list = s.reference ? reference : published;
      if (!list.contains(s.source)) list << s.source;
    }
  QString html;
  if (!published.isEmpty()) {
    html += QStringLiteral("<h2>Published figures</h2>\n<p>Hatched bars are published measurements shown for comparison, not measured in these runs:</p>\n<ul>\n");
    for (const QString& s : published) html += QStringLiteral("<li>%1</li>\n").arg(esc(s));
    html += QStringLiteral("</ul>\n");
  }
  if (!reference.isEmpty()) {
    html += QStringLiteral("<h2>GPU reference</h2>\n<p>Cross-hatched bars are KernelLab's own runs on an NVIDIA H200, "
                           "shown beside runs of the CPU backend, not measured in these runs:</p>\n<ul>\n");
    for (const QString& s : reference) html += QStringLiteral("<li>%1</li>\n").arg(esc(s));
    html += QStringLiteral("</ul>\n");
  }
  return html;
}

QString pngDataUri(const QImage& image) {
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "PNG");
  return QStringLiteral("data:image/png;base64,") + QString::fromLatin1(bytes.toBase64());
}

// A landscape A4 page with 12 mm margins has 186 mm of text height (703 px at 96 dpi). A picture
// leaves room for what shares its page: the heading of its section when it opens one (22 px of
// margin, 21 px of text), the paragraph gaps (2 x 12 px) and a caption of up to two lines
// (2 x 13 px). At 640 px, the Clusters view's picture pushed its caption onto a page of its own.
constexpr double kMaxPictureHeight = 600;
// The same page in the terms of a chart's figure: a chart is shrunk (down to kMinChartHeight)
// until it, its caption and its notes share one page.
constexpr int kPageTextHeight = 703;
constexpr int kHeadingHeight = 43;
constexpr int kParagraphGaps = 3 * 12 + 8;
constexpr int kNoteLineHeight = 14;
constexpr int kMinChartHeight = 320;

// Charts drawn at twice their shown size: sharp in browsers and on paper.
constexpr double kChartScale = 2.0;

// Model beside measurement: per profiled run, one table (variant, kernel, quantity, model,
// measured, agree), the rows that differ beyond their tolerance marked.
QString countersSection(const QVector<ReportCounters>& sections) {
  if (sections.isEmpty()) return {};
  QString html = QStringLiteral("<h2 style=\"page-break-before: always\">%1</h2>\n")
                     .arg(esc(QObject::tr("Model beside measurement (Nsight Compute)")));
  html += QStringLiteral("<p class=\"note\">%1</p>\n")
              .arg(esc(QObject::tr(
                  "Each of KernelLab's predictions beside the GPU's own counters of a profiled run "
                  "(each variant alone under Nsight Compute; its times are the profiler's, not "
                  "benchmark times). Sectors and bank conflicts per request, and DRAM bytes, agree "
                  "within 10 % or 0.5; occupancy within one percentage point (docs/models.md, "
                  "\"Model beside measurement\"). The access model traces warp 0 of the grid's "
                  "middle block; the counters count every launch.")));
  for (const ReportCounters& s : sections) {
    int differ = 0, compared = 0;
    for (const auto& r : s.rows) {
      compared += r.hasPrediction;
      differ += r.hasPrediction && !r.agrees;
    }
    html += QStringLiteral("<h3>%1</h3>\n<p class=\"note\">%2</p>\n")
                .arg(esc(QObject::tr("Run %1").arg(s.run)),
                     esc(QObject::tr("%1; %2 of %3 compared rows differ beyond the tolerance.")
                             .arg(s.tool)
                             .arg(differ)
                             .arg(compared)));
    html += QStringLiteral("<table>\n") +
            row({QObject::tr("Variant"), QObject::tr("Kernel"), QObject::tr("Quantity"),
                 QObject::tr("Model"), QObject::tr("Measured"), QObject::tr("Agree")},
                true);
    for (const auto& r : s.rows) {
      const auto value = [&r](double v) {
        const int digits = std::abs(v) >= 100 ? 0 : std::abs(v) >= 10 ? 1 : 2;
        return QString::number(v, 'f', digits) + (r.unit.isEmpty() ? QString() : QStringLiteral(" ") + r.unit);
      };
      html += row({r.variant, r.kernel, r.quantity, r.hasPrediction ? value(r.predicted) : QStringLiteral("-"),
                   value(r.measured),
                   !r.hasPrediction ? QObject::tr("(no model)") : r.agrees ? QObject::tr("yes") : QObject::tr("NO")});
    }
    html += QStringLiteral("</table>\n");
    if (!s.notModelled.isEmpty())
      html += QStringLiteral("<p class=\"note\">%1</p>\n")
                  .arg(esc(QObject::tr("Not modelled: %1.").arg(s.notModelled.join(QStringLiteral("; ")))));
  }
  return html;
}

// The sections in the order their first figure comes: each family's charts, then the views.
QStringList sectionsOf(const ReportContent& c) {
  QStringList sections;
  for (const auto& chart : c.charts)
    if (!sections.contains(chart.section)) sections << chart.section;
  for (const auto& picture : c.pictures)
    if (!sections.contains(picture.section)) sections << picture.section;
  return sections;
}

// Lines a paragraph of the 8.5 pt note style takes across the page's text width (about 140
// characters of DejaVu Sans in 273 mm, rounded down to be safe).
int noteLines(const QString& text) { return std::max(1, static_cast<int>((text.size() + 139) / 140)); }

// What one chart's figure prints: the notes not already printed under an earlier figure (the
// CPU backend's caveat under every chart pushed each figure's notes onto a page of their own),
// the figure that printed the others, and a picture height that leaves those lines room on the
// figure's page.
struct ChartFigure {
  int chart = 0;
  int number = 0;             // "Figure N"
  bool opensSection = false;
  QStringList notes;
  QVector<int> notesAlsoUnder;  // the figures that printed the notes this one shares
  int height = 0;
};

QVector<ChartFigure> planChartFigures(const ReportContent& c) {
  QVector<ChartFigure> out;
  QHash<QString, int> printedUnder;  // note -> the figure that printed it
  int figure = 0;
  for (const QString& section : sectionsOf(c)) {
    bool first = true;
    for (int i = 0; i < c.charts.size(); ++i) {
      if (c.charts[i].section != section) continue;
      ChartFigure f;
      f.chart = i;
      f.number = ++figure;
      f.opensSection = first;
      first = false;
      for (const QString& note : c.charts[i].spec.notes) {
        if (printedUnder.contains(note)) {
          if (!f.notesAlsoUnder.contains(printedUnder.value(note))) f.notesAlsoUnder << printedUnder.value(note);
          continue;
        }
        printedUnder.insert(note, f.number);
        f.notes << note;
      }
      int lines = noteLines(c.charts[i].spec.title + c.charts[i].spec.caption) + (f.notesAlsoUnder.isEmpty() ? 0 : 1);
      for (const QString& note : f.notes) lines += noteLines(note);
      // The page's text height less the section heading, the paragraph gaps and the text lines.
      const int room = kPageTextHeight - (f.opensSection ? kHeadingHeight : 0) - kParagraphGaps - lines * kNoteLineHeight;
      f.height = std::clamp(room, kMinChartHeight, c.chartSize.height());
      out << f;
    }
    for (const auto& picture : c.pictures)
      if (picture.section == section) {
        first = false;
        ++figure;
      }
  }
  return out;
}

QHash<QString, QImage> reportImages(const ReportContent& c) {
  QHash<QString, QImage> images;
  for (const ChartFigure& f : planChartFigures(c)) {
    // The notes go under the figure as text: the plot keeps the picture's height.
    widgets::ChartSpec spec = c.charts[f.chart].spec;
    spec.notes.clear();
    images[QStringLiteral("chart-%1").arg(f.chart)] = widgets::renderChartImage(
        spec, c.charts[f.chart].logY, QSize(c.chartSize.width(), f.height), kChartScale);
  }
  for (int i = 0; i < c.pictures.size(); ++i) images[QStringLiteral("picture-%1").arg(i)] = c.pictures[i].image;
  return images;
}

QVector<Family> familiesIn(const RunSelection& sel) {
  QVector<Family> out;
  for (const RunRef& r : sel.runs)
    if (!out.contains(r.run().request.family)) out << r.run().request.family;
  return out;
}

}  // namespace

QString familyFootnote(Family f) {
  const FamilyDescriptor* family = findFamily(f);
  return family ? QString::fromStdString(family->reportNote) : QString();
}

QString reportHtml(const ReportContent& c, const QHash<QString, QString>& imageUrls) {
  QString html = QStringLiteral(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n<title>%1</title>\n<style>\n"
      "body { font-family: 'DejaVu Sans', Arial, sans-serif; font-size: 10pt; color: #222; margin: 24px; max-width: 1060px; }\n"
      "h1 { font-size: 18pt; } h2 { font-size: 13pt; margin-top: 22px; border-bottom: 1px solid #ccc; }\n"
      "h3 { font-size: 10.5pt; margin: 14px 0 4px 0; }\n"
      "table { border-collapse: collapse; margin: 6px 0; }\n"
      "th, td { border: 1px solid #bbb; padding: 3px 6px; font-size: 8.5pt; text-align: left; vertical-align: top; }\n"
      "th { background: #eef2f6; white-space: nowrap; }\n td.num { text-align: right; white-space: nowrap; }\n"
      "td.note { color: #555; font-size: 8pt; }\n .note { color: #555; font-size: 8.5pt; }\n"
      "p.caption { color: #444; font-size: 8.5pt; margin-top: 2px; }\n"
      "img { max-width: 100%; height: auto; }\n</style></head><body>\n")
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

  const QVector<ChartFigure> figures = planChartFigures(c);
  int figure = 0;
  for (const QString& section : sectionsOf(c)) {
    // Each section starts a page on paper: a heading never stays alone at a page's foot.
    html += QStringLiteral("<h2 style=\"page-break-before: always\">%1</h2>\n").arg(esc(section));
    bool first = true;
    for (const ChartFigure& f : figures) {
      const auto& chart = c.charts[f.chart];
      if (chart.section != section) continue;
      first = false;
      figure = f.number;
      // One figure per page, its notes with it: a figure never leaves its notes for the next page.
      const QString pageBreak = f.opensSection ? QString() : QStringLiteral(" style=\"page-break-before: always\"");
      // The picture carries the chart's title, units and legend; the caption its runs and dates.
      html += QStringLiteral("<p%6><img src=\"%1\" width=\"%2\" alt=\"%3\"></p>\n<p class=\"caption\">Figure %4. %3. %5</p>\n")
                  .arg(imageUrls.value(QStringLiteral("chart-%1").arg(f.chart)))
                  .arg(c.chartSize.width())
                  .arg(esc(chart.spec.title))
                  .arg(f.number)
                  .arg(esc(chart.spec.caption), pageBreak);
      QStringList notes;
      for (const QString& n : f.notes) notes << esc(n);
      if (!f.notesAlsoUnder.isEmpty()) {
        QVector<int> under = f.notesAlsoUnder;
        std::sort(under.begin(), under.end());
        QStringList numbers;
        for (int n : under) numbers << QString::number(n);
        notes << esc(numbers.size() == 1
                         ? QObject::tr("The other notes of this chart are under Figure %1.").arg(numbers.front())
                         : QObject::tr("The other notes of this chart are under Figures %1 and %2.")
                               .arg(numbers.mid(0, numbers.size() - 1).join(QStringLiteral(", ")), numbers.back()));
      }
      if (!notes.isEmpty())
        html += QStringLiteral("<p class=\"note\">%1</p>\n").arg(notes.join(QStringLiteral("<br>")));
    }
    for (int i = 0; i < c.pictures.size(); ++i) {
      const auto& picture = c.pictures[i];
      if (picture.section != section) continue;
      if (!first) html += QStringLiteral("<div style=\"page-break-before: always\"></div>\n");
      first = false;
      // As wide as a chart at most, and no taller than a landscape page's text (an image is never
      // split across pages: one taller than a page was cut).
      const double dpr = std::max(1.0, picture.image.devicePixelRatio());
      int width = std::min(c.chartSize.width(), static_cast<int>(picture.image.width() / dpr));
      const double aspect = double(picture.image.height()) / std::max(1, picture.image.width());
      if (width * aspect > kMaxPictureHeight) width = static_cast<int>(kMaxPictureHeight / aspect);
      html += QStringLiteral("<p><img src=\"%1\" width=\"%2\" alt=\"%3\"></p>\n<p class=\"caption\">Figure %4. %3</p>\n")
                  .arg(imageUrls.value(QStringLiteral("picture-%1").arg(i)))
                  .arg(width)
                  .arg(esc(picture.caption))
                  .arg(++figure);
    }
  }
  html += countersSection(c.counters);
  html += resultsSection(c.table);
  html += sourcesSection(c.charts);
  html += QStringLiteral("<h2>Units and what the figures count</h2>\n");
  for (Family f : familiesIn(c.selection)) html += QStringLiteral("<p class=\"note\">%1</p>\n").arg(esc(familyFootnote(f)));
  return html + QStringLiteral("</body></html>\n");
}

std::unique_ptr<QTextDocument> reportDocument(const ReportContent& c, QPagedPaintDevice* device) {
  auto doc = std::make_unique<QTextDocument>();
  QHash<QString, QString> urls;
  const QHash<QString, QImage> images = reportImages(c);
  for (auto it = images.begin(); it != images.end(); ++it) {
    const QString name = it.key() + QStringLiteral(".png");
    urls[it.key()] = name;
    doc->addResource(QTextDocument::ImageResource, QUrl(name), it.value());
  }
  doc->setDefaultFont(QFont(QStringLiteral("DejaVu Sans"), 9));
  doc->setHtml(reportHtml(c, urls));
  if (device) {
    // Laid out on the device itself, page by page: what is measured is what is printed.
    doc->documentLayout()->setPaintDevice(device);
    const QRectF page = device->pageLayout().paintRectPixels(device->logicalDpiX());
    doc->setPageSize(page.size());
  }
  return doc;
}

void setUpReportPrinter(QPrinter& printer, const QString& path, const QString& title) {
  // Landscape A4: the charts and the tables take the page's width without squeezing a column.
  printer.setOutputFormat(QPrinter::PdfFormat);
  printer.setOutputFileName(path);
  printer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF(12, 12, 12, 12),
                                    QPageLayout::Millimeter));
  printer.setDocName(title);
  printer.setCreator(fromStd(toolVersion()));
}

bool writeReport(const ReportContent& c, const QString& path, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  const bool pdf = suffix == QLatin1String("pdf");
  if (!pdf && suffix != QLatin1String("html") && suffix != QLatin1String("htm")) {
    if (error) *error = QObject::tr("report '%1': the name must end in .html or .pdf").arg(path);
    return false;
  }
  if (!pdf) {
    QHash<QString, QString> urls;
    const QHash<QString, QImage> images = reportImages(c);
    for (auto it = images.begin(); it != images.end(); ++it) urls[it.key()] = pngDataUri(it.value());
    return widgets::writeFileBytes(path, reportHtml(c, urls).toUtf8(), error);
  }
  QPrinter printer(QPrinter::HighResolution);
  setUpReportPrinter(printer, path, c.title);
  const std::unique_ptr<QTextDocument> doc = reportDocument(c, &printer);
  doc->print(&printer);
  if (!QFileInfo(path).exists() || QFileInfo(path).size() == 0) {
    if (error) *error = QObject::tr("cannot write '%1'").arg(path);
    return false;
  }
  return true;
}

}  // namespace kernellab::app
