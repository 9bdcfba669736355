// SPDX-License-Identifier: MIT
// Every export writes a file that parses: PNG (an image with more than background), PDF (a
// header and pages), SVG (XML with an <svg> root), CSV (rows and columns), JSON; and reports as
// HTML and PDF, from the window after a CPU run.
#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QXmlStreamReader>
#include <QtTest>

#include "chart_export.h"
#include "experiment_panel.h"
#include "main_window.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::widgets;

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

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// Share of pixels that differ from the corner (background) colour.
double inkShare(const QImage& image) {
  const QRgb bg = image.pixel(0, 0);
  qint64 ink = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) ink += image.pixel(x, y) != bg;
  return double(ink) / (double(image.width()) * image.height());
}

void checkPng(const QString& path, QSize size) {
  QImage image(path);
  QVERIFY2(!image.isNull(), qPrintable(path));
  if (size.isValid()) QCOMPARE(image.size(), size);
  const double ink = inkShare(image);
  QVERIFY2(ink > 0.01, qPrintable(QStringLiteral("%1: only %2 of the pixels are not background").arg(path).arg(ink)));
}

void checkPdf(const QString& path) {
  const QByteArray pdf = readAll(path);
  QVERIFY2(pdf.startsWith("%PDF-"), qPrintable(path));
  QVERIFY(pdf.contains("%%EOF"));
  const qsizetype pages = pdf.count("/Type /Page\n") + pdf.count("/Type /Page ") + pdf.count("/Type /Page>") + pdf.count("/Type/Page");
  QVERIFY2(pages >= 1, qPrintable(QStringLiteral("%1 has no page objects").arg(path)));
}

void checkSvg(const QString& path) {
  QXmlStreamReader xml(readAll(path));
  bool sawSvg = false;
  int elements = 0;
  while (!xml.atEnd()) {
    if (xml.readNext() == QXmlStreamReader::StartElement) {
      ++elements;
      if (xml.name() == QLatin1String("svg")) sawSvg = true;
    }
  }
  QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
  QVERIFY(sawSvg);
  QVERIFY2(elements > 20, "an SVG with almost nothing in it");
}

void checkCsv(const QString& path, int minRows, int columns) {
  const QStringList lines = QString::fromUtf8(readAll(path)).split('\n', Qt::SkipEmptyParts);
  QVERIFY2(lines.size() >= minRows + 1, qPrintable(path));
  // Quoted fields may hold commas: count columns outside quotes.
  for (const QString& line : lines) {
    int cols = 1;
    bool quoted = false;
    for (QChar c : line) {
      if (c == '"') quoted = !quoted;
      else if (c == ',' && !quoted) ++cols;
    }
    QCOMPARE(cols, columns);
  }
}

void checkJson(const QString& path) {
  QJsonParseError err;
  const QJsonDocument doc = QJsonDocument::fromJson(readAll(path), &err);
  QVERIFY2(!doc.isNull(), qPrintable(err.errorString()));
  QVERIFY(doc.object().contains(QStringLiteral("series")));
  QVERIFY(!doc.object()[QStringLiteral("series")].toArray().isEmpty());
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

  void unwritablePathFailsWithAReason() {
    QString error;
    QVERIFY(!exportChart(sampleChart(), false, QStringLiteral("/nonexistent-dir/x.csv"), ExportFormat::Csv, QSize(800, 600), &error));
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
    checkCsv(QDir(charts).filePath(QStringLiteral("results-table.csv")), 5, 11);

    const QString html = QDir(dir_).filePath(QStringLiteral("report.html"));
    QVERIFY2(w.exportReport(html, &error), qPrintable(error));
    const QString text = QString::fromUtf8(readAll(html));
    QVERIFY(text.startsWith(QStringLiteral("<!DOCTYPE html>")));
    for (const char* section : {"<h2>Devices</h2>", "<h2>Configuration</h2>", "<h2>Charts</h2>", "<h2>Results</h2>"})
      QVERIFY2(text.contains(QLatin1String(section)), section);
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
