// SPDX-License-Identifier: MIT
// Every export writes a file that parses: PNG (an image with more than background), PDF (a
// header and pages), SVG (XML with an <svg> root), CSV (rows and columns), JSON; and reports as
// HTML and PDF, from the window after a CPU run.
#include <QDir>
#include <functional>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QXmlStreamReader>
#include <QtTest>

#include <QAbstractTextDocumentLayout>
#include <QPrinter>
#include <QTextDocument>
#include <QTextLayout>
#include <QTextTable>
#include <qcustomplot.h>

#include "chart_export.h"
#include "chart_view.h"
#include "export_checks.h"
#include "report_writer.h"
#include "experiment_panel.h"
#include "main_window.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::widgets;
using namespace kltest;
using kernellab::RunRequest;

namespace {

ChartSpec sampleChart() {
  ChartSpec spec;
  spec.id = QStringLiteral("sample");
  spec.title = QStringLiteral("Sample: time per variant");
  spec.xLabel = QStringLiteral("Threads per block");
  spec.yLabel = QStringLiteral("Time (ms)");
  spec.unit = QStringLiteral("ms");
  spec.categories = {QStringLiteral("TPB 64"), QStringLiteral("TPB 256")};
  for (int s = 0; s < 3; ++s) {
    ChartSeries series;
    series.name = QStringLiteral("Variant %1").arg(s);
    series.colorIndex = s;
    series.published = s == 2;
    series.x = {0, 1};
    series.y = {10.0 + s, 20.0 - s};
    series.low = {9.0 + s, 19.0 - s};
    series.high = {11.0 + s, 21.0 - s};
    spec.series << series;
  }
  spec.notes << QStringLiteral("A note under the chart.");
  return spec;
}


// Every line break inside a table cell of a laid-out document: where it falls must be a space
// (no number or word cut in two). Returns the offending cells' texts.
QStringList cellsBrokenMidWord(QTextDocument& doc) {
  QStringList bad;
  std::function<void(QTextFrame*)> visit = [&](QTextFrame* frame) {
    if (auto* table = qobject_cast<QTextTable*>(frame)) {
      for (int r = 0; r < table->rows(); ++r)
        for (int c = 0; c < table->columns(); ++c) {
          const QTextTableCell cell = table->cellAt(r, c);
          for (QTextFrame::iterator it = cell.begin(); !it.atEnd(); ++it) {
            const QTextBlock block = it.currentBlock();
            if (!block.isValid()) continue;
            const QString text = block.text();
            QTextLayout* layout = block.layout();
            for (int l = 0; l + 1 < layout->lineCount(); ++l) {
              const int end = layout->lineAt(l).textStart() + layout->lineAt(l).textLength();
              if (end <= 0 || end >= text.size()) continue;
              if (!text[end - 1].isSpace() && !text[end].isSpace() && text[end - 1] != QLatin1Char('-') &&
                  text[end - 1] != QLatin1Char('/') && text[end - 1] != QLatin1Char(','))
                bad << text;
            }
          }
        }
    }
    for (QTextFrame* child : frame->childFrames()) visit(child);
  };
  visit(doc.rootFrame());
  return bad;
}

// A chart whose legend names are long, as with published figures beside a sweep.
ChartSpec wideLegendChart(int categories) {
  ChartSpec spec;
  spec.id = QStringLiteral("wide");
  spec.title = QStringLiteral("Block-schedule model: share of the busiest memory partition per wave, Cartesian vs diagonal order of the blocks");
  spec.xLabel = QStringLiteral("Measured: device · threads per block; others: device");
  spec.yLabel = QStringLiteral("Effective bandwidth (GB/s, 1 GB = 10^9 B)");
  spec.unit = QStringLiteral("GB/s");
  for (int c = 0; c < categories; ++c) spec.categories << QStringLiteral("CPU · TPB %1").arg(64 << (c % 5));
  spec.categories.back() = QStringLiteral("H200, measured 2026-11-29 (8192x8192)");
  for (int s = 0; s < 6; ++s) {
    ChartSeries series;
    series.name = QStringLiteral("Published (GTX Titan): Non-coalesced + global memory, variant %1").arg(s);
    series.colorIndex = s;
    for (int c = 0; c < categories; ++c) {
      series.x << c;
      series.y << 10.0 * (s + 1) + c;
    }
    spec.series << series;
  }
  spec.notes << QStringLiteral("A long note that has to wrap inside the chart rather than run past its right edge: ").repeated(4);
  return spec;
}
}  // namespace

