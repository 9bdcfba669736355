// SPDX-License-Identifier: MIT
// A CPU-backend run through the window: the charts get one bar per variant with the run's own
// numbers, the event loop keeps turning while it runs, and a k-means request in a build without
// clustering kernels fails cleanly without changing anything.
#include <QCheckBox>
#include <QSignalSpy>
#include <QTabWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "chart_view.h"
#include "experiment_panel.h"
#include "history_dock.h"
#include "history_store.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "main_window.h"
#include "message_banner.h"
#include "run_coordinator.h"
#include "run_text.h"
#include "timing_page.h"
#include "timing_view.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

namespace {

// The bars of one series in the chart on screen, by legend name.
QCPBars* barsNamed(QCustomPlot* plot, const QString& name) {
  for (int i = 0; i < plot->plottableCount(); ++i)
    if (auto* b = qobject_cast<QCPBars*>(plot->plottable(i)); b && b->name() == name) return b;
  return nullptr;
}

bool runAndWait(MainWindow& w, int timeoutMs = 120000) {
  QSignalSpy settled(&w, &MainWindow::runSettled);
  if (!w.startRun()) return false;
  if (!settled.wait(timeoutMs)) return false;
  return settled.first().at(0).toBool();
}

}  // namespace

class TstWindowRun : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() { kltest::isolateAppDirs(QStringLiteral("tst_window_run")); }

  void cpuRunFillsTheCharts() {
    MainWindow w;
    w.panel()->setRequest(kltest::smallTranspose());
    QVERIFY(runAndWait(w));
    const RunRef* ref = w.selection().primaryRun();
    QVERIFY(ref);
    const RunResult& run = ref->run();
    QCOMPARE(run.backend, std::string("cpu"));
    QCOMPARE(run.variants.size(), size_t(5));

    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    QVERIFY(timing);
    QVERIFY(timing->showChart(QStringLiteral("time")));
    QCustomPlot* plot = timing->view()->chartView()->plot();
    int bars = 0;
    for (const VariantResult& v : run.variants) {
      QCPBars* b = barsNamed(plot, variantTitle(Family::Transpose, v.variant));
      QVERIFY2(b, v.variant.c_str());
      QCOMPARE(b->data()->size(), 1);
      QCOMPARE(b->data()->at(0)->value, v.total.medianMs);
      QVERIFY(std::fabs(b->data()->at(0)->key) < 0.5);  // the one category, TPB 256
      ++bars;
    }
    QCOMPARE(bars, 5);
    // Whiskers: min and max of the same variant.
    int whiskers = 0;
    for (int i = 0; i < plot->plottableCount(); ++i)
      if (auto* e = qobject_cast<QCPErrorBars*>(plot->plottable(i))) {
        auto* b = qobject_cast<QCPBars*>(e->dataPlottable());
        QVERIFY(b);
        for (const VariantResult& v : run.variants)
          if (b->name() == variantTitle(Family::Transpose, v.variant)) {
            QCOMPARE(e->data()->at(0).errorMinus + v.total.minMs, v.total.medianMs);
            QVERIFY(std::fabs(e->data()->at(0).errorPlus - (v.total.maxMs - v.total.medianMs)) < 1e-12);
            ++whiskers;
          }
      }
    QCOMPARE(whiskers, 5);
    QVERIFY(plot->yAxis->label().contains(QStringLiteral("ms")));

    // Bandwidth: the measured GB/s, and the ceiling measured in the same run.
    QVERIFY(timing->showChart(QStringLiteral("bandwidth")));
    plot = timing->view()->chartView()->plot();
    QVERIFY(plot->yAxis->label().contains(QStringLiteral("GB/s")));
    for (const VariantResult& v : run.variants) {
      QCPBars* b = barsNamed(plot, variantTitle(Family::Transpose, v.variant));
      QVERIFY(b);
      QCOMPARE(b->data()->at(0)->value, v.gbps);
    }
    QVERIFY(barsNamed(plot, QStringLiteral("memcpy (host) (ceiling)")));
  }

  void theEventLoopTurnsDuringARun() {
    MainWindow w;
    RunRequest r = kltest::smallTranspose(2048);
    r.repetitions = 8;
    w.panel()->setRequest(r);
    int ticks = 0;
    bool sawRunning = false;
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, [&] {
      if (w.coordinator()->running()) {
        ++ticks;
        sawRunning = true;
      }
    });
    timer.start(10);
    QVERIFY(runAndWait(w));
    QVERIFY(sawRunning);
    QVERIFY2(ticks >= 3, qPrintable(QStringLiteral("GUI timer ticked %1 times during the run").arg(ticks)));
  }

  void liveToggleRerunsOnAChange() {
    MainWindow w;
    w.panel()->setRequest(kltest::smallTranspose());
    w.panel()->setLive(true);
    QSignalSpy settled(&w, &MainWindow::runSettled);
    w.panel()->variantSwitch(QStringLiteral("naive"))->setChecked(false);  // no Run pressed
    QVERIFY(settled.wait(60000));
    QVERIFY(settled.first().at(0).toBool());
    const RunResult& run = w.selection().primaryRun()->run();
    QCOMPARE(run.variants.size(), size_t(4));
    for (const VariantResult& v : run.variants) QVERIFY(v.variant != "naive");
    // With live off, a change waits for Run.
    w.panel()->setLive(false);
    settled.clear();
    w.panel()->variantSwitch(QStringLiteral("naive"))->setChecked(true);
    QVERIFY(!settled.wait(1000));
    QVERIFY(!w.coordinator()->running());
  }

  void unavailableFamilyFailsCleanly() {
    MainWindow w;
    w.panel()->setRequest(kltest::smallTranspose());
    QVERIFY(runAndWait(w));
    const int entries = static_cast<int>(w.history()->entries().size());
    const QStringList checked = w.historyDock()->checked();
    RunRequest r;
    r.family = Family::Knn;  // no KNN kernels in this build yet
    r.backend = BackendChoice::Cpu;
    w.panel()->setRequest(r);
    const std::string before = nlohmann::json(w.panel()->request()).dump();
    QSignalSpy settled(&w, &MainWindow::runSettled);
    if (!describeVariants(Family::Knn).empty()) QSKIP("this build has KNN kernels");
    QVERIFY(w.startRun());
    QVERIFY(settled.wait(30000));
    QCOMPARE(settled.first().at(0).toBool(), false);
    QVERIFY(w.banner()->isVisibleTo(&w));
    QVERIFY(w.banner()->text().contains(QStringLiteral("not available in this build")));
    QCOMPARE(static_cast<int>(w.history()->entries().size()), entries);
    QCOMPARE(w.historyDock()->checked(), checked);
    QCOMPARE(nlohmann::json(w.panel()->request()).dump(), before);
  }
};

QTEST_MAIN(TstWindowRun)
#include "tst_window_run.moc"
