// SPDX-License-Identifier: MIT
// The model pages inside the window (Schedule, Access, Occupancy, KNN): each fills its widget
// from a CPU-backend run with the run's own values, shows a hint with working buttons when the
// selected run does not fit it, and exports charts and pictures that parse. The H200 results
// file in docs/data opens into a Gantt chart with a lane for each of its 132 SMs.
#include <qcustomplot.h>

#include <QDir>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

#include "access_page.h"
#include "access_view.h"
#include "counters_table.h"
#include "experiment_panel.h"
#include "export_checks.h"
#include "gantt_view.h"
#include "history_store.h"
#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/occupancy.h"
#include "kernellab/schedule_model.h"
#include "kernellab/transpose.h"
#include "knn_page.h"
#include "knn_view.h"
#include "main_window.h"
#include "occupancy_page.h"
#include "occupancy_view.h"
#include "page_hint.h"
#include "run_coordinator.h"
#include "run_text.h"
#include "schedule_page.h"
#include "schedule_view.h"
#include "timing_page.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

namespace {

const QString kH200File = QStringLiteral(KERNELLAB_SOURCE_DIR "/docs/data/h200-transpose-4096-schedule.json");

QString freshDir(const QString& name) {
  const QString dir = kltest::tempPath(QStringLiteral("view-pages/") + name);
  QDir(dir).removeRecursively();
  QDir().mkpath(dir);
  return dir;
}

bool runAndWait(MainWindow& w, int timeoutMs = 180000) {
  QSignalSpy settled(&w, &MainWindow::runSettled);
  if (!w.startRun()) return false;
  if (!settled.wait(timeoutMs)) return false;
  return settled.first().at(0).toBool();
}

RunRequest smallKnn() {
  RunRequest r;
  r.family = knn::kFamily;
  r.section<KnnProblem>().rows = 64;
  r.section<KnnProblem>().cols = 48;
  r.section<KnnProblem>().components = 3;
  r.section<KnnProblem>().window = 4;
  r.section<KnnProblem>().k = 4;
  r.repetitions = 2;
  r.warmup = 1;
  r.backend = BackendChoice::Cpu;
  return r;
}

// A results file computed here (CPU backend) for the hint tests, opened like one from elsewhere.
QString writeRun(const RunRequest& r, const QString& name) {
  ResultsFile file;
  file.runs.push_back(runExperiment(r));
  const QString path = kltest::tempPath(name);
  writeResultsFile(path.toStdString(), file);
  return path;
}

template <class Page>
Page* pageOf(MainWindow& w, const char* id) {
  return dynamic_cast<Page*>(w.page(QString::fromLatin1(id)));
}

const widgets::ChartSpec* chartNamed(const QVector<widgets::ChartSpec>& charts, const QString& id) {
  for (const auto& c : charts)
    if (c.id == id) return &c;
  return nullptr;
}

QPushButton* buttonNamed(PageHint* hint, const QString& text) {
  for (QPushButton* b : hint->buttons())
    if (b->text() == text) return b;
  return nullptr;
}

}  // namespace