class TstExports : public QObject {
  Q_OBJECT
  QString dir_;

 private slots:
  void initTestCase() {
    kltest::isolateAppDirs(QStringLiteral("tst_exports"));
    dir_ = kltest::tempPath(QStringLiteral("exports"));
    QDir(dir_).removeRecursively();
    QDir().mkpath(dir_);
  }

  void eachChartFormat() {
    const ChartSpec spec = sampleChart();
    const QSize size(900, 500);
    for (ExportFormat f : allExportFormats()) {
      const QString path = QDir(dir_).filePath(exportFileName(spec, f));
      QString error;
      QVERIFY2(exportChart(spec, false, path, f, size, &error), qPrintable(error));
      QVERIFY(QFileInfo(path).size() > 0);
    }
    checkPng(QDir(dir_).filePath(QStringLiteral("sample.png")), size);
    checkPdf(QDir(dir_).filePath(QStringLiteral("sample.pdf")));
    checkSvg(QDir(dir_).filePath(QStringLiteral("sample.svg")));
    checkCsv(QDir(dir_).filePath(QStringLiteral("sample.csv")), 6, 10);
    checkJson(QDir(dir_).filePath(QStringLiteral("sample.json")));
    // Log scale and another size render too.
    QString error;
    const QString log = QDir(dir_).filePath(QStringLiteral("sample-log.png"));
    QVERIFY2(exportChart(spec, true, log, ExportFormat::Png, QSize(1600, 900), &error), qPrintable(error));
    checkPng(log, QSize(1600, 900));
  }


  // Issue 14, item 2: legends, titles and notes stay inside the chart, the legend outside the
  // plot area; category labels do not run into each other.
  void legendsStayInsideTheChart() {
    for (const QSize size : {QSize(1000, 540), QSize(700, 450), QSize(1400, 800)}) {
      for (int categories : {0, 3, 9}) {
        // 0: a chart with short legend names, whose legend goes beside the plot.
        const ChartSpec spec = categories == 0 ? sampleChart() : wideLegendChart(categories);
        QCustomPlot plot;
        plot.resize(size);
        plot.setViewport(QRect(QPoint(0, 0), size));  // a hidden plot gets no resize event
        populatePlot(&plot, spec, false);
        plot.replot();
        const QRect chart(QPoint(0, 0), size);
        const QRect legend = plot.legend->outerRect();
        const QString where = QStringLiteral("%1x%2, %3 categories: legend %4,%5 %6x%7")
                                  .arg(size.width()).arg(size.height()).arg(categories)
                                  .arg(legend.x()).arg(legend.y()).arg(legend.width()).arg(legend.height());
        QVERIFY2(chart.contains(legend), qPrintable(where));
        QVERIFY2(!legend.intersects(plot.axisRect()->rect()), qPrintable(where));
        // The plot keeps most of the width: a legend beside it takes at most a third.
        QVERIFY2(plot.axisRect()->rect().width() > size.width() / 2, qPrintable(where));
        // Every legend item is drawn inside the legend (none clipped).
        for (int i = 0; i < plot.legend->itemCount(); ++i)
          if (plot.legend->item(i)) QVERIFY2(chart.contains(plot.legend->item(i)->outerRect()), qPrintable(where));
        // Fitting again (a resize) keeps it so.
        populatePlot(&plot, spec, true);
        plot.resize(size.width() - 150, size.height());
        plot.setViewport(QRect(0, 0, size.width() - 150, size.height()));
        fitToWidth(&plot, spec);
        plot.replot();
        QVERIFY2(QRect(QPoint(0, 0), plot.size()).contains(plot.legend->outerRect()), qPrintable(where));
        // Title and notes are wrapped to the chart's width.
        for (auto* text : plot.findChildren<QCPTextElement*>()) {
          const QFontMetrics fm(text->font());
          for (const QString& line : text->text().split(QLatin1Char('\n')))
            QVERIFY2(fm.horizontalAdvance(line) <= size.width(), qPrintable(line));
        }
        // Category labels: side by side without overlapping, or slanted.
        QCPAxis* x = plot.xAxis;
        if (x->tickLabelRotation() == 0) {
          auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(x->ticker());
          QVERIFY(ticker);
          const QFontMetrics fm(x->tickLabelFont());
          double previousRight = -1e9;
          for (auto it = ticker->ticks().begin(); it != ticker->ticks().end(); ++it) {
            int w = 0;
            for (const QString& line : it.value().split(QLatin1Char('\n'))) w = std::max(w, fm.horizontalAdvance(line));
            const double centre = x->coordToPixel(it.key());
            QVERIFY2(centre - w / 2.0 >= previousRight, qPrintable(QStringLiteral("%1: '%2' overlaps its neighbour").arg(where, it.value())));
            previousRight = centre + w / 2.0;
          }
        }
      }
    }
  }

