// SPDX-License-Identifier: MIT
// Results files and history: a file from kernellab-cli opens as if it ran here, a malformed or
// newer-schema file changes nothing and says why, and the history survives a restart.
#include <qcustomplot.h>

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtTest>

#include "chart_view.h"
#include "crafted_results.h"
#include "experiment_panel.h"
#include "history_dock.h"
#include "history_store.h"
#include "kernellab/clustering_request.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"
#include "main_window.h"
#include "message_banner.h"
#include "run_text.h"
#include "test_support.h"
#include "timing_page.h"
#include "timing_view.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

namespace {

struct State {
  QStringList ids;
  QStringList checked;
  std::string request;
  int shownRuns = 0;
  bool operator==(const State& o) const {
    return ids == o.ids && checked == o.checked && request == o.request && shownRuns == o.shownRuns;
  }
};

State stateOf(const MainWindow& w) {
  State s;
  for (const auto& e : w.history()->entries()) s.ids << e.id;
  s.checked = w.historyDock()->checked();
  s.request = nlohmann::json(w.panel()->request()).dump();
  s.shownRuns = static_cast<int>(w.selection().runs.size());
  return s;
}

void writeText(const QString& path, const QByteArray& text) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
}

}  // namespace

class TstHistory : public QObject {
  Q_OBJECT
  QString dir_;
  QString cliResults_;

 private slots:
  void initTestCase() {
    kltest::isolateAppDirs(QStringLiteral("tst_history"));
    dir_ = kltest::tempPath(QStringLiteral("history_files"));
    QDir(dir_).removeRecursively();
    QDir().mkpath(dir_);
    // A results file written by the CLI, as on a GPU server.
    cliResults_ = QDir(dir_).filePath(QStringLiteral("from-cli.json"));
    const kltest::CliRun r = kltest::runCli({QStringLiteral("sweep"), QStringLiteral("transpose"), QStringLiteral("--size"),
                                             QStringLiteral("128x96"), QStringLiteral("--tpb"), QStringLiteral("64,256"),
                                             QStringLiteral("--reps"), QStringLiteral("3"), QStringLiteral("--backend"),
                                             QStringLiteral("cpu"), QStringLiteral("--json"), cliResults_});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
  }

  void cliResultsOpenAsIfRunHere() {
    MainWindow w;
    QString error;
    QVERIFY2(w.openPath(cliResults_, &error), qPrintable(error));
    const ResultsFile file = readResultsFile(cliResults_.toStdString());
    QCOMPARE(w.selection().runs.size(), static_cast<qsizetype>(file.runs.size()));
    for (int i = 0; i < static_cast<int>(file.runs.size()); ++i)
      QCOMPARE(nlohmann::json(w.selection().runs[i].run()).dump(), nlohmann::json(file.runs[static_cast<size_t>(i)]).dump());
    // The sweep's two runs are the two TPB groups of the time chart, with the file's medians.
    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    QVERIFY(timing->showChart(QStringLiteral("time")));
    const widgets::ChartSpec& spec = timing->view()->chartView()->chart();
    QCOMPARE(spec.categories.mid(0, 2), (QStringList{"TPB 64", "TPB 256"}));
    for (const auto& s : spec.series)
      if (s.name == variantTitle(transpose::kFamily, "padded")) {
        QCOMPARE(s.y.size(), 2);
        QCOMPARE(s.y[0], file.runs[0].variants[3].total.medianMs);
        QCOMPARE(s.y[1], file.runs[1].variants[3].total.medianMs);
      }
    QVERIFY(w.history()->entries().back().origin.contains(QStringLiteral("from-cli.json")));
    // The panel (the next run's settings) is left alone: on another family (the window starts on
    // k-means) the banner says so and names the way to load the file's settings; on the file's
    // family it says nothing of the kind.
    QCOMPARE(w.panel()->request().family, clustering::kKMeans);
    const QString said = w.banner()->text();
    QVERIFY2(said.contains(QStringLiteral("The views show its Matrix transpose runs; the panel keeps its")) &&
                 said.contains(QStringLiteral("Load its settings into the panel")),
             qPrintable(said));
    {
      MainWindow same(kltest::tempPath(QStringLiteral("same-family-history")));
      RunRequest transposeRequest = same.panel()->request();
      transposeRequest.family = transpose::kFamily;
      same.panel()->setRequest(transposeRequest);
      QVERIFY2(same.openPath(cliResults_, &error), qPrintable(error));
      QCOMPARE(same.panel()->request().family, transpose::kFamily);
      QVERIFY2(!same.banner()->text().contains(QStringLiteral("the panel keeps")), qPrintable(same.banner()->text()));
    }
    // Opening the same results again shows the entry it already has.
    const auto entries = w.history()->entries().size();
    QVERIFY(w.openPath(cliResults_, &error));
    QCOMPARE(w.history()->entries().size(), entries);
  }

