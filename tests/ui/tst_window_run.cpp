// SPDX-License-Identifier: MIT
// A CPU-backend run through the window: the charts get one bar per variant with the run's own
// numbers, the event loop keeps turning while it runs, a k-means run shows its iterations live
// (labels and score) and ends in the Clusters and Timing views, and a family this build lacks
// fails cleanly without changing anything.
#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QStyleOptionViewItem>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtTest>
#include <algorithm>
#include <qcustomplot.h>

#include "chart_view.h"
#include "clusters_page.h"
#include "clusters_view.h"
#include "experiment_panel.h"
#include "history_dock.h"
#include "history_store.h"
#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"
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
      QCPBars* b = barsNamed(plot, variantTitle(transpose::kFamily, v.variant));
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
          if (b->name() == variantTitle(transpose::kFamily, v.variant)) {
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
      QCPBars* b = barsNamed(plot, variantTitle(transpose::kFamily, v.variant));
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

  void kmeansRunsLiveOnTheCpu() {
    MainWindow w;
    RunRequest r;
    r.family = clustering::kKMeans;
    r.variants = {"shared-coalesced", "global-interleaved"};
    r.section<ClusteringProblem>().n = 200000;
    r.section<ClusteringProblem>().k = 6;
    r.section<ClusteringProblem>().d = 3;
    r.section<ClusteringProblem>().shape = DatasetShape::Blobs;
    r.section<ClusteringProblem>().noiseFraction = 0.02;
    r.section<ClusteringProblem>().init = InitMethod::KMeansPlusPlus;
    r.repetitions = 1;
    r.warmup = 0;
    r.backend = BackendChoice::Cpu;
    w.panel()->setRequest(r);
    w.usePreset(r, false);  // as a user's edit: the pages hear of the new request (backend kept: CPU)
    auto* clusters = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    QVERIFY(clusters && timing);
    // The Clusters page makes its points on a worker thread; live labels can only be drawn once
    // they exist. Wait for the preview, as a user would see it, so a fast run cannot outpace it.
    QTRY_VERIFY2_WITH_TIMEOUT(clusters->view()->captionText().contains(QStringLiteral("Preview")),
                              qPrintable(clusters->view()->captionText()), 60000);
    // The pages were connected first, so by the time this runs they have taken the iteration.
    int iterations = 0, withLabels = 0, shownLive = 0, scorePoints = 0;
    QObject::connect(w.coordinator(), &RunCoordinator::iteration, &w, [&](const LiveIteration& it) {
      ++iterations;
      for (const auto& c : timing->view()->charts())
        if (c.id == QStringLiteral("score"))
          for (const auto& series : c.series) scorePoints = std::max(scorePoints, series.size());
      if (!it.current || it.current->labels.empty()) return;
      ++withLabels;
      if (clusters->view()->captionText().contains(QStringLiteral("(live)")) &&
          clusters->view()->labels() == it.current->labels)
        ++shownLive;
    });
    QVERIFY(runAndWait(w, 300000));
    const RunResult& run = w.selection().primaryRun()->run();
    QCOMPARE(run.variants.size(), size_t(2));
    QVERIFY2(iterations >= 4, qPrintable(QStringLiteral("%1 live iterations").arg(iterations)));
    QVERIFY2(withLabels >= 1 && shownLive >= 1,
             qPrintable(QStringLiteral("%1 iterations carried labels, %2 shown live").arg(withLabels).arg(shownLive)));
    QVERIFY2(scorePoints >= 2, qPrintable(QStringLiteral("the live score chart had %1 points").arg(scorePoints)));

    // Finished: the Clusters view shows the first variant's labels, for every point.
    const VariantResult& first = run.variants.front();
    QVERIFY(first.detail<ClusteringOutput>());
    QTRY_VERIFY_WITH_TIMEOUT(
        clusters->view()->labels().size() == first.detail<ClusteringOutput>()->labels.size(),
        30000);
    QVERIFY(clusters->view()->labels() == first.detail<ClusteringOutput>()->labels);
    QVERIFY(!clusters->view()->captionText().contains(QStringLiteral("(live)")));
    QVERIFY(clusters->view()->captionText().contains(
        QString::number(first.detail<ClusteringOutput>()->iterations)));

    // Timing: per-kernel stacked bars with each kernel's time per repetition, counted once.
    QVERIFY(timing->showChart(QStringLiteral("kernels")));
    const widgets::ChartSpec* kernels = nullptr;
    for (const auto& c : timing->view()->charts())
      if (c.id == QStringLiteral("kernels")) kernels = &c;
    QVERIFY(kernels);
    QCOMPARE(kernels->kind, widgets::ChartKind::StackedBars);
    QCOMPARE(kernels->categories.size(), 2);
    for (const auto& series : kernels->series) QVERIFY(series.name != QStringLiteral("kernels"));
    for (size_t v = 0; v < run.variants.size(); ++v)
      for (const KernelResult& k : run.variants[v].kernels) {
        const widgets::ChartSeries* s = nullptr;
        for (const auto& series : kernels->series)
          if (series.name == QString::fromStdString(k.name)) s = &series;
        QVERIFY2(s, k.name.c_str());
        const int at = static_cast<int>(s->x.indexOf(double(v)));
        QVERIFY(at >= 0);
        QCOMPARE(s->y[at], k.totalMs);
      }
    QCustomPlot* plot = timing->view()->chartView()->plot();
    int stacked = 0;
    for (int i = 0; i < plot->plottableCount(); ++i)
      if (auto* b = qobject_cast<QCPBars*>(plot->plottable(i)); b && (b->barBelow() || b->barAbove())) ++stacked;
    QVERIFY2(stacked >= 2, "the bars are not stacked");
  }

  // Issue 14, item 1: the Clusters view keeps its plot across family switches. Run k-means, open
  // Timing, switch the family to transpose and run (F5), switch back to k-means and run, open
  // Clusters; then select the earlier k-means run; then, with only the transpose run selected,
  // choose k-means in the panel: its preview shows.
  void clustersKeepThePlotAcrossFamilySwitches() {
    MainWindow w;
    w.show();
    RunRequest km;
    km.family = clustering::kKMeans;
    km.variants = {"shared-coalesced"};
    km.section<ClusteringProblem>().n = 3000;
    km.section<ClusteringProblem>().k = 4;
    km.section<ClusteringProblem>().d = 3;
    km.repetitions = 1;
    km.warmup = 0;
    km.backend = BackendChoice::Cpu;
    w.usePreset(km, false);
    auto* clusters = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    QVERIFY(clusters);
    QVERIFY(runAndWait(w));
    const QString firstKmeans = w.selection().primaryRun()->entryId;
    QVERIFY(w.showView(QStringLiteral("timing")));

    auto* family = w.panel()->findChild<QComboBox*>();  // the first combo box: the kernel family
    QVERIFY(family);
    QCOMPARE(family->currentData().toString(), QString::fromLatin1((clustering::kKMeans).id()));
    family->setCurrentIndex(family->findData(QString::fromLatin1((transpose::kFamily).id())));
    QCOMPARE(w.panel()->request().family, transpose::kFamily);
    QTest::keyClick(&w, Qt::Key_F5);  // the shortcut starts the run; wait for it to settle
    QSignalSpy settled(&w, &MainWindow::runSettled);
    QVERIFY(settled.wait(120000));
    QCOMPARE(w.selection().primaryRun()->run().request.family, transpose::kFamily);
    const QString transposeRun = w.selection().primaryRun()->entryId;

    family->setCurrentIndex(family->findData(QString::fromLatin1((clustering::kKMeans).id())));
    QVERIFY(runAndWait(w));
    QCOMPARE(w.selection().primaryRun()->run().request.family, clustering::kKMeans);
    QVERIFY(w.showView(QStringLiteral("clusters")));
    clusters->loader()->waitForIdle();
    QTRY_VERIFY2_WITH_TIMEOUT(!clusters->view()->messageShown(), qPrintable(clusters->view()->messageText()), 30000);
    QCOMPARE(clusters->view()->labels().size(), size_t(3000));

    // The earlier k-means run, selected in the Runs list.
    w.selectEntries({firstKmeans}, firstKmeans);
    clusters->loader()->waitForIdle();
    QTRY_VERIFY2_WITH_TIMEOUT(!clusters->view()->messageShown(), qPrintable(clusters->view()->messageText()), 30000);
    QCOMPARE(clusters->view()->labels().size(), size_t(3000));

    // Only the transpose run selected: nothing to show, and it says why...
    w.selectEntries({transposeRun}, transposeRun);
    family->setCurrentIndex(family->findData(QString::fromLatin1((transpose::kFamily).id())));
    QTRY_VERIFY(clusters->view()->messageShown());
    // ... until k-means is chosen in the panel: the preview of its points.
    family->setCurrentIndex(family->findData(QString::fromLatin1((clustering::kKMeans).id())));
    QTRY_VERIFY2_WITH_TIMEOUT(!clusters->view()->messageShown(), qPrintable(clusters->view()->messageText()), 30000);
    QVERIFY2(clusters->view()->captionText().contains(QStringLiteral("Preview")), qPrintable(clusters->view()->captionText()));
  }

  // Issue 14, item 1, with the mouse as a user does it: a click on the row of an earlier run
  // that is not checked shows that run (it joins the comparison and fills the Clusters view, as
  // the dock's hint says); a click on a check box still only toggles that box. The click on the
  // row used to highlight it and change nothing: the Clusters view kept the newer run.
  void clickingAnEarlierRunsRowShowsIt() {
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    RunRequest km;
    km.family = clustering::kKMeans;
    km.variants = {"shared-coalesced"};
    km.section<ClusteringProblem>().n = 2000;
    km.section<ClusteringProblem>().k = 5;
    km.section<ClusteringProblem>().d = 3;
    km.repetitions = 1;
    km.warmup = 0;
    km.backend = BackendChoice::Cpu;
    w.usePreset(km, false);
    QVERIFY(runAndWait(w));
    const QString earlier = w.selection().primaryRun()->entryId;
    km.section<ClusteringProblem>().k = 3;
    w.usePreset(km, false);
    QVERIFY(runAndWait(w));
    const QString newer = w.selection().primaryRun()->entryId;
    QVERIFY(newer != earlier);
    QVERIFY(w.showView(QStringLiteral("clusters")));
    auto* clusters = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    QVERIFY(clusters);

    QTreeWidget* tree = w.historyDock()->tree();
    auto rowOf = [tree](const QString& id) -> QTreeWidgetItem* {
      for (int i = 0; i < tree->topLevelItemCount(); ++i)
        if (tree->topLevelItem(i)->data(0, Qt::UserRole).toString() == id)
          return tree->topLevelItem(i);
      return nullptr;
    };
    // Where the delegate draws a row's check box (column 0).
    auto checkBoxOf = [tree](QTreeWidgetItem* item) {
      QStyleOptionViewItem opt;
      opt.initFrom(tree->viewport());
      opt.rect = tree->visualRect(tree->model()->index(tree->indexOfTopLevelItem(item), 0));
      opt.features = QStyleOptionViewItem::HasCheckIndicator | QStyleOptionViewItem::HasDisplay;
      opt.text = item->text(0);
      return tree->style()
          ->subElementRect(QStyle::SE_ItemViewItemCheckIndicator, &opt, tree)
          .center();
    };
    QTreeWidgetItem* earlierRow = rowOf(earlier);
    QVERIFY(earlierRow);
    QCOMPARE(earlierRow->checkState(0), Qt::Unchecked);

    // A click on the earlier run's text: that run fills the single-run views.
    const QRect what =
        tree->visualRect(tree->model()->index(tree->indexOfTopLevelItem(earlierRow), 2));
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, what.center());
    QCOMPARE(earlierRow->checkState(0), Qt::Checked);
    QVERIFY(w.selection().primaryRun());
    QCOMPARE(w.selection().primaryRun()->entryId, earlier);
    clusters->loader()->waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(clusters->view()->labels().size() == size_t(2000), 30000);
    QTRY_COMPARE_WITH_TIMEOUT(
        *std::max_element(clusters->view()->labels().begin(), clusters->view()->labels().end()), 4,
        30000);

    // A click on the newer run's check box unchecks it, and nothing checks it again.
    QTreeWidgetItem* newerRow = rowOf(newer);
    QVERIFY(newerRow);
    QCOMPARE(newerRow->checkState(0), Qt::Checked);
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, checkBoxOf(newerRow));
    QCOMPARE(newerRow->checkState(0), Qt::Unchecked);
    QCOMPARE(w.historyDock()->checked(), QStringList{earlier});
    // ... and a click on it again checks it: the newer run is shown.
    QTest::mouseClick(tree->viewport(), Qt::LeftButton, {}, checkBoxOf(newerRow));
    QCOMPARE(newerRow->checkState(0), Qt::Checked);
    QCOMPARE(w.selection().primaryRun()->entryId, newer);
  }

  // Issue 14, item 7: in the window, the transpose Tile row comes back whole after
  // KNN -> k-means -> transpose (it came back with zero height).
  void tileRowComesBackWhole() {
    MainWindow w;
    w.resize(1500, 950);
    w.show();
    RunRequest knn;
    knn.family = knn::kFamily;
    w.usePreset(knn, false);
    auto* family = w.panel()->findChild<QComboBox*>();
    QComboBox* tile = nullptr;
    for (QComboBox* c : w.panel()->findChildren<QComboBox*>())
      if (c->toolTip().startsWith(QStringLiteral("Edge of the square tile"))) tile = c;
    QVERIFY(family && tile);
    QTest::qWait(50);
    for (Family f : {clustering::kKMeans, transpose::kFamily}) {
      family->setCurrentIndex(family->findData(QString::fromLatin1((f).id())));
      QTest::qWait(100);
    }
    QVERIFY(tile->isVisible());
    QTRY_VERIFY2(tile->height() >= tile->minimumSizeHint().height(),
                 qPrintable(QStringLiteral("the Tile field is %1 px high").arg(tile->height())));
  }


  // Issue 14, item 9: Cancel shows "Cancelling..." until the run has stopped, then "Cancelled".
  void cancellingIsShownUntilTheRunStops() {
    MainWindow w;
    RunRequest r = kltest::smallTranspose(2048);
    r.repetitions = 100000;
    r.measureCeilings = false;
    w.usePreset(r, false);
    QSignalSpy progress(w.coordinator(), &RunCoordinator::progress);
    QSignalSpy settled(&w, &MainWindow::runSettled);
    QVERIFY(w.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(progress.count() > 2, 60000);
    w.cancelRun();
    QVERIFY2(w.stageText().startsWith(QStringLiteral("Cancelling")), qPrintable(w.stageText()));
    QVERIFY(settled.wait(60000));
    QCOMPARE(w.stageText(), QStringLiteral("Cancelled"));
  }

  // Issue 14, item 7: a bad launch is refused in the window's words, not the CLI's.
  void launchErrorsNameThePanelsFields() {
    MainWindow w;
    RunRequest r;
    r.family = clustering::kKMeans;
    r.section<ClusteringProblem>().n = 1000;
    r.launch.threadsPerBlock = 2048;
    r.backend = BackendChoice::Cpu;
    w.usePreset(r, false);
    QSignalSpy settled(&w, &MainWindow::runSettled);
    QVERIFY(w.startRun());
    QVERIFY(settled.wait(60000));
    const QString said = settled.first().at(1).toString();
    const QString shown = w.banner()->text();
    QVERIFY2(shown.contains(QStringLiteral("Threads per block 2048")), qPrintable(shown + QStringLiteral(" / ") + said));
    QVERIFY2(!shown.contains(QStringLiteral("--tpb")), qPrintable(shown));
  }

  void unavailableFamilyFailsCleanly() {
    MainWindow w;
    w.panel()->setRequest(kltest::smallTranspose());
    QVERIFY(runAndWait(w));
    const int entries = static_cast<int>(w.history()->entries().size());
    const QStringList checked = w.historyDock()->checked();
    RunRequest r;
    r.family = knn::kFamily;  // no KNN kernels in this build yet
    r.backend = BackendChoice::Cpu;
    w.panel()->setRequest(r);
    const std::string before = nlohmann::json(w.panel()->request()).dump();
    QSignalSpy settled(&w, &MainWindow::runSettled);
    if (!describeVariants(knn::kFamily).empty()) QSKIP("this build has KNN kernels");
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