  // Issue 14, item 2: the PDF's tables fit a landscape page without cutting a number or a word.
  void pdfReportCellsKeepNumbersWhole() {
    app::MainWindow w;
    w.resize(1400, 900);
    w.show();
    RunRequest r = kltest::smallTranspose();
    w.panel()->setRequest(r);
    w.panel()->setSweep(QStringLiteral("tpb"), QStringLiteral("64,128,256,512,1024"));
    QSignalSpy settled(&w, &app::MainWindow::runSettled);
    QVERIFY(w.startRun());
    QVERIFY(settled.wait(240000));
    QVERIFY(settled.first().at(0).toBool());
    const app::ReportContent content = w.reportContent();
    QCOMPARE(content.selection.runs.size(), 5);
    // A sweep's runs are told apart by their own sweep value.
    QStringList labels;
    for (const auto& run : content.selection.runs) labels << run.label;
    QCOMPARE(QSet<QString>(labels.begin(), labels.end()).size(), 5);
    QVERIFY2(labels.last().endsWith(QStringLiteral("tpb=1024")), qPrintable(labels.join(QStringLiteral(", "))));

    const QString path = QDir(dir_).filePath(QStringLiteral("layout.pdf"));
    QPrinter printer(QPrinter::HighResolution);
    app::setUpReportPrinter(printer, path, content.title);
    QCOMPARE(printer.pageLayout().orientation(), QPageLayout::Landscape);
    const std::unique_ptr<QTextDocument> doc = app::reportDocument(content, &printer);
    doc->documentLayout()->documentSize();  // lays the whole document out
    const QStringList bad = cellsBrokenMidWord(*doc);
    QVERIFY2(bad.isEmpty(), qPrintable(bad.join(QStringLiteral(" | "))));
    // Nothing is wider than the page: no table or picture runs past the right margin.
    const double pageWidth = printer.pageLayout().paintRectPixels(printer.resolution()).width();
    QVERIFY2(doc->documentLayout()->documentSize().width() <= pageWidth + 1,
             qPrintable(QStringLiteral("%1 > %2").arg(doc->documentLayout()->documentSize().width()).arg(pageWidth)));
    QString error;
    QVERIFY2(app::writeReport(content, path, &error), qPrintable(error));
    checkPdf(path);
  }

