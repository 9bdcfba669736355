// SPDX-License-Identifier: MIT
// Command-line automation of the window.
#include "automation.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QTimer>
#include <cstdio>

#include "access_page.h"
#include "access_view.h"
#include "clusters_page.h"
#include "experiment_panel.h"
#include "gantt_view.h"
#include "kernellab/family.h"
#include "knn_page.h"
#include "main_window.h"
#include "point_cloud_view.h"
#include "schedule_page.h"
#include "timing_page.h"
#include "timing_view.h"

namespace kernellab::app {
namespace {

std::optional<QSize> parseSize(const QString& text) {
  const QStringList parts = text.toLower().split(QLatin1Char('x'));
  if (parts.size() != 2) return std::nullopt;
  bool okW = false, okH = false;
  const int w = parts[0].toInt(&okW), h = parts[1].toInt(&okH);
  if (!okW || !okH || w < 100 || h < 100 || w > 10000 || h > 10000) return std::nullopt;
  return QSize(w, h);
}

// "tpb, tile, size, n, k, d, ...": every family's sweep axes, in the registry's order.
QString sweepAxesText() {
  QStringList axes;
  for (const kernellab::FamilyDescriptor* f : kernellab::families())
    for (const kernellab::SweepAxisChoice& a : f->sweepAxes)
      if (!axes.contains(QString::fromStdString(a.name))) axes << QString::fromStdString(a.name);
  return axes.join(QStringLiteral(", "));
}

}  // namespace

std::optional<StartupOptions> parseStartupOptions(QCommandLineParser& p, const QStringList& arguments,
                                                  QString* error) {
  p.setApplicationDescription(QObject::tr(
      "KernelLab: run CUDA kernels with each optimization switchable and see why one variant beats "
      "another.\nWithout options the window opens on the last settings (first start: a generated "
      "default data set). The options below drive it from a script; they run in the order listed."));
  p.addHelpOption();
  p.addVersionOption();
  const QCommandLineOption open(QStringLiteral("open"), QObject::tr("Open a results file (.json, as kernellab-cli writes) or points (.csv, .npy). Repeatable."), QStringLiteral("file"));
  const QCommandLineOption config(QStringLiteral("config"), QObject::tr("Load the experiment settings from a request JSON."), QStringLiteral("file"));
  const QCommandLineOption sweep(QStringLiteral("sweep"), QObject::tr("Sweep one axis, e.g. tpb=64,128,256,512,1024 (axes: %1).").arg(sweepAxesText()), QStringLiteral("axis=values"));
  const QCommandLineOption run(QStringLiteral("run"), QObject::tr("Run the experiment and wait for it."));
  const QCommandLineOption view(QStringLiteral("view"), QObject::tr("Show this view: clusters, timing, results, schedule (gantt: its recorded Gantt chart), access, occupancy, knn."), QStringLiteral("name"));
  const QCommandLineOption chart(QStringLiteral("chart"), QObject::tr("Show this Timing chart: time, bandwidth, fraction, kernels, score, iteration-time, coordinates-read, sweep."), QStringLiteral("id"));
  const QCommandLineOption logScale(QStringLiteral("log-scale"), QObject::tr("Logarithmic value axis on the Timing charts."));
  const QCommandLineOption noPublished(QStringLiteral("no-published"), QObject::tr("Hide published figures."));
  const QCommandLineOption ganttSms(QStringLiteral("gantt-sms"), QObject::tr("Gantt chart of the Schedule view: lanes of SMs 0..N-1 only (0: every SM)."), QStringLiteral("N"));
  const QCommandLineOption exportCharts(QStringLiteral("export-charts"), QObject::tr("Write every chart (PNG, PDF, SVG, CSV, JSON), the pictures of the views and the results table into this folder."), QStringLiteral("dir"));
  const QCommandLineOption chartSize(QStringLiteral("chart-size"), QObject::tr("Size of exported charts, WxH pixels (default 1200x700)."), QStringLiteral("WxH"));
  const QCommandLineOption exportReport(QStringLiteral("export-report"), QObject::tr("Write a report (.html or .pdf). Repeatable."), QStringLiteral("file"));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"), QObject::tr("Save a picture of the window (.png)."), QStringLiteral("file"));
  const QCommandLineOption windowSize(QStringLiteral("window-size"), QObject::tr("Window size, WxH pixels."), QStringLiteral("WxH"));
  const QCommandLineOption historyDir(QStringLiteral("history-dir"), QObject::tr("Keep the run history in this folder instead of the application data folder."), QStringLiteral("dir"));
  const QCommandLineOption target(
      QStringLiteral("target"),
      QObject::tr("Run on this target (a name from Run > Targets...: \"This machine\", an SSH "
                  "host, a scheduler's command)."),
      QStringLiteral("name"));
  const QCommandLineOption quit(QStringLiteral("quit"), QObject::tr("Quit when the steps are done (exit code 0 ok, 1 run or export failed, 2 bad input)."));
  p.addOptions({open, config, sweep, run, view, chart, logScale, noPublished, ganttSms,
                exportCharts, chartSize, exportReport, screenshot, windowSize, historyDir, target,
                quit});
  if (!p.parse(arguments)) {
    if (error) *error = p.errorText();
    return std::nullopt;
  }
  // An option of one value given twice is refused: taking its last value would drop the first
  // without a word.
  for (const QCommandLineOption& single : {config, sweep, view, chart, ganttSms, exportCharts,
                                           chartSize, screenshot, windowSize, historyDir, target}) {
    const QStringList given = p.values(single);
    if (given.size() > 1) {
      if (error)
        *error = QObject::tr("--%1 is given %2 times (%3); it takes one value")
                     .arg(single.names().constFirst())
                     .arg(given.size())
                     .arg(given.join(QStringLiteral(", ")));
      return std::nullopt;
    }
  }
  StartupOptions o;
  o.open = p.values(open);
  o.open += p.positionalArguments();
  o.config = p.value(config);
  o.sweep = p.value(sweep);
  if (!o.sweep.isEmpty() && (!o.sweep.contains(QLatin1Char('=')) || o.sweep.section(QLatin1Char('='), 1).isEmpty())) {
    if (error) *error = QObject::tr("--sweep %1: expected AXIS=V1,V2,... such as tpb=64,128,256").arg(o.sweep);
    return std::nullopt;
  }
  o.run = p.isSet(run);
  o.view = p.value(view);
  o.chart = p.value(chart);
  o.logScale = p.isSet(logScale);
  o.hidePublished = p.isSet(noPublished);
  if (p.isSet(ganttSms)) {
    bool ok = false;
    o.ganttSms = p.value(ganttSms).toInt(&ok);
    if (!ok || o.ganttSms < 0 || o.ganttSms > 100000) {
      if (error) *error = QObject::tr("--gantt-sms %1: expected a number of SMs, 0 for all").arg(p.value(ganttSms));
      return std::nullopt;
    }
  }
  o.exportCharts = p.value(exportCharts);
  o.exportReport = p.values(exportReport);
  o.screenshot = p.value(screenshot);
  o.historyDir = p.value(historyDir);
  o.target = p.value(target);
  o.quit = p.isSet(quit);
  if (p.isSet(chartSize)) {
    const auto s = parseSize(p.value(chartSize));
    if (!s) {
      if (error) *error = QObject::tr("--chart-size %1: expected WxH with 100..10000 pixels each").arg(p.value(chartSize));
      return std::nullopt;
    }
    o.chartSize = *s;
  }
  if (p.isSet(windowSize)) {
    const auto s = parseSize(p.value(windowSize));
    if (!s) {
      if (error) *error = QObject::tr("--window-size %1: expected WxH with 100..10000 pixels each").arg(p.value(windowSize));
      return std::nullopt;
    }
    o.windowSize = *s;
  }
  return o;
}

Automation::Automation(MainWindow* window, StartupOptions options, QObject* parent)
    : QObject(parent), window_(window), o_(std::move(options)) {}

void Automation::fail(int code, const QString& message) {
  std::fprintf(stderr, "kernellab: error: %s\n", qPrintable(message));
  exitCode_ = std::max(exitCode_, code);
}

void Automation::start() {
  QTimer::singleShot(0, this, [this] {
    QString why;
    if (!o_.target.isEmpty() && !window_->selectTarget(o_.target))
      fail(2, QStringLiteral("--target %1: no such target (Run > Targets... lists them)")
                  .arg(o_.target));
    if (!o_.config.isEmpty() && !window_->loadRequestFile(o_.config, &why))
      fail(2, QStringLiteral("--config %1: %2").arg(o_.config, why));
    for (const QString& path : o_.open)
      if (!window_->openPath(path, &why)) fail(2, QStringLiteral("--open %1: %2").arg(path, why));
    if (!o_.sweep.isEmpty()) {
      const QString axis = o_.sweep.section(QLatin1Char('='), 0, 0).trimmed();
      window_->panel()->setSweep(axis, o_.sweep.section(QLatin1Char('='), 1));
      if (window_->panel()->sweepAxis() != axis)
        fail(2, QStringLiteral("--sweep %1: '%2' is not an axis of this kernel family").arg(o_.sweep, axis));
    }
    if (!o_.run || exitCode_ >= 2) {  // bad input: run nothing else
      afterRun();
      return;
    }
    connect(window_, &MainWindow::runSettled, this, [this](bool ok, const QString& message) {
      if (!ok) fail(1, QStringLiteral("--run: %1").arg(message));
      afterRun();
    }, Qt::SingleShotConnection);
    window_->startRun();
  });
}

void Automation::afterRun() {
  if (auto* timing = dynamic_cast<TimingPage*>(window_->page(QStringLiteral("timing")))) {
    if (o_.logScale) timing->view()->setLogScale(true);
    if (o_.hidePublished) timing->view()->setShowPublished(false);
  }
  if (o_.ganttSms >= 0)
    if (auto* schedule = dynamic_cast<SchedulePage*>(window_->page(QStringLiteral("schedule"))))
      schedule->ganttView()->setSmsShown(o_.ganttSms);
  if (!o_.chart.isEmpty() && !window_->showChart(o_.chart)) fail(2, QStringLiteral("--chart %1: no such chart here").arg(o_.chart));
  if (!o_.view.isEmpty() && !window_->showView(o_.view)) fail(2, QStringLiteral("--view %1: no such view (clusters, timing, results, schedule, gantt, access, occupancy, knn)").arg(o_.view));
  settle();
}

void Automation::settle() {
  // Let the Clusters view make its points (the KNN view its image, the Access view its model)
  // and OpenGL draw them before anything is captured.
  if (auto* clusters = dynamic_cast<ClustersPage*>(window_->page(QStringLiteral("clusters"))))
    clusters->loader()->waitForIdle();
  if (auto* knn = dynamic_cast<KnnPage*>(window_->page(QStringLiteral("knn")))) knn->waitForImage();
  if (auto* access = dynamic_cast<AccessPage*>(window_->page(QStringLiteral("access")))) {
    access->view()->waitForReport();
    access->waitForCounters();
  }
  QApplication::processEvents();
  QTimer::singleShot(400, this, &Automation::finish);
}

void Automation::finish() {
  QString why;
  if (!o_.exportCharts.isEmpty()) {
    QStringList written;
    if (!window_->exportCharts(o_.exportCharts, o_.chartSize, &written, &why))
      fail(1, QStringLiteral("--export-charts %1: %2").arg(o_.exportCharts, why));
    else
      std::fprintf(stdout, "kernellab: wrote %d files into %s\n", static_cast<int>(written.size()), qPrintable(o_.exportCharts));
  }
  for (const QString& report : o_.exportReport) {
    if (!window_->exportReport(report, &why))
      fail(1, QStringLiteral("--export-report %1: %2").arg(report, why));
    else
      std::fprintf(stdout, "kernellab: wrote %s\n", qPrintable(report));
  }
  if (!o_.screenshot.isEmpty()) {
    QApplication::processEvents();
    if (!widgets::PointCloudView::grabWithClouds(window_).save(o_.screenshot)) fail(1, QStringLiteral("--screenshot %1: cannot write the picture").arg(o_.screenshot));
    else std::fprintf(stdout, "kernellab: wrote %s\n", qPrintable(o_.screenshot));
  }
  std::fflush(stdout);
  emit done(exitCode_);
  if (o_.quit) {
    window_->close();
    QApplication::exit(exitCode_);
  }
}

}  // namespace kernellab::app
