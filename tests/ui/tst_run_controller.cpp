// SPDX-License-Identifier: MIT
// The worker thread: cancel stops a long run between launches, a superseded run's result is
// dropped (but kept in the history), and bad input fails without a result.
#include <QDir>
#include <QSignalSpy>
#include <QtTest>

#include "app_types.h"
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
        QCOMPARE(file->runs.front().request.transpose.width, int64_t(128));
        QVERIFY(QFile::exists(args.at(1).toString()));
      }
    QCOMPARE(current, 1);
    QCOMPARE(cancelled.count(), 0);  // the first one's cancel is not the window's business
    QCOMPARE(settled.count(), 1);
  }

  void badInputFailsWithoutAResult() {
    RunCoordinator c(dir_);
    RunRequest r = kltest::smallTranspose();
    r.launch.tile = 24;  // not 16 or 32
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
