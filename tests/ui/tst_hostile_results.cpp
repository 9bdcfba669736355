// SPDX-License-Identifier: MIT
// Hostile results files in the window (issue 16): a file that fails validation is refused with a
// message before it reaches the history; one already in the history is set aside at start; a
// label cannot size anything; a request's files are never read; a huge N shows as a sample.
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QtTest>

#include "clusters_page.h"
#include "clusters_view.h"
#include "crafted_results.h"
#include "history_dock.h"
#include "history_store.h"
#include "kernellab/clustering.h"
#include "kernellab/json_io.h"
#include "kernellab/transpose.h"
#include "main_window.h"
#include "message_banner.h"
#include "point_cloud_math.h"
#include "results_validation.h"
#include "test_support.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

namespace {

QString shownText(QWidget* w) {
  QStringList texts;
  for (QLabel* l : w->findChildren<QLabel*>())
    if (l->isVisibleTo(w)) texts << l->text();
  return texts.join(QLatin1Char('\n'));
}

}  // namespace

class TstHostileResults : public QObject {
  Q_OBJECT
  QString dir_;

  QString path(const QString& name) const { return QDir(dir_).filePath(name); }

 private slots:
  void initTestCase() {
    kltest::isolateAppDirs(QStringLiteral("tst_hostile_results"));
    dir_ = kltest::tempPath(QStringLiteral("hostile_results"));
    QDir(dir_).removeRecursively();
    QDir().mkpath(dir_);
  }

  void theEmptySweepAxisIsRefusedBeforeTheHistory() {
    const QByteArray bytes = kltest::emptySweepAxisFile();
    QCOMPARE(bytes.size(), 125);
    QVERIFY(kltest::writeBytes(path(QStringLiteral("empty-axis.json")), bytes));
    MainWindow w;
    const auto before = w.history()->entries().size();
    QString error;
    QVERIFY(!w.openPath(path(QStringLiteral("empty-axis.json")), &error));
    QVERIFY2(error.contains(QStringLiteral("axis 'tpb' has no values")), qPrintable(error));
    QVERIFY(w.banner()->text().contains(QStringLiteral("has no values")));
    QCOMPARE(w.history()->entries().size(), before);
    QVERIFY(QDir(w.history()->directory())
                .entryList({QStringLiteral("run-*.json")}, QDir::Files)
                .isEmpty());
  }

  void runLabelsNeverIndexAnEmptyAxis() {
    // The cause of the crash: the labels of a file whose axis has no values.
    ResultsFile file = kltest::smallKMeans(10, 2, 2);
    file.sweep.push_back(SweepAxis{"tpb", {}});
    HistoryEntry e;
    e.number = 7;
    QCOMPARE(HistoryStore::runLabels(e, file), QStringList{QStringLiteral("#7.1")});
    file.sweep.push_back(SweepAxis{"k", {"2", "3"}});
    file.runs.push_back(file.runs.front());
    QCOMPARE(HistoryStore::runLabels(e, file),
             (QStringList{QStringLiteral("#7.1"), QStringLiteral("#7.2")}));
  }

  void aPoisonedHistoryEntryIsSetAsideAtStart() {
    // The file as an older build copied it into the history, and listed in its index.
    QString dir;
    {
      MainWindow w;
      dir = w.history()->directory();
    }
    QDir().mkpath(dir);
    const QString poisoned =
        QDir(dir).filePath(QStringLiteral("run-20260101-000000-000-abcdef.json"));
    QVERIFY(kltest::writeBytes(poisoned, kltest::emptySweepAxisFile()));
    QVERIFY(kltest::writeBytes(
        QDir(dir).filePath(QStringLiteral("index.json")),
        QByteArrayLiteral(
            "{\"kind\":\"kernellab-history\",\"version\":1,\"next_number\":2,\"entries\":["
            "{\"id\":\"run-20260101-000000-000-abcdef\",\"file\":\"run-20260101-000000-000-abcdef."
            "json\","
            "\"number\":1,\"family\":\"kmeans\",\"summary\":\"poison\"}]}")));
    QSettings().setValue(QStringLiteral("history/checked"),
                         QStringList{QStringLiteral("run-20260101-000000-000-abcdef")});
    QSettings().setValue(QStringLiteral("history/primary"),
                         QStringLiteral("run-20260101-000000-000-abcdef"));
    {
      MainWindow w;  // selects the entry at start: it used to crash here, every time
      QVERIFY(!QFile::exists(poisoned));
      QVERIFY(QFile::exists(
          QDir(w.history()->quarantineDirectory()).filePath(QFileInfo(poisoned).fileName())));
      QVERIFY(w.history()->entries().isEmpty());
      QVERIFY2(w.banner()->text().contains(QStringLiteral("set aside")),
               qPrintable(w.banner()->text()));
      QVERIFY(w.selection().runs.isEmpty());
    }
    MainWindow again;  // and the next start is clean
    QVERIFY(again.history()->entries().isEmpty());
    QVERIFY(!again.banner()->text().contains(QStringLiteral("set aside")));
    QSettings().remove(QStringLiteral("history"));
  }

