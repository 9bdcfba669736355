// SPDX-License-Identifier: MIT
// The worker thread: cancel stops a long run between launches, a superseded run's result is
// dropped (but kept in the history), and bad input fails without a result.
#include <QDir>
#include <QSignalSpy>
#include <QtTest>

#include "app_types.h"
#include "kernellab/clustering_request.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"
#include "run_coordinator.h"
#include "window_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

class TstRunController : public QObject {
  Q_OBJECT
  QString dir_;

 private slots:
  void initTestCase() {
    registerMetaTypes();
    dir_ = kltest::tempPath(QStringLiteral("run_controller_history"));
    QDir(dir_).removeRecursively();
  }

  void cancelStopsALongRun() {
    RunCoordinator c(dir_);
    RunRequest r = kltest::smallTranspose(4096);
    r.repetitions = 100000;  // minutes of work on the CPU: only a cancel ends it in time
    // The copy ceiling's memcpy loop does not look at the cancel flag (gpu/ code): keep it out.
    r.measureCeilings = false;
    QSignalSpy progress(&c, &RunCoordinator::progress);
    QSignalSpy cancelled(&c, &RunCoordinator::cancelled);
    QSignalSpy stored(&c, &RunCoordinator::stored);
    QSignalSpy settled(&c, &RunCoordinator::settled);
    c.start(r);
    QVERIFY(c.running());
    // Wait until it is timing variants, then cancel.
    QTRY_VERIFY_WITH_TIMEOUT(
        std::any_of(progress.begin(), progress.end(),
                    [](const QList<QVariant>& a) { return a.at(0).toString().startsWith(QLatin1String("running")); }),
        60000);
    c.cancel();
    QVERIFY(cancelled.wait(60000) || cancelled.count() == 1);
    QCOMPARE(cancelled.count(), 1);
    QCOMPARE(settled.count(), 1);
    QVERIFY(!c.running());
    QCOMPARE(stored.count(), 0);
  }


  // Issue 14, item 9: progress moves with the work (repetitions, iterations), never backwards.
  void progressMovesWithTheWork() {
    RunCoordinator c(dir_);
    RunRequest r;
    r.family = clustering::kKMeans;
    r.variants = {"shared-coalesced", "global-interleaved"};
    r.section<ClusteringProblem>().n = 20000;
    r.section<ClusteringProblem>().k = 8;
    r.section<ClusteringProblem>().d = 16;
    r.section<ClusteringProblem>().maxIterations = 15;
    r.section<ClusteringProblem>().epsilon = 0;
    r.repetitions = 3;
    r.warmup = 1;
    r.backend = BackendChoice::Cpu;
    QSignalSpy progress(&c, &RunCoordinator::progress);
    QSignalSpy settled(&c, &RunCoordinator::settled);
    c.start(r);
    QVERIFY(settled.wait(240000));
    QVector<double> fractions;
    QStringList stages;
    for (const auto& args : progress) {
      stages << args.at(0).toString();
      fractions << args.at(1).toDouble();
    }
    QVERIFY2(fractions.size() >= 8, qPrintable(stages.join(QStringLiteral(" | "))));
    for (int i = 1; i < fractions.size(); ++i)
      QVERIFY2(fractions[i] >= fractions[i - 1], qPrintable(QStringLiteral("%1 after %2: %3").arg(fractions[i]).arg(fractions[i - 1]).arg(stages[i])));
    // Within a variant the stage names the repetition and the iteration.
    QVERIFY2(std::any_of(stages.begin(), stages.end(),
                         [](const QString& t) { return t.contains(QStringLiteral("repetition")) && t.contains(QStringLiteral("iteration")); }),
             qPrintable(stages.join(QStringLiteral(" | "))));
    // Both variants had their share: some report falls in the first half, some in the second.
    QVERIFY(std::any_of(fractions.begin(), fractions.end(), [](double f) { return f > 0.1 && f < 0.5; }));
    QVERIFY(std::any_of(fractions.begin(), fractions.end(), [](double f) { return f > 0.55 && f < 1.0; }));
  }

