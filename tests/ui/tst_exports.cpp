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
#include "export_checks.h"
#include "experiment_panel.h"
#include "main_window.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::widgets;
using namespace kltest;

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
    checkCsv(QDir(charts).filePath(QStringLiteral("results-table.csv")), 5, 12);  // + Stopped

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
