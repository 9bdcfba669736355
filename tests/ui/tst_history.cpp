// SPDX-License-Identifier: MIT
// Results files and history: a file from kernellab-cli opens as if it ran here, a malformed or
// newer-schema file changes nothing and says why, and the history survives a restart.
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTabWidget>
#include <QTreeWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "chart_view.h"
#include "experiment_panel.h"
#include "history_dock.h"
#include "history_store.h"
#include "kernellab/json_io.h"
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
      if (s.name == variantTitle(Family::Transpose, "padded")) {
        QCOMPARE(s.y.size(), 2);
        QCOMPARE(s.y[0], file.runs[0].variants[3].total.medianMs);
        QCOMPARE(s.y[1], file.runs[1].variants[3].total.medianMs);
      }
    QVERIFY(w.history()->entries().back().origin.contains(QStringLiteral("from-cli.json")));
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
    t.request.family = Family::Transpose;
    t.request.transpose.width = t.request.transpose.height = 512;
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
    k.request.family = Family::KMeans;
    k.request.clustering.n = 1000;
    k.request.clustering.k = 4;
    k.request.clustering.d = 2;
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

    // Every family can be charted: both in exports, and --chart kernels finds the k-means one.
    auto* timing = dynamic_cast<TimingPage*>(w.page(QStringLiteral("timing")));
    QStringList ids;
    for (const auto& c : timing->charts()) ids << c.id;
    QVERIFY2(ids.contains(QStringLiteral("transpose-time")) && ids.contains(QStringLiteral("kmeans-time")), qPrintable(ids.join(QLatin1Char(' '))));
    QVERIFY(w.showChart(QStringLiteral("kernels")));
    QCOMPARE(timing->family(), Family::KMeans);
    QCOMPARE(timing->view()->currentChartId(), QStringLiteral("kernels"));
    QVERIFY(timing->showFamily(Family::Transpose));
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
    QCOMPARE(w.selection().primaryRun()->run().request.family, Family::KMeans);
    tree->setCurrentItem(entry->child(0));
    QCOMPARE(w.selection().primaryRun()->run().request.family, Family::Transpose);
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
};

QTEST_MAIN(TstHistory)
#include "tst_history.moc"