  // Issue 14, item 9: KNN's progress went 2 % -> 10 % -> 2 % -> 6 % (each variant restarted the
  // bar with its reference stage). Every stage of every variant now moves it forward only.
  void knnProgressNeverGoesBack() {
    RunCoordinator c(dir_);
    RunRequest r;
    r.family = knn::kFamily;
    r.variants = {"all"};
    // The seed's image (377 x 329, window 14, K = 8): long enough on the CPU for several reports.
    r.repetitions = 3;
    r.warmup = 1;
    r.backend = BackendChoice::Cpu;
    QSignalSpy progress(&c, &RunCoordinator::progress);
    QSignalSpy settled(&c, &RunCoordinator::settled);
    QSignalSpy stored(&c, &RunCoordinator::stored);
    QSignalSpy failed(&c, &RunCoordinator::failed);
    c.start(r);
    QVERIFY(settled.wait(240000));
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().at(0).toString()));
    QCOMPARE(stored.count(), 1);
    QVector<double> fractions;
    QStringList stages;
    for (const auto& args : progress) {
      stages << args.at(0).toString();
      fractions << args.at(1).toDouble();
    }
    QVERIFY2(fractions.size() >= 6, qPrintable(stages.join(QStringLiteral(" | "))));
    for (int i = 1; i < fractions.size(); ++i)
      QVERIFY2(fractions[i] >= fractions[i - 1],
               qPrintable(QStringLiteral("%1 after %2: %3").arg(fractions[i]).arg(fractions[i - 1]).arg(stages[i])));
    // Spread over the run, not bunched at its start or end.
    QVERIFY(std::any_of(fractions.begin(), fractions.end(), [](double f) { return f > 0.2 && f < 0.8; }));
  }

  void aSupersededRunIsDropped() {
    RunCoordinator c(dir_);
    RunRequest slow = kltest::smallTranspose(4096);
    slow.repetitions = 100000;
    slow.measureCeilings = false;
    QSignalSpy stored(&c, &RunCoordinator::stored);
    QSignalSpy cancelled(&c, &RunCoordinator::cancelled);
    QSignalSpy settled(&c, &RunCoordinator::settled);
    const quint64 first = c.start(slow);
    const quint64 second = c.start(kltest::smallTranspose(128));  // the live toggle does this
    QVERIFY(second > first);
    QVERIFY(settled.wait(120000));
    QTRY_VERIFY_WITH_TIMEOUT(!c.running(), 60000);
    // The only run reported as current is the second, small one.
    int current = 0;
    for (const auto& args : stored)
      if (args.at(2).toBool()) {
        ++current;
        const auto file = args.at(0).value<ResultsPtr>();
        QCOMPARE(file->runs.front().request.section<TransposeProblem>().width, int64_t(128));
        QVERIFY(QFile::exists(args.at(1).toString()));
      }
    QCOMPARE(current, 1);
    QCOMPARE(cancelled.count(), 0);  // the first one's cancel is not the window's business
    QCOMPARE(settled.count(), 1);
  }

  void badInputFailsWithoutAResult() {
    RunCoordinator c(dir_);
    RunRequest r = kltest::smallTranspose();
    r.section<TransposeProblem>().tile = 24;  // not 16 or 32
    QSignalSpy failed(&c, &RunCoordinator::failed);
    QSignalSpy stored(&c, &RunCoordinator::stored);
    c.start(r);
    QVERIFY(failed.wait(30000));
    QVERIFY(failed.first().at(0).toString().contains(QStringLiteral("--tile 24")));
    QCOMPARE(failed.first().at(1).toBool(), true);
    QCOMPARE(stored.count(), 0);
  }

  void theBackendIsProbedOnTheWorker() {
    RunCoordinator c(dir_);
    QSignalSpy probed(&c, &RunCoordinator::backendChanged);
    QVERIFY(probed.wait(30000));
    const QString summary = probed.first().at(0).toString();
    QVERIFY(summary.startsWith(QLatin1String("CUDA: ")) || summary.startsWith(QLatin1String("CPU: ")));
  }
};

QTEST_MAIN(TstRunController)
#include "tst_run_controller.moc"