  void aLabelBeyondKIsRefusedAtOnce() {
    ResultsFile file = kltest::smallKMeans(1000, 4, 3);
    file.runs[0].variants[0].detail<ClusteringOutput>()->labels[7] = 2147483646;
    QVERIFY(kltest::writeResults(path(QStringLiteral("label.json")), file));
    MainWindow w;
    QElapsedTimer t;
    t.start();
    QString error;
    QVERIFY(!w.openPath(path(QStringLiteral("label.json")), &error));
    QVERIFY2(t.elapsed() < 1000, qPrintable(QString::number(t.elapsed())));
    QVERIFY2(error.contains(QStringLiteral("labels[7] = 2147483646 is outside -1..3 (K = 4)")),
             qPrintable(error));
    QVERIFY(w.history()->entries().isEmpty());
  }

  void everyIndexIsCheckedBeforeUse_data() {
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("says");
    QTest::newRow("negative label") << "label"
                                    << "clustering.labels[7] = -2 is outside -1..3";
    QTest::newRow("labels not N") << "short"
                                  << "clustering.labels has 999 entries; N needs 1000";
    QTest::newRow("centers not KxD") << "centers"
                                     << "clustering.centers has 5 values; K x D is 4 x 3";
    QTest::newRow("center index beyond N") << "center-index"
                                           << "center_indices[1] = 1000 is outside 0..999";
    QTest::newRow("SM id") << "sm"
                           << "SM 2000000000 is outside";
    QTest::newRow("block ends first") << "block-time"
                                      << "ends before it starts";
    QTest::newRow("device threads") << "device"
                                    << "device max_threads_per_block = 2147483647";
    QTest::newRow("no runs") << "no-runs"
                             << "holds no runs";
    QTest::newRow("huge transpose")
        << "transpose"
        << "transpose.width = 4294967296 is above the limit of 16777216";
    QTest::newRow("sweep not the runs") << "sweep"
                                        << "the sweep's axes make 3 runs, but the file holds 1";
    QTest::newRow("chosen point") << "chosen"
                                  << "chosen_point = 5000 is outside -1..999";
  }
  void everyIndexIsCheckedBeforeUse() {
    QFETCH(QString, field);
    QFETCH(QString, says);
    ResultsFile file = kltest::smallKMeans(1000, 4, 3);
    ClusteringOutput& out = *file.runs[0].variants[0].detail<ClusteringOutput>();
    if (field == QLatin1String("label")) out.labels[7] = -2;
    if (field == QLatin1String("short")) out.labels.pop_back();
    if (field == QLatin1String("centers")) out.centers.resize(5);
    if (field == QLatin1String("center-index")) out.centerIndices = {0, 1000};
    if (field == QLatin1String("sm"))
      file.runs[0].variants[0].schedule = {BlockRecord{0, 2000000000, 10, 20, 0, 0}};
    if (field == QLatin1String("block-time"))
      file.runs[0].variants[0].schedule = {BlockRecord{0, 1, 20, 10, 0, 0}};
    if (field == QLatin1String("device")) file.runs[0].device.maxThreadsPerBlock = 2147483647;
    if (field == QLatin1String("no-runs")) file.runs.clear();
    if (field == QLatin1String("chosen")) {
      IterationRecord it;
      it.iteration = 2;
      it.chosenPoint = 5000;
      file.runs[0].variants[0].iterations.push_back(it);
    }
    if (field == QLatin1String("sweep"))
      file.sweep.push_back(SweepAxis{"tpb", {"64", "128", "256"}});
    if (field == QLatin1String("transpose")) {
      file.runs[0].request.family = transpose::kFamily;
      file.runs[0].request.section<TransposeProblem>().width = int64_t(1) << 32;
      file.runs[0].variants[0].details.erase<ClusteringOutput>();
    }
    const QString problem = validateResults(file);
    QVERIFY2(problem.contains(says), qPrintable(problem));
    // A file the CLI writes passes.
    QVERIFY(validateResults(kltest::smallKMeans()).isEmpty());
  }