class TstViewPages : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    kltest::isolateAppDirs(QStringLiteral("tst_view_pages"));
    QVERIFY2(QFileInfo::exists(kH200File), qPrintable(kH200File));
  }

  void theWindowHasTheModelTabs() {
    MainWindow w(freshDir(QStringLiteral("tabs")));
    for (const char* id : {"schedule", "access", "occupancy", "knn"}) QVERIFY2(w.page(QString::fromLatin1(id)), id);
    QVERIFY(w.showView(QStringLiteral("gantt")));
    QCOMPARE(pageOf<SchedulePage>(w, "schedule")->currentPart(), QStringLiteral("gantt"));
    QVERIFY(w.showView(QStringLiteral("schedule-model")));
    QCOMPARE(pageOf<SchedulePage>(w, "schedule")->currentPart(), QStringLiteral("schedule-model"));
  }

  void scheduleModelFollowsATransposeRun() {
    MainWindow w(freshDir(QStringLiteral("schedule")));
    RunRequest r = kltest::smallTranspose(512);
    r.recordSchedule = true;  // the CPU backend records nothing: the Gantt part says why
    w.panel()->setRequest(r);
    QVERIFY(runAndWait(w));
    const RunRef* ref = w.selection().primaryRun();
    QVERIFY(ref);
    auto* page = pageOf<SchedulePage>(w, "schedule");
    QVERIFY(page);
    QVERIFY(page->modelRunLabel().contains(ref->label));
    QVERIFY(page->modelHint()->isHidden());
    QCOMPARE(page->archId(), QStringLiteral("gt200"));

    // GT200: 30 SMs, residency from the occupancy model for the padded kernel's block.
    const schedule::Model& cart = page->scheduleView()->model(schedule::Mapping::Cartesian);
    const schedule::Model& diag = page->scheduleView()->model(schedule::Mapping::Diagonal);
    const int resident = occupancy::calculate(occupancy::archById("gt200"), {256, 0, 32 * 33 * 4}).activeBlocks;
    QCOMPARE(cart.config.gridX, 16);
    QCOMPARE(cart.config.gridY, 16);
    QCOMPARE(cart.config.smCount, 30);
    QCOMPARE(cart.config.blocksPerSM, resident);
    QCOMPARE(static_cast<int>(cart.waves.size()), (256 + 30 * resident - 1) / (30 * resident));
    QCOMPARE(cart.config.partitions.mapping, schedule::PartitionMapping::Linear);  // cc 1.3
    QVERIFY(diag.meanWorstWriteShare < cart.meanWorstWriteShare);                  // camping
    const QVector<double> written = page->scheduleView()->writtenKiB(schedule::Mapping::Cartesian);
    QCOMPARE(written.size(), 8);
    for (int p = 0; p < 8; ++p) QCOMPARE(written[p], double(cart.waves[0].writeBytes[size_t(p)]) / 1024.0);

    // Charts for exports: the model's numbers.
    const auto charts = page->charts();
    const auto* share = chartNamed(charts, QStringLiteral("partition-share"));
    QVERIFY(share);
    QCOMPARE(share->series.size(), 2);
    QCOMPARE(share->series[0].y.size(), static_cast<int>(cart.waves.size()));
    QCOMPARE(share->series[0].y[0], 100.0 * cart.waves[0].worstWriteShare);
    QCOMPARE(share->series[1].y[0], 100.0 * diag.waves[0].worstWriteShare);
    QVERIFY(chartNamed(charts, QStringLiteral("wave-load")));
    QVERIFY(!chartNamed(charts, QStringLiteral("gantt-concurrency")));  // nothing recorded

    // Hopper: 132 SMs, hashed partitions (cc 2.0 and later) unless the user says otherwise.
    QVERIFY(page->setArch(QStringLiteral("hopper")));
    const schedule::Model& h = page->scheduleView()->model(schedule::Mapping::Cartesian);
    QCOMPARE(h.config.smCount, 132);
    QCOMPARE(h.config.partitions.mapping, schedule::PartitionMapping::Hashed);

    // The run asked for schedules on the CPU: no Gantt, and the hint says why.
    QCOMPARE(page->ganttView()->runCount(), 0);
    QVERIFY(!page->ganttHint()->isHidden());
    QVERIFY2(page->ganttHint()->text().contains(QStringLiteral("CPU backend")), qPrintable(page->ganttHint()->text()));
  }

  void accessPageFollowsTheRun() {
    MainWindow w(freshDir(QStringLiteral("access")));
    w.panel()->setRequest(kltest::smallTranspose(512));
    QVERIFY(runAndWait(w));
    auto* page = pageOf<AccessPage>(w, "access");
    QVERIFY(page);
    QVERIFY(page->view()->waitForReport());  // computed on a worker thread
    QCOMPARE(page->runLabel(), w.selection().primaryRun()->label);
    QVERIFY(page->hint()->isHidden());
    // The first variant the run ran that is not the plain copy: naive, with its strided stores.
    QCOMPARE(page->view()->variant(), QStringLiteral("naive"));
    const access::WarpReport& report = page->view()->report();
    QCOMPARE(report.blockDim.x, 32);
    QCOMPARE(report.blockDim.y, 8);
    int stores = 0, loads = 0;
    for (const access::Request& q : report.requests) {
      if (q.space != access::Space::Global) continue;
      if (q.kind == access::Kind::Store) {
        QCOMPARE(q.sectors, 32);  // 32 rows apart: one sector per lane
        QCOMPARE(q.idealSectors, 4);
        ++stores;
      } else {
        QCOMPARE(q.sectors, 4);  // 32 consecutive floats
        ++loads;
      }
    }
    QCOMPARE(stores, 4);  // 32 x 8 threads, 4 rows each
    QCOMPARE(loads, 4);
    QCOMPARE(page->view()->requestTable()->rowCount(), static_cast<int>(report.requests.size()));
    // It opens on the first request that wastes: the first strided store.
    const int row = page->view()->requestTable()->currentRow();
    QVERIFY(row >= 0);
    QCOMPARE(report.requests[size_t(row)].kind, access::Kind::Store);
    QCOMPARE(report.requests[size_t(row)].sectors, 32);

    const auto charts = page->charts();
    const auto* sectors = chartNamed(charts, QStringLiteral("sectors"));
    QVERIFY(sectors);
    QCOMPARE(sectors->categories.size(), 5);  // every variant of the run
    const int naive =
        static_cast<int>(sectors->categories.indexOf(variantTitle(transpose::kFamily, "naive")));
    const int copy =
        static_cast<int>(sectors->categories.indexOf(variantTitle(transpose::kFamily, "copy")));
    QVERIFY(naive >= 0 && copy >= 0);
    QCOMPARE(sectors->series[0].y[naive], double(report.warpTotals.sectors));
    QVERIFY(sectors->series[0].y[naive] > sectors->series[1].y[naive]);
    QCOMPARE(sectors->series[0].y[copy], sectors->series[1].y[copy]);
    // Shared memory: the tiled kernel's column reads conflict 32 ways, padding removes it.
    const auto* shared = chartNamed(charts, QStringLiteral("shared-memory"));
    QVERIFY(shared);
    const int tiled =
        static_cast<int>(shared->categories.indexOf(variantTitle(transpose::kFamily, "tiled")));
    const int padded =
        static_cast<int>(shared->categories.indexOf(variantTitle(transpose::kFamily, "padded")));
    QVERIFY(tiled >= 0 && padded >= 0);
    QVERIFY(shared->series[0].y[tiled] > shared->series[1].y[tiled]);
    QCOMPARE(shared->series[0].y[padded], shared->series[1].y[padded]);
  }

  void occupancyOnACpuRunAndOnTheH200File() {
    MainWindow w(freshDir(QStringLiteral("occupancy")));
    w.panel()->setRequest(kltest::smallTranspose(256));
    QVERIFY(runAndWait(w));
    auto* page = pageOf<OccupancyPage>(w, "occupancy");
    QVERIFY(page);
    // A CPU run: the calculator takes its launch, the hint says why there are no device values.
    QVERIFY(!page->showsDeviceValues());
    QVERIFY(page->view()->deviceChecks().isEmpty());
    QVERIFY(!page->hint()->isHidden());
    QVERIFY2(page->hint()->text().contains(QStringLiteral("CPU backend")), qPrintable(page->hint()->text()));
    QCOMPARE(page->view()->result().input.threadsPerBlock, 256);
    // Issue 14, item 8: the Occupancy and Schedule tabs tell one story for one run: the padded
    // kernel's 33 x 32 tile of floats, and the same resident blocks per SM on the same GPU.
    QCOMPARE(page->view()->result().input.sharedBytesPerBlock, 33 * 32 * 4);
    auto* schedule = pageOf<SchedulePage>(w, "schedule");
    QVERIFY(schedule);
    QCOMPARE(page->view()->arch(), schedule->archId());
    QCOMPARE(page->view()->result().activeBlocks, schedule->scheduleView()->model(schedule::Mapping::Cartesian).config.blocksPerSM);
    auto charts = page->charts();
    const auto* threads = chartNamed(charts, QStringLiteral("threads"));
    QVERIFY(threads);
    const int at = static_cast<int>(threads->series[0].x.indexOf(256.0));
    QVERIFY(at >= 0);
    QCOMPARE(threads->series[0].y[at], 100.0 * page->view()->result().occupancy);

    // A run recorded on a GPU: every kernel's device values next to the calculator, agreeing.
    QString error;
    QVERIFY2(w.openPath(kH200File, &error), qPrintable(error));
    QVERIFY(page->showsDeviceValues());
    QVERIFY(page->hint()->isHidden());
    QCOMPARE(page->view()->arch(), QStringLiteral("device"));
    const auto& checks = page->view()->deviceChecks();
    QCOMPARE(checks.size(), 2);
    for (const auto& c : checks) {
      QVERIFY(c.match);
      QCOMPARE(c.deviceBlocks, 8);
      QCOMPARE(c.input.registersPerThread, 28);
      QCOMPARE(c.input.sharedBytesPerBlock, 4224);
    }
    QCOMPARE(page->view()->result().activeBlocks, 8);
    charts = page->charts();
    const auto* device = chartNamed(charts, QStringLiteral("device"));
    QVERIFY(device);
    QCOMPARE(device->series.size(), 2);
    QCOMPARE(device->series[0].y, (QVector<double>{8, 8}));
    QCOMPARE(device->series[1].y, (QVector<double>{8, 8}));
  }

  void knnPageShowsAKnnRun() {
    MainWindow w(freshDir(QStringLiteral("knn")));
    w.panel()->setRequest(smallKnn());
    QVERIFY2(w.panel()->problem().isEmpty(), qPrintable(w.panel()->problem()));
    QVERIFY(runAndWait(w));
    const RunResult& run = w.selection().primaryRun()->run();
    QCOMPARE(run.variants.size(), size_t(4));
    auto* page = pageOf<KnnPage>(w, "knn");
    QVERIFY(page);
    page->waitForImage();  // made on a worker thread
    QVERIFY2(page->hint()->isHidden(), qPrintable(page->hint()->text()));
    QVERIFY(!page->view()->isHidden());
    // The image regenerated from the request, the middle pixel selected with its k neighbours.
    QCOMPARE(page->view()->selectedRow(), 32);
    QCOMPARE(page->view()->selectedCol(), 24);
    QCOMPARE(page->view()->canvas()->overlay().neighbours.size(), 4);
    QVERIFY(!page->view()->canvas()->overlay().window.isEmpty());
    const auto& bars = page->view()->charts()->bars();
    QCOMPARE(bars.size(), 4);
    for (int i = 0; i < bars.size(); ++i) {
      QCOMPARE(bars[i].id, QString::fromStdString(run.variants[size_t(i)].variant));
      QCOMPARE(bars[i].medianMs, run.variants[size_t(i)].total.medianMs);
    }
    const auto charts = page->charts();
    const auto* time = chartNamed(charts, QStringLiteral("time"));
    QVERIFY(time);
    // Four measured variants, and beside this CPU run the H200's four (cross-hatched, dated).
    QCOMPARE(time->series.size(), 8);
    for (int i = 4; i < 8; ++i) {
      QVERIFY(time->series[i].reference);
      QVERIFY(time->series[i].name.startsWith(QStringLiteral("H200, measured 2026-11-29")));
    }
    QVERIFY(time->notes.join(QLatin1Char(' ')).contains(QStringLiteral("CPU backend")));
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(time->series[i].y.front(), run.variants[size_t(i)].total.medianMs);
      QCOMPARE(time->series[i].high.front(), run.variants[size_t(i)].total.maxMs);
    }
    const auto* shared = chartNamed(charts, QStringLiteral("shared-memory"));
    QVERIFY(shared);
    for (int i = 0; i < 4; ++i)
      QCOMPARE(shared->series[i].y.front(),
               double(run.variants[size_t(i)].detail<KnnDetails>()->sharedBytesPerBlock) /
                   1024.0);  // KiB
    QVERIFY(shared->yLabel.contains(QStringLiteral("KiB")));
    QVERIFY(!chartNamed(charts, QStringLiteral("blocks")));  // the CPU knows no blocks per SM
  }

  void accessHintRunsThePanelSettings() {
    // No run yet and a k-centers panel: the model shows those settings, and the hint's one button
    // runs exactly them (not a transpose preset).
    MainWindow w(freshDir(QStringLiteral("access-hint")));
    RunRequest r;
    r.family = clustering::kKCenters;
    r.variants = {"shared-coalesced"};
    r.section<ClusteringProblem>().n = 3000;
    r.section<ClusteringProblem>().k = 5;
    r.section<ClusteringProblem>().d = 4;
    r.repetitions = 1;
    r.warmup = 0;
    r.backend = BackendChoice::Cpu;
    w.usePreset(r, false);
    auto* access = pageOf<AccessPage>(w, "access");
    QVERIFY(access->view()->waitForReport());
    QVERIFY(!access->hint()->isHidden());
    QVERIFY(access->runLabel().isEmpty());
    QCOMPARE(access->view()->report().kernel, std::string("kcentersDistanceKernel"));
    QVERIFY(!buttonNamed(access->hint(), QStringLiteral("Set up a transpose run")));
    QPushButton* runIt = buttonNamed(access->hint(), QStringLiteral("Run these settings"));
    QVERIFY(runIt);
    QSignalSpy settled(&w, &MainWindow::runSettled);
    runIt->click();
    QVERIFY(settled.wait(120000));
    QVERIFY(settled.first().at(0).toBool());
    const RunResult& run = w.selection().primaryRun()->run();
    QCOMPARE(run.request.family, clustering::kKCenters);
    QCOMPARE(run.request.section<ClusteringProblem>().n, int64_t(3000));
    QCOMPARE(access->runLabel(), w.selection().primaryRun()->label);
    QVERIFY(access->hint()->isHidden());
  }

  void hintsWhenTheRunDoesNotFit() {
    const QString knnFile = writeRun(smallKnn(), QStringLiteral("view-pages-knn.json"));
    MainWindow w(freshDir(QStringLiteral("hints")));
    RunRequest cpu = w.panel()->request();
    cpu.backend = BackendChoice::Cpu;
    w.panel()->setRequest(cpu);
    QString error;
    QVERIFY2(w.openPath(knnFile, &error), qPrintable(error));

    // A KNN run: the transpose pages say so and show the model of other settings meanwhile.
    auto* schedule = pageOf<SchedulePage>(w, "schedule");
    QVERIFY(!schedule->modelHint()->isHidden());
    QVERIFY(schedule->modelHint()->text().contains(familyTitle(knn::kFamily)));
    QVERIFY(schedule->modelRunLabel().isEmpty());
    QVERIFY(schedule->charts().isEmpty());
    // The access lens traces KNN too (its own block programs): it shows the KNN run itself.
    auto* access = pageOf<AccessPage>(w, "access");
    QVERIFY(access->hint()->isHidden());
    QVERIFY(!access->runLabel().isEmpty());
    // The schedule page's button puts a transpose request into the panel (keeping the backend).
    QPushButton* setUp = buttonNamed(schedule->modelHint(), QStringLiteral("Set up a transpose run"));
    QVERIFY(setUp);
    setUp->click();
    QCOMPARE(w.panel()->request().family, transpose::kFamily);
    QCOMPARE(w.panel()->request().section<TransposeProblem>().width, int64_t(2048));
    QCOMPARE(w.panel()->request().backend, BackendChoice::Cpu);
    QVERIFY(!w.coordinator()->running());
    // Meanwhile the schedule model previews the panel's matrix, up to a size that simulates at once.
    QCOMPARE(schedule->scheduleView()->model(schedule::Mapping::Cartesian).config.gridX, 64);
    RunRequest huge = w.panel()->request();
    huge.section<TransposeProblem>().width = huge.section<TransposeProblem>().height =
        60000;  // 1875^2 blocks
    w.usePreset(huge, false);
    QCOMPARE(schedule->scheduleView()->model(schedule::Mapping::Cartesian).config.gridX, 64);
    QVERIFY(schedule->modelHint()->text().contains(QStringLiteral("too large to preview")));

    // A transpose run: the KNN page hides its view and offers the seed's image.
    const QString transposeFile = writeRun(kltest::smallTranspose(), QStringLiteral("view-pages-transpose.json"));
    QVERIFY2(w.openPath(transposeFile, &error), qPrintable(error));
    auto* knn = pageOf<KnnPage>(w, "knn");
    QVERIFY(knn->view()->isHidden());
    QVERIFY(!knn->hint()->isHidden());
    QVERIFY(knn->hint()->text().contains(familyTitle(transpose::kFamily)));
    QVERIFY(knn->charts().isEmpty());
    QPushButton* knnSetUp = buttonNamed(knn->hint(), QStringLiteral("Set up a KNN run"));
    QVERIFY(knnSetUp);
    knnSetUp->click();
    const RunRequest panel = w.panel()->request();
    QCOMPARE(panel.family, knn::kFamily);
    QCOMPARE(panel.section<KnnProblem>().rows, 377);
    QCOMPARE(panel.section<KnnProblem>().cols, 329);
    QCOMPARE(panel.section<KnnProblem>().window, 14);
    QCOMPARE(panel.section<KnnProblem>().k, 8);

    // The Gantt part offers the H200 recording; its button opens it.
    QVERIFY(!schedule->ganttHint()->isHidden());
    QPushButton* open = buttonNamed(schedule->ganttHint(), QStringLiteral("Open the H200 recording"));
    QVERIFY(open);
    open->click();
    QCOMPARE(schedule->ganttView()->runCount(), 2);
    QVERIFY(schedule->ganttHint()->isHidden());
  }

  void h200RecordingOpensInTheGantt() {
    MainWindow w(freshDir(QStringLiteral("h200")));
    QString error;
    QVERIFY2(w.openPath(kH200File, &error), qPrintable(error));
    const RunResult& run = w.selection().primaryRun()->run();
    QCOMPARE(run.device.smCount, 132);
    QVERIFY(w.showView(QStringLiteral("gantt")));
    auto* page = pageOf<SchedulePage>(w, "schedule");
    QVERIFY(!page->ganttRunLabel().isEmpty());
    QVERIFY(page->ganttHint()->isHidden());
    widgets::GanttView* gantt = page->ganttView();
    QCOMPARE(gantt->runCount(), 2);  // padded and diagonal side by side
    for (int i = 0; i < 2; ++i) {
      const VariantResult& v = run.variants[size_t(i)];
      QCOMPARE(v.schedule.size(), size_t(128 * 128));
      // Every SM of the file has a lane with blocks in it, and the plot shows all of the lanes.
      QSet<int> sms;
      for (const BlockRecord& b : v.schedule) sms.insert(b.smId);
      QCOMPARE(sms.size(), run.device.smCount);
      QCOMPARE(*std::max_element(sms.begin(), sms.end()), run.device.smCount - 1);
      QCustomPlot* plot = gantt->plot(i);
      QVERIFY(plot);
      QCOMPARE(plot->plottableCount(), 1);
      QCOMPARE(plot->yAxis->range().lower, -0.5);
      QCOMPARE(plot->yAxis->range().upper, run.device.smCount - 0.5);
      const QString caption = gantt->caption(i);
      QVERIFY2(caption.contains(QStringLiteral("16384 blocks on 132 SMs")), qPrintable(caption));
      QVERIFY2(caption.contains(QStringLiteral("Recording overhead: %1%2 %")
                                    .arg(v.scheduleOverheadPct >= 0 ? QStringLiteral("+") : QString())
                                    .arg(v.scheduleOverheadPct, 0, 'f', 1)),
               qPrintable(caption));
    }
    // Tiles of different rows get different colours.
    BlockRecord top, bottom;
    bottom.tileY = 100;
    QVERIFY(gantt->blockColor(0, top) != gantt->blockColor(0, bottom));
    // A few lanes at a time shows every block of them.
    gantt->setSmsShown(16);
    QCOMPARE(gantt->plot(0)->yAxis->range().upper, 15.5);
    gantt->setSmsShown(0);

    // The model on the run's own GPU, chosen when the run came into view (not left on GT200):
    // its SMs and the padded kernel's 8 resident blocks.
    QCOMPARE(page->archId(), QStringLiteral("run"));
    const schedule::Model& m = page->scheduleView()->model(schedule::Mapping::Cartesian);
    QCOMPARE(m.config.smCount, 132);
    QCOMPARE(m.config.blocksPerSM, run.variants.front().kernels.front().resources->maxActiveBlocksPerSM);
    // Blocks running at once, from the records: at most SMs x resident blocks.
    const auto* busy = chartNamed(page->charts(), QStringLiteral("gantt-concurrency"));
    QVERIFY(busy);
    QCOMPARE(busy->series.size(), 2);
    const double peak = *std::max_element(busy->series[0].y.begin(), busy->series[0].y.end());
    QVERIFY(peak > 132 && peak <= 132 * 8);
  }

  void exportsOfEveryPageParse() {
    MainWindow w(freshDir(QStringLiteral("exports")));
    w.resize(1500, 950);
    w.show();
    QString error;
    QVERIFY2(w.openPath(writeRun(kltest::smallTranspose(), QStringLiteral("view-pages-transpose.json")), &error), qPrintable(error));
    QVERIFY2(w.openPath(writeRun(smallKnn(), QStringLiteral("view-pages-knn.json")), &error), qPrintable(error));
    QVERIFY2(w.openPath(kH200File, &error), qPrintable(error));
    QStringList ids;
    for (const HistoryEntry& e : w.history()->entries()) ids << e.id;
    QCOMPARE(ids.size(), 3);
    w.selectEntries(ids, ids.front());  // the CPU transpose run first: the schedule model is its
    pageOf<KnnPage>(w, "knn")->waitForImage();

    const QString dir = freshDir(QStringLiteral("exports-out"));
    QStringList written;
    QVERIFY2(w.exportCharts(dir, QSize(900, 560), &written, &error), qPrintable(error));
    const QStringList charts = {QStringLiteral("schedule-partition-share"), QStringLiteral("schedule-wave-load"),
                                QStringLiteral("schedule-gantt-concurrency"), QStringLiteral("access-sectors"),
                                QStringLiteral("access-shared-memory"), QStringLiteral("occupancy-device"),
                                QStringLiteral("occupancy-threads"), QStringLiteral("occupancy-registers"),
                                QStringLiteral("occupancy-shared-memory"), QStringLiteral("knn-time"),
                                QStringLiteral("knn-shared-memory")};
    for (const QString& c : charts) {
      const QString base = QDir(dir).filePath(c);
      QVERIFY2(written.contains(base + QStringLiteral(".png")), qPrintable(c));
      kltest::checkPng(base + QStringLiteral(".png"), QSize(900, 560));
      kltest::checkPdf(base + QStringLiteral(".pdf"));
      kltest::checkSvg(base + QStringLiteral(".svg"));
      kltest::checkCsv(base + QStringLiteral(".csv"), 1);
      kltest::checkJson(base + QStringLiteral(".json"));
      if (QTest::currentTestFailed()) QFAIL(qPrintable(c));
    }
    for (const QString& p : {QStringLiteral("schedule-model"), QStringLiteral("schedule-gantt"), QStringLiteral("access"),
                             QStringLiteral("occupancy"), QStringLiteral("knn")}) {
      const QString path = QDir(dir).filePath(p + QStringLiteral(".png"));
      QVERIFY2(written.contains(path), qPrintable(p));
      kltest::checkPng(path, QSize());
      QVERIFY(QImage(path).width() > 400);
    }

    // The report carries them too.
    const QString html = QDir(dir).filePath(QStringLiteral("report.html"));
    QVERIFY2(w.exportReport(html, &error), qPrintable(error));
    const QString text = QString::fromUtf8(kltest::readAll(html));
    QVERIFY(text.contains(QStringLiteral("Recorded block schedule")));
    QVERIFY(text.contains(QStringLiteral("Block-schedule model")));
    int images = 0;
    const QRegularExpression img(QStringLiteral("src=\"data:image/png;base64,([A-Za-z0-9+/=]+)\""));
    for (auto it = img.globalMatch(text); it.hasNext();) {
      QVERIFY(!QImage::fromData(QByteArray::fromBase64(it.next().captured(1).toLatin1()), "PNG").isNull());
      ++images;
    }
    QVERIFY2(images >= charts.size() + 5, qPrintable(QStringLiteral("%1 images").arg(images)));
  }

  // Issue 13: a run profiled on the H200 (tests/data/ncu, the counters of Nsight Compute) opens
  // with the models beside the counters in the Access, Occupancy and Timing tabs and the report.
  void aProfiledRunShowsTheModelBesideTheCounters() {
    MainWindow w(freshDir(QStringLiteral("counters")));
    QString error;
    QVERIFY2(w.openPath(QStringLiteral(KERNELLAB_TEST_DATA_DIR "/ncu/transpose-profiled.json"), &error),
             qPrintable(error));
    auto* access = pageOf<AccessPage>(w, "access");
    QVERIFY(access->waitForCounters());
    const auto& rows = access->counters()->rows();
    QCOMPARE(rows.size(), 20);  // sectors per request and bank conflicts of six variants
    QCOMPARE(access->counters()->disagreements(), 0);
    QVERIFY(!access->counters()->table()->isHidden());
    bool tiled = false;
    for (int row = 0; row < rows.size(); ++row) {
      const auto& r = rows[row];
      if (r.variant == QStringLiteral("tiled") && r.quantity.contains(QStringLiteral("shared load"))) {
        tiled = true;
        QCOMPARE(r.predicted, 31.0);  // a tile column in one bank: 31 extra passes
        QVERIFY(std::abs(r.measured - 31.0) < 0.5);
        // The table shows both numbers side by side.
        const QTableWidget* t = access->counters()->table();
        QCOMPARE(t->item(row, 3)->text(), QStringLiteral("31.0"));
        QVERIFY(t->item(row, 4)->text().startsWith(QStringLiteral("31.")));
      }
    }
    QVERIFY(tiled);

    // Occupancy: ncu's theoretical and achieved occupancy beside the calculator, per kernel.
    auto* occupancy = pageOf<OccupancyPage>(w, "occupancy");
    QVERIFY(occupancy->showsDeviceValues());
    const QTableWidget* device = occupancy->view()->deviceTable();
    QCOMPARE(device->rowCount(), 6);
    for (int r = 0; r < device->rowCount(); ++r) {
      QCOMPARE(device->item(r, 9)->text(), QStringLiteral("100.0 %"));
      QVERIFY(device->item(r, 10)->text().endsWith(QStringLiteral(" %")));
    }

    // Timing: DRAM bytes beside the ideal bytes; the naive transpose moves more than it should.
    auto* timing = pageOf<TimingPage>(w, "timing");
    int dram = 0, differ = 0;
    for (const auto& r : timing->counters()->rows())
      if (r.quantity.startsWith(QStringLiteral("DRAM"))) {
        ++dram;
        differ += !r.agrees;
      }
    QCOMPARE(dram, 6);
    QCOMPARE(differ, 1);

    // The report: a section with every comparison.
    const QString html = QDir(freshDir(QStringLiteral("counters-report"))).filePath(QStringLiteral("r.html"));
    QVERIFY2(w.exportReport(html, &error), qPrintable(error));
    const QString text = QString::fromUtf8(kltest::readAll(html));
    QVERIFY(text.contains(QStringLiteral("Model beside measurement (Nsight Compute)")));
    QVERIFY(text.contains(QStringLiteral("shared load bank conflicts per request")));
    QVERIFY(text.contains(QStringLiteral("theoretical occupancy")));
    QVERIFY(text.contains(QStringLiteral("1 of 32 compared rows differ beyond the tolerance")));

    // A run without counters hides the tables again.
    QVERIFY2(w.openPath(writeRun(kltest::smallTranspose(), QStringLiteral("view-pages-plain.json")), &error),
             qPrintable(error));
    QVERIFY(access->waitForCounters());
    QVERIFY(access->counters()->rows().isEmpty());
    QVERIFY(access->counters()->table()->isHidden());
    QVERIFY(timing->counters()->rows().isEmpty());
  }
};

QTEST_MAIN(TstViewPages)
#include "tst_view_pages.moc"