  void malformedFilesChangeNothing() {
    MainWindow w;
    QString error;
    QVERIFY(w.openPath(cliResults_, &error));
    const State before = stateOf(w);

    struct Case {
      const char* name;
      QByteArray text;
      const char* says;
    };
    const QList<Case> cases = {
        {"truncated.json", QByteArray("{\"schema_version\": 1, \"kind\": \"kernellab-results\", \"runs\": ["), "not valid JSON"},
        {"newer.json", QByteArray("{\"schema_version\": 99, \"kind\": \"kernellab-results\", \"runs\": []}"), "newer than this build"},
        {"other.json", QByteArray("{\"schema_version\": 1, \"kind\": \"something-else\", \"runs\": []}"), "not a KernelLab results file"},
        {"wrongtype.json", QByteArray("{\"schema_version\": 1, \"kind\": \"kernellab-results\", \"runs\": [{\"request\": {\"family\": \"transpose\", \"repetitions\": \"ten\"}}]}"), "repetitions"},
    };
    for (const Case& c : cases) {
      const QString path = QDir(dir_).filePath(QLatin1String(c.name));
      writeText(path, c.text);
      QVERIFY2(!w.openPath(path, &error), c.name);
      QVERIFY2(error.contains(QLatin1String(c.says)), qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(c.name), error)));
      QVERIFY(w.banner()->isVisibleTo(&w));
      QVERIFY(w.banner()->text().contains(QLatin1String(c.says)));
      QVERIFY2(stateOf(w) == before, c.name);
    }
    QVERIFY(!w.openPath(QDir(dir_).filePath(QStringLiteral("missing.json")), &error));
    QVERIFY(stateOf(w) == before);
    QVERIFY(!w.loadRequestFile(QDir(dir_).filePath(QStringLiteral("truncated.json")), &error));
    QVERIFY(stateOf(w) == before);
  }


  // Issue 14, item 4: a file of several families: a row per run with its own status, every
  // family charted, and a run's row fills the single-run views.
  void aMixedFileHasARowPerRun() {
    ResultsFile file;
    RunResult t;
    t.request.family = transpose::kFamily;
    t.request.section<TransposeProblem>().width = t.request.section<TransposeProblem>().height =
        512;
    t.backend = "cpu";
    t.device.name = "test CPU";
    t.createdAt = "2026-11-29T20:07:06Z";
    for (const char* id : {"copy", "padded"}) {
      VariantResult v;
      v.variant = id;
      v.total = {1.0, 0.9, 1.1, 5, "cpu-steady-clock"};
      v.gbps = 2.0;
      t.variants.push_back(v);
    }
    RunResult k;
    k.request.family = clustering::kKMeans;
    k.request.section<ClusteringProblem>().n = 1000;
    k.request.section<ClusteringProblem>().k = 4;
    k.request.section<ClusteringProblem>().d = 2;
    k.backend = "cpu";
    k.device.name = "test CPU";
    k.createdAt = "2026-11-29T20:07:39Z";
    k.ok = false;
    k.message = "1 variant(s) failed to run or to verify";
    VariantResult good;
    good.variant = "shared-coalesced";
    good.total = {3.0, 2.9, 3.1, 5, "cpu-steady-clock"};
    for (const char* name : {"assign", "update", "score"}) {
      KernelResult kr;
      kr.name = name;
      kr.totalMs = 1.0;
      good.kernels.push_back(kr);
    }
    VariantResult bad;
    bad.variant = "global-coalesced";
    bad.ok = false;
    bad.error = "refused: a test failure";
    k.variants = {good, bad};
    file.runs = {t, k};
    const QString path = kltest::tempPath(QStringLiteral("mixed.json"));
    writeResultsFile(path.toStdString(), file);

    MainWindow w(kltest::tempPath(QStringLiteral("mixed-history")));
    QString error;
    QVERIFY2(w.openPath(path, &error), qPrintable(error));
    QTreeWidget* tree = w.historyDock()->tree();
    QTreeWidgetItem* entry = nullptr;
    for (int i = 0; i < tree->topLevelItemCount(); ++i)
      if (tree->topLevelItem(i)->childCount() == 2) entry = tree->topLevelItem(i);
    QVERIFY(entry);
    QVERIFY2(entry->text(2).contains(QStringLiteral("2 runs")), qPrintable(entry->text(2)));
    QVERIFY2(entry->foreground(2).color() != QColor(176, 0, 32), "one failing run turns its file red");
    QVERIFY2(!entry->child(0)->text(2).contains(QStringLiteral("failed")), qPrintable(entry->child(0)->text(2)));
    QVERIFY(entry->child(0)->foreground(2).color() != QColor(176, 0, 32));
    QVERIFY2(entry->child(1)->text(2).contains(QStringLiteral("failed")), qPrintable(entry->child(1)->text(2)));
    QVERIFY(entry->child(1)->toolTip(2).contains(QStringLiteral("a test failure")));
    // The window starts on k-means: the banner names both families of the file, not its first.
    QVERIFY2(w.banner()->text().contains(QStringLiteral("The views show its Matrix transpose and k-means runs; "
                                                        "the panel keeps its k-means settings")),
             qPrintable(w.banner()->text()));
    QVERIFY(w.banner()->text().contains(HistoryDock::loadSettingsText()));

    // Every family can be charted: both in exports, and --chart kernels finds the k-means one.
    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    QStringList ids;
    for (const auto& c : timing->charts()) ids << c.id;
    QVERIFY2(ids.contains(QStringLiteral("transpose-time")) && ids.contains(QStringLiteral("kmeans-time")), qPrintable(ids.join(QLatin1Char(' '))));
    QVERIFY(w.showChart(QStringLiteral("kernels")));
    QCOMPARE(timing->family(), clustering::kKMeans);
    QCOMPARE(timing->view()->currentChartId(), QStringLiteral("kernels"));
    QVERIFY(timing->showFamily(transpose::kFamily));
    QCOMPARE(timing->view()->charts().front().id, QStringLiteral("time"));

    // Issue 14, item 2: a window asked for 1200 px keeps it, whatever tab is shown.
    w.resize(1200, 850);
    w.show();
    auto* tabs = w.findChild<QTabWidget*>();
    QVERIFY(tabs);
    for (int i = 0; i < tabs->count(); ++i) {
      tabs->setCurrentIndex(i);
      QTest::qWait(20);
      QVERIFY2(w.width() == 1200 && w.minimumSizeHint().width() <= 1200,
               qPrintable(QStringLiteral("%1: the window is %2 px wide (minimum %3)").arg(tabs->tabText(i)).arg(w.width()).arg(w.minimumSizeHint().width())));
    }

    // The k-means run's row: it becomes the primary run.
    tree->setCurrentItem(entry->child(1));
    QCOMPARE(w.selection().primaryRun()->run().request.family, clustering::kKMeans);
    tree->setCurrentItem(entry->child(0));
    QCOMPARE(w.selection().primaryRun()->run().request.family, transpose::kFamily);

    // "Load this run's settings" on the k-means row loads the k-means run's request (it loaded
    // the file's first run, the transpose); on the file's row, the first run's.
    const QString id = entry->data(0, Qt::UserRole).toString();
    emit w.historyDock()->loadSettingsRequested(id, 1);
    QCOMPARE(w.panel()->request().family, clustering::kKMeans);
    QCOMPARE(w.panel()->request().section<ClusteringProblem>().n, int64_t(1000));
    emit w.historyDock()->loadSettingsRequested(id, -1);
    QCOMPARE(w.panel()->request().family, transpose::kFamily);
    QCOMPARE(w.panel()->request().section<TransposeProblem>().width, int64_t(512));
  }

  void historySurvivesARestart() {
    State before;
    {
      MainWindow w;
      w.panel()->setRequest(kltest::smallTranspose(128));
      QSignalSpy settled(&w, &MainWindow::runSettled);
      QVERIFY(w.startRun());
      QVERIFY(settled.wait(120000));
      QVERIFY(settled.first().at(0).toBool());
      // Compare the new run with the CLI file's entry.
      QStringList both = w.historyDock()->checked();
      both.prepend(w.history()->entries().front().id);
      w.selectEntries(both, both.back());
      before = stateOf(w);
      QCOMPARE(before.ids.size(), 2);  // the CLI file (opened twice, kept once) and this run
      QCOMPARE(before.checked.size(), 2);
      w.close();  // saves the settings
    }
    MainWindow again;
    const State after = stateOf(again);
    QCOMPARE(after.ids, before.ids);
    QCOMPARE(QSet<QString>(after.checked.begin(), after.checked.end()), QSet<QString>(before.checked.begin(), before.checked.end()));
    QCOMPARE(after.request, before.request);
    QCOMPARE(after.shownRuns, before.shownRuns);
    // The files are real results files in the application data folder.
    for (const auto& e : again.history()->entries()) {
      QVERIFY(e.file.startsWith(QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)));
      QVERIFY(!readResultsFile(e.file.toStdString()).runs.empty());
    }
    // A lost index is rebuilt from the files.
    const QString dir = again.history()->directory();
    QVERIFY(QFile::remove(QDir(dir).filePath(QStringLiteral("index.json"))));
    HistoryStore rebuilt(dir);
    rebuilt.load();
    QCOMPARE(rebuilt.entries().size(), again.history()->entries().size());
  }

  void twoWindowsOnOneHistoryLoseNothing() {
    // Two stores on one folder, as two windows: each saves after the other saved, without
    // reloading. Every run stays in the index and no two share a number.
    const QString dir = kltest::tempPath(QStringLiteral("shared_history"));
    QDir(dir).removeRecursively();
    HistoryStore a(dir), b(dir);
    a.load();
    b.load();
    QString error;
    for (int round = 0; round < 3; ++round)
      for (HistoryStore* s : {&a, &b}) {
        const ResultsFile file = kltest::smallKMeans(10 + round, 2, 2);
        const QString path = HistoryStore::writeRunFile(dir, file, &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        s->adopt(path, std::make_shared<const ResultsFile>(file), QStringLiteral("run here"));
      }
    HistoryStore fresh(dir);
    fresh.load();
    QCOMPARE(fresh.entries().size(), 6);
    QSet<int> numbers;
    for (const HistoryEntry& e : fresh.entries()) numbers.insert(e.number);
    QCOMPARE(numbers.size(), 6);
    // Each store sees the other's runs after its own last save, or when it looks again.
    QCOMPARE(b.entries().size(), 6);
    QCOMPARE(a.entries().size(), 5);
    QSignalSpy changed(&a, &HistoryStore::changed);
    a.refresh();
    QCOMPARE(a.entries().size(), 6);
    QCOMPARE(changed.size(), 1);
    a.refresh();
    QCOMPARE(changed.size(), 1);
    // A removal in one store keeps the other's later runs.
    QVERIFY(a.remove(fresh.entries().front().id));
    const QString path = HistoryStore::writeRunFile(dir, kltest::smallKMeans(20, 2, 2), &error);
    b.adopt(path, std::make_shared<const ResultsFile>(kltest::smallKMeans(20, 2, 2)),
            QStringLiteral("run here"));
    fresh.load();
    QCOMPARE(fresh.entries().size(), 6);
    QCOMPARE(fresh.entries().back().number, 7);
  }

  void leftoverPartFilesAreRemovedAtStart() {
    const QString dir = kltest::tempPath(QStringLiteral("part_history"));
    QDir(dir).removeRecursively();
    QDir().mkpath(dir);
    // A killed writer's file (its process is gone), an older build's untagged one from long ago,
    // and one a live writer (this process) is writing now.
    const QString dead = QDir(dir).filePath(QStringLiteral("run-a.json.2147483000.part"));
    const QString old = QDir(dir).filePath(QStringLiteral("run-b.json.part"));
    const QString live = QDir(dir).filePath(
        QStringLiteral("run-c.json.%1.part").arg(QCoreApplication::applicationPid()));
    for (const QString& p : {dead, old, live})
      QVERIFY(kltest::writeBytes(p, QByteArray(4096, 'x')));
    {
      QFile f(old);
      QVERIFY(f.open(QIODevice::ReadWrite));
      QVERIFY(f.setFileTime(QDateTime::currentDateTime().addSecs(-3600),
                            QFileDevice::FileModificationTime));
    }
    HistoryStore store(dir);
    QSignalSpy problems(&store, &HistoryStore::problem);
    store.load();
    QVERIFY(!QFile::exists(dead));
    QVERIFY(!QFile::exists(old));
    QVERIFY(QFile::exists(live));
    QCOMPARE(problems.size(), 1);
    QVERIFY(problems.first().first().toString().contains(QStringLiteral("2 unfinished file(s)")));
  }

  void largeArraysAreKeptCompactly() {
    // Labels, centers and block records leave the JSON for a packed side file, and come back
    // value for value.
    const QString dir = kltest::tempPath(QStringLiteral("compact_history"));
    QDir(dir).removeRecursively();
    ResultsFile file = kltest::smallKMeans(200000, 16, 8);
    // A second variant that agrees (its labels are kept once) and a third that does not.
    file.runs[0].variants.push_back(file.runs[0].variants[0]);
    file.runs[0].variants.push_back(file.runs[0].variants[0]);
    file.runs[0].variants[1].variant = "global-coalesced";
    file.runs[0].variants[2].variant = "shared-interleaved";
    file.runs[0].variants[2].detail<ClusteringOutput>()->labels[12345] = 3;
    ClusteringOutput& out = *file.runs[0].variants[0].detail<ClusteringOutput>();
    for (size_t i = 0; i < out.centers.size(); ++i) out.centers[i] = float(i) * 0.37f - 100.f;
    for (int b = 0; b < 20000; ++b)
      file.runs[0].variants[0].schedule.push_back(
          BlockRecord{b, b % 132, 1795983171157682016ull + 700ull * b,
                      1795983171157682016ull + 700ull * b + 2208, b % 128, b / 128});
    QString error;
    const QString path = HistoryStore::writeRunFile(dir, file, &error);
    QVERIFY2(!path.isEmpty(), qPrintable(error));
    const QString side =
        QDir(dir).filePath(QFileInfo(path).completeBaseName() + QStringLiteral(".arrays"));
    QVERIFY(QFile::exists(side));
    const qint64 plain = static_cast<qint64>(nlohmann::json(file).dump(1).size());
    const qint64 kept = QFileInfo(path).size() + QFileInfo(side).size();
    QVERIFY2(kept * 10 < plain,
             qPrintable(QStringLiteral("%1 bytes kept for %2 of JSON").arg(kept).arg(plain)));
    // The JSON alone is still a results file (without the arrays).
    QVERIFY(readResultsFile(path.toStdString())
                .runs[0]
                .variants[0]
                .detail<ClusteringOutput>()
                ->labels.empty());
    HistoryStore store(dir);
    store.load();
    QCOMPARE(store.entries().size(), 1);
    QString why;
    const ResultsPtr back = store.results(store.entries().front().id, &why);
    QVERIFY2(back, qPrintable(why));
    QCOMPARE(nlohmann::json(*back).dump(), nlohmann::json(file).dump());

    // KNN neighbour lists and distances (the JSON keeps k only beside them).
    ResultsFile knn;
    knn.runs.emplace_back();
    RunRequest& r = knn.runs[0].request;
    r.family = knn::kFamily;
    r.section<KnnProblem>().rows = 40;
    r.section<KnnProblem>().cols = 30;
    r.section<KnnProblem>().k = 5;
    VariantResult v;
    v.variant = "global";
    v.details.set(KnnDetails{});
    v.detail<KnnDetails>()->k = 5;
    for (int p = 0; p < 1200; ++p)
      for (int j = 0; j < 5; ++j) {
        v.detail<KnnDetails>()->indices.push_back(
            j == 4 && p % 97 == 0 ? -1 : std::clamp(p + j * 30 - 60, 0, 1199));
        v.detail<KnnDetails>()->squaredDistances.push_back(0.5f * j + p * 1e-3f);
      }
    knn.runs[0].variants.push_back(v);
    const QString knnPath = HistoryStore::writeRunFile(dir, knn, &error);
    QVERIFY2(!knnPath.isEmpty(), qPrintable(error));
    store.load();
    const HistoryEntry* e = store.findByFile(knnPath);
    QVERIFY(e);
    const ResultsPtr knnBack = store.results(e->id, &why);
    QVERIFY2(knnBack, qPrintable(why));
    QCOMPARE(nlohmann::json(*knnBack).dump(), nlohmann::json(knn).dump());
  }

  void aDamagedSideFileIsSetAside() {
    const QString dir = kltest::tempPath(QStringLiteral("damaged_history"));
    QDir(dir).removeRecursively();
    const ResultsFile file = kltest::smallKMeans(5000, 4, 3);
    QString error;
    const QString path = HistoryStore::writeRunFile(dir, file, &error);
    {
      HistoryStore writer(dir);
      writer.load();
      QCOMPARE(writer.entries().size(), 1);  // listed while intact
    }
    const QString side =
        QDir(dir).filePath(QFileInfo(path).completeBaseName() + QStringLiteral(".arrays"));
    QFile f(side);
    QVERIFY(f.open(QIODevice::ReadWrite));
    QByteArray bytes = f.readAll();
    QVERIFY(bytes.size() > 40);
    bytes[30] = char(bytes[30] ^ 0x5a);  // a count or a length: the reader must notice
    f.seek(0);
    f.write(bytes.left(bytes.size() - 7));
    f.resize(bytes.size() - 7);
    f.close();
    HistoryStore store(dir);
    store.load();
    QSignalSpy problems(&store, &HistoryStore::problem);
    QString why;
    QVERIFY(!store.results(store.entries().front().id, &why));
    QVERIFY2(why.contains(QStringLiteral("set aside")), qPrintable(why));
    QCOMPARE(problems.size(), 1);
    QVERIFY(store.entries().isEmpty());
    QVERIFY(QFile::exists(QDir(store.quarantineDirectory()).filePath(QFileInfo(path).fileName())));
  }
};

QTEST_MAIN(TstHistory)
#include "tst_history.moc"