  void aFifoIsRefusedWithoutOpeningIt() {
    const QString fifo = path(QStringLiteral("pipe.json"));
    if (!kltest::makeFifo(fifo)) QSKIP("no mkfifo here");
    QElapsedTimer t;
    t.start();
    const ResultsRead read = readResultsForWindow(fifo);
    QVERIFY(!read.file);
    QVERIFY2(read.error.contains(QStringLiteral("FIFO")), qPrintable(read.error));
    QVERIFY(t.elapsed() < 5000);
    const ResultsRead dir = readResultsForWindow(dir_);
    QVERIFY2(dir.error.contains(QStringLiteral("directory")), qPrintable(dir.error));
    const ResultsRead device = readResultsForWindow(QStringLiteral("/dev/zero"));
    QVERIFY2(device.error.contains(QStringLiteral("device")), qPrintable(device.error));
  }

  void aRunNamingAFifoShowsWithoutReadingIt() {
    const QString fifo = path(QStringLiteral("points.csv"));
    if (!kltest::makeFifo(fifo)) QSKIP("no mkfifo here");
    ResultsFile file = kltest::smallKMeans(1000, 4, 3);
    file.runs[0].request.section<ClusteringProblem>().inputPath = fifo.toStdString();
    file.runs[0].request.section<ClusteringProblem>().centersPath = "/dev/zero";
    QVERIFY(kltest::writeResults(path(QStringLiteral("names-fifo.json")), file));
    MainWindow w;
    QString error;
    QVERIFY2(w.openPath(path(QStringLiteral("names-fifo.json")), &error), qPrintable(error));
    auto* page = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    page->loader()->waitForIdle();  // returns: nothing was asked to read the FIFO
    QVERIFY(w.showView(QStringLiteral("clusters")));
    const QString text = shownText(page->view());
    QVERIFY2(text.contains(QStringLiteral("never a command")), qPrintable(text));
    QVERIFY(text.contains(fifo));
  }

  void aHugeNShowsAsABoundedSample() {
    // "n": 600000000 in a 4 KB file once generated 7 GB of points.
    ResultsFile file = kltest::smallKMeans(600000000, 4, 3, false);
    QVERIFY(kltest::writeResults(path(QStringLiteral("huge-n.json")), file));
    QVERIFY(QFileInfo(path(QStringLiteral("huge-n.json"))).size() < 8192);
    MainWindow w;
    QString error;
    QVERIFY2(w.openPath(path(QStringLiteral("huge-n.json")), &error), qPrintable(error));
    auto* page = dynamic_cast<ClustersPage*>(w.page(QStringLiteral("clusters")));
    page->loader()->waitForIdle();
    QTRY_VERIFY_WITH_TIMEOUT(page->view()->cloudGeometry() != nullptr, 60000);
    const auto& g = *page->view()->cloudGeometry();
    QVERIFY(g.n <= 200000);
    QCOMPARE(g.total, int64_t(600000000));
    QVERIFY2(page->view()->captionText().contains(
                 QStringLiteral("Showing 200,000 of 600,000,000 points")),
             qPrintable(page->view()->captionText()));
    // The sample's points are the full set's: point i of the sample is point sourceIndex[i].
    const std::vector<int64_t> pick{(*g.sourceIndex)[5]};
    const clustering::PointSet one = clustering::generatePointsAt(
        file.runs[0].request.section<ClusteringProblem>(), file.runs[0].request.seed, pick);
    for (int j = 0; j < 3; ++j)
      QCOMPARE((*g.values)[5 * 3 + j], one.values[static_cast<size_t>(j)]);
  }
};

QTEST_MAIN(TstHostileResults)
#include "tst_hostile_results.moc"