  // Issue 14, item 2: a picture of a view and its caption are printed on one page, also when the
  // picture opens its section (the Clusters view's picture, as wide as the window, left its
  // caption alone on the next page of every k-means report).
  void pdfFiguresKeepTheirCaptions() {
    app::ReportContent content;
    content.title = QStringLiteral("KernelLab report: pictures");
    for (const QSize size : {QSize(1500, 950), QSize(1500, 700), QSize(900, 1400)}) {
      QImage image(size, QImage::Format_RGB32);
      image.fill(Qt::darkCyan);
      content.pictures << app::ReportPicture{
          QStringLiteral("View %1x%2").arg(size.width()).arg(size.height()),
          QStringLiteral("A view of run #1, CPU, 2026-12-01 22:26 UTC"), image};
    }
    QPrinter printer(QPrinter::HighResolution);
    app::setUpReportPrinter(printer, QDir(dir_).filePath(QStringLiteral("pictures.pdf")),
                            content.title);
    const std::unique_ptr<QTextDocument> doc = app::reportDocument(content, &printer);
    QAbstractTextDocumentLayout* layout = doc->documentLayout();
    layout->documentSize();
    const double pageHeight = doc->pageSize().height();
    auto pageOf = [pageHeight](double y) { return static_cast<int>(y / pageHeight); };
    int figures = 0;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
      bool image = false;
      for (auto it = b.begin(); !it.atEnd(); ++it)
        image = image || it.fragment().charFormat().isImageFormat();
      if (!image) continue;
      const QTextBlock caption = b.next();
      QVERIFY(caption.isValid() && caption.text().startsWith(QStringLiteral("Figure")));
      const QRectF picture = layout->blockBoundingRect(b),
                   text = layout->blockBoundingRect(caption);
      QVERIFY2(
          pageOf(text.bottom() - 1) == pageOf(picture.top()),
          qPrintable(QStringLiteral("%1: the picture is on page %2, its caption ends on page %3")
                         .arg(caption.text())
                         .arg(pageOf(picture.top()) + 1)
                         .arg(pageOf(text.bottom() - 1) + 1)));
      ++figures;
    }
    QCOMPARE(figures, 3);
  }

  // Issue 14, item 2: a chart, its caption and its notes share a page, and a note repeated by
  // every chart (the CPU backend's caveat) is printed once. The transpose sweep report put its
  // second figure's notes on a page of their own and printed the same notes twice.
  void pdfChartFiguresKeepTheirNotes() {
    app::ReportContent content;
    content.title = QStringLiteral("KernelLab report: notes");
    const QString shared = QStringLiteral("CPU backend: times of the CPU executor running the kernels' index functions "
                                          "on CPU threads, not GPU times; the ranking can reverse. ")
                               .repeated(2);
    for (int i = 0; i < 4; ++i) {
      app::ReportChart chart;
      chart.section = i < 3 ? QStringLiteral("Timing: Matrix transpose") : QStringLiteral("Occupancy");
      chart.spec = wideLegendChart(6);
      chart.spec.id = QStringLiteral("chart%1").arg(i);
      chart.spec.caption = QStringLiteral("Runs #1 to #5 · CPU (AMD EPYC) · 2026-12-02 05:44 UTC");
      chart.spec.notes.clear();
      for (int n = 0; n < 6; ++n) chart.spec.notes << QStringLiteral("Shared note %1: %2").arg(n).arg(shared);
      chart.spec.notes << QStringLiteral("Own note of chart %1.").arg(i);
      content.charts << chart;
    }
    QPrinter printer(QPrinter::HighResolution);
    app::setUpReportPrinter(printer, QDir(dir_).filePath(QStringLiteral("notes.pdf")), content.title);
    const std::unique_ptr<QTextDocument> doc = app::reportDocument(content, &printer);
    QAbstractTextDocumentLayout* layout = doc->documentLayout();
    layout->documentSize();
    const double pageHeight = doc->pageSize().height();
    auto pageOf = [pageHeight](double y) { return static_cast<int>(y / pageHeight); };
    int figures = 0;
    QSet<int> pages;
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
      bool image = false;
      for (auto it = b.begin(); !it.atEnd(); ++it) image = image || it.fragment().charFormat().isImageFormat();
      if (!image) continue;
      ++figures;
      const int page = pageOf(layout->blockBoundingRect(b).top());
      QVERIFY2(!pages.contains(page), "two figures on one page");
      pages.insert(page);
      // The caption, then the notes: one paragraph, its notes separated by line breaks.
      const QTextBlock caption = b.next();
      QVERIFY(caption.isValid() && caption.text().startsWith(QStringLiteral("Figure")));
      const QTextBlock notes = caption.next();
      QVERIFY(notes.isValid() && notes.text().contains(QStringLiteral("note")));
      const QTextBlock last = notes;
      const double bottom = layout->blockBoundingRect(last).bottom() - 1;
      QVERIFY2(pageOf(bottom) == page, qPrintable(QStringLiteral("figure %1 is on page %2, its notes end on page %3")
                                                      .arg(figures).arg(page + 1).arg(pageOf(bottom) + 1)));
    }
    QCOMPARE(figures, 4);
    const QString text = doc->toPlainText();
    for (int n = 0; n < 6; ++n) QCOMPARE(text.count(QStringLiteral("Shared note %1:").arg(n)), 1);
    for (int i = 0; i < 4; ++i) QCOMPARE(text.count(QStringLiteral("Own note of chart %1.").arg(i)), 1);
    QCOMPARE(text.count(QStringLiteral("The other notes of this chart are under Figure 1.")), 3);
  }

  void unwritablePathFailsWithAReason() {
    QString error;
    QVERIFY(!exportChart(sampleChart(), false, QStringLiteral("/nonexistent-dir/x.csv"),
                         ExportFormat::Csv, QSize(800, 600), &error));
    QVERIFY(error.contains(QStringLiteral("/nonexistent-dir/x.csv")));
  }

  void windowExportsAndReports() {
    app::MainWindow w;
    w.resize(1400, 900);
    w.show();
    w.panel()->setRequest(kltest::smallTranspose());
    QSignalSpy settled(&w, &app::MainWindow::runSettled);
    QVERIFY(w.startRun());
    QVERIFY(settled.wait(120000));
    QVERIFY(settled.first().at(0).toBool());

    const QString charts = QDir(dir_).filePath(QStringLiteral("window-charts"));
    QStringList written;
    QString error;
    QVERIFY2(w.exportCharts(charts, QSize(1000, 600), &written, &error), qPrintable(error));
    for (const QString& id : {QStringLiteral("time"), QStringLiteral("bandwidth"), QStringLiteral("fraction")}) {
      const QString base = QDir(charts).filePath(QStringLiteral("timing-") + id);
      checkPng(base + QStringLiteral(".png"), QSize(1000, 600));
      checkPdf(base + QStringLiteral(".pdf"));
      checkSvg(base + QStringLiteral(".svg"));
      checkCsv(base + QStringLiteral(".csv"), 4, 10);
      checkJson(base + QStringLiteral(".json"));
    }
    checkCsv(QDir(charts).filePath(QStringLiteral("results-table.csv")), 5, 12);  // + Stopped

    const QString html = QDir(dir_).filePath(QStringLiteral("report.html"));
    QVERIFY2(w.exportReport(html, &error), qPrintable(error));
    const QString text = QString::fromUtf8(readAll(html));
    QVERIFY(text.startsWith(QStringLiteral("<!DOCTYPE html>")));
    for (const char* section : {"Devices</h2>", "Configuration</h2>", "Timing: Matrix transpose</h2>", "Results</h2>"})
      QVERIFY2(text.contains(QLatin1String(section)), section);
    // Sections only for what the runs hold: a transpose report has no Clusters or KNN section,
    // and its footnote is the transpose's own.
    QVERIFY(!text.contains(QStringLiteral(">Clusters</h2>")));
    QVERIFY(!text.contains(QStringLiteral(">KNN</h2>")));
    QVERIFY(text.contains(QStringLiteral("each input element read once and each output element written once")));
    QVERIFY(!text.contains(QStringLiteral("Campaign's three kernels")));
    // Each figure is captioned with its run, device and date.
    const QRegularExpression caption(QStringLiteral("<p class=\"caption\">Figure (\\d+)\\. ([^<]*)</p>"));
    int captions = 0;
    for (auto it = caption.globalMatch(text); it.hasNext();) {
      const QString c = it.next().captured(2);
      if (!c.contains(QStringLiteral("Run #"))) continue;
      QVERIFY2(c.contains(QStringLiteral("CPU")) && c.contains(QRegularExpression(QStringLiteral("20\\d\\d-\\d\\d-\\d\\d"))), qPrintable(c));
      ++captions;
    }
    QVERIFY2(captions >= 3, qPrintable(QStringLiteral("%1 captioned run figures").arg(captions)));
    QVERIFY(text.contains(QStringLiteral("transpose 256x256")));
    // Every chart is embedded as a PNG that decodes.
    const QRegularExpression img(QStringLiteral("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\""));
    int images = 0;
    for (auto it = img.globalMatch(text); it.hasNext();) {
      const QImage decoded = QImage::fromData(QByteArray::fromBase64(it.next().captured(1).toLatin1()), "PNG");
      QVERIFY(!decoded.isNull());
      ++images;
    }
    QVERIFY2(images >= 3, qPrintable(QStringLiteral("%1 embedded images").arg(images)));

    const QString pdf = QDir(dir_).filePath(QStringLiteral("report.pdf"));
    QVERIFY2(w.exportReport(pdf, &error), qPrintable(error));
    checkPdf(pdf);
    QVERIFY(QFileInfo(pdf).size() > 20000);  // the charts are in it, not just text

    QVERIFY(!w.exportReport(QDir(dir_).filePath(QStringLiteral("report.txt")), &error));
    QVERIFY(error.contains(QStringLiteral(".html or .pdf")));
  }
};

QTEST_MAIN(TstExports)
#include "tst_exports.moc"
