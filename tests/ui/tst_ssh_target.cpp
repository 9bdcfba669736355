// SPDX-License-Identifier: MIT
// An SSH target end to end, through a real sshd this suite starts on 127.0.0.1 (loopback_sshd.h):
// the probe, a transpose, k-means with live labels, a sweep, a user's CSV copied once, Cancel
// (the remote worker gone within a second), another protocol version, the window itself (add a
// target, run, export charts), a million-label result measured, and sshd killed mid-run.
#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "experiment_panel.h"
#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/transpose.h"
#include "main_window.h"
#include "targets.h"
#include "targets_control.h"
#include "worker_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

class TstSshTarget : public QObject {
  Q_OBJECT
  kltest::LoopbackSshd sshd_;
  QString dir_;
  QTemporaryDir tmp_;

  Target sshTarget(const QString& cli = QStringLiteral(KERNELLAB_CLI_PATH)) const {
    Target t;
    t.name = QStringLiteral("loopback");
    t.kind = Target::Kind::Ssh;
    t.host = sshd_.alias();
    t.sshOptions = sshd_.sshOptions();
    t.cliPath = cli;
    return t;
  }
  TargetList list(const Target& t) const {
    TargetList l;
    l.put(t);
    l.setCurrent(t.name);
    return l;
  }
  void waitProbed(RunCoordinator& c, const QString& name) {
    QTRY_VERIFY_WITH_TIMEOUT(c.workers()->info(name).ok || !c.workers()->info(name).error.isEmpty(),
                             60000);
  }

 private slots:
  void initTestCase() {
    kltest::isolateAppDirs(QStringLiteral("tst_ssh_target"));
    registerMetaTypes();
    QString why;
    // Without openssh-server the suite cannot run (scripts/install-deps.sh installs it: CI has
    // it); installed but not starting is a failure.
    if (!kltest::LoopbackSshd::installed())
      QSKIP("no sshd: install openssh-server (scripts/install-deps.sh)");
    if (!sshd_.start(&why))
      QFAIL(qPrintable(QStringLiteral("the loopback sshd did not start: ") + why));
    dir_ = kltest::tempPath(QStringLiteral("ssh_target_history"));
    QDir(dir_).removeRecursively();
  }

  void theProbeNamesVersionsAndDevices() {
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget()));
    QVERIFY(c.usingWorkers());
    waitProbed(c, QStringLiteral("loopback"));
    const TargetInfo info = c.workers()->info(QStringLiteral("loopback"));
    QVERIFY2(info.ok, qPrintable(info.error));
    QCOMPARE(info.hello.tool, QString::fromStdString(toolVersion()));
    QVERIFY(info.hello.status.cpu.smCount > 0);
    QVERIFY(c.backendSummary().startsWith(QLatin1String("CPU: ")) ||
            c.backendSummary().startsWith(QLatin1String("CUDA: ")));
    QCOMPARE(c.targetLabel(), QStringLiteral("loopback (SSH)"));
  }

  void anUnreachableHostSaysSo() {
    Target t = sshTarget();
    t.name = QStringLiteral("nowhere");
    t.host = QStringLiteral("127.0.0.1");
    t.port = kltest::freeLoopbackPort();
    t.sshOptions = QStringLiteral("-F /dev/null -o UserKnownHostsFile=/dev/null");
    RunCoordinator c(dir_);
    c.setTargets(list(t));
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(64), {}, 60000);
    QCOMPARE(o.kind, QStringLiteral("failed"));
    QVERIFY2(o.message.contains(QStringLiteral("Cannot reach nowhere (SSH)")),
             qPrintable(o.message));
  }

  void aTransposeRunsOverSsh() {
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget()));
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(256));
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QVERIFY(o.file->runs.front().ok);
    QCOMPARE(o.file->runs.front().variants.size(), size_t(5));
  }

  void kmeansConvergesLiveOverSsh() {
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget()));
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallKMeans(50000));
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QVERIFY(o.iterations >= 2);
    QCOMPARE(o.iterations,
             static_cast<int>(o.file->runs.front().variants.front().iterations.size()));
    QVERIFY(o.liveLabels >= 1);
    QCOMPARE(o.labelsSize, size_t(50000));
  }

  void aSweepRunsOverSshOnTwoWorkers() {
    Target t = sshTarget();
    t.sweepWorkers = 2;
    RunCoordinator c(dir_);
    c.setTargets(list(t));
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(128),
                                                 {{"tile", {"16", "32"}}, {"tpb", {"256", "512"}}});
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QCOMPARE(o.file->runs.size(), size_t(4));
    // First axis outermost, as in-process.
    QCOMPARE(o.file->runs[1].request.section<TransposeProblem>().tile, 16);
    QCOMPARE(o.file->runs[1].request.launch.threadsPerBlock, 512);
    QCOMPARE(o.file->runs[2].request.section<TransposeProblem>().tile, 32);
    QCOMPARE(c.workers()->lastSlots(), QStringLiteral("loopback, loopback"));
  }

  void aUsersFileIsCopiedOnce() {
    // The loopback target's cache is this machine's ~/.cache/kernellab/inputs: a row of this run's
    // own makes the content new, and the copies are removed at the end.
    const QString csv = tmp_.filePath(QStringLiteral("iris-copy.csv"));
    QVERIFY(QFile::copy(QStringLiteral(KERNELLAB_TEST_DATA_DIR "/iris.csv"), csv));
    QFile::setPermissions(csv, QFile::ReadOwner | QFile::WriteOwner);
    auto appendRow = [&] {
      QFile f(csv);
      QVERIFY(f.open(QIODevice::Append));
      f.write(QStringLiteral("5.0,3.3,1.4,%1\n")
                  .arg(QDateTime::currentMSecsSinceEpoch() % 100000 / 1e5)
                  .toUtf8());
    };
    QStringList copies;
    auto remember = [&] {
      QFile f(csv);
      f.open(QIODevice::ReadOnly);
      copies << QDir::home().filePath(
          QStringLiteral(".cache/kernellab/inputs/%1.csv")
              .arg(QString::fromLatin1(
                  QCryptographicHash::hash(f.readAll(), QCryptographicHash::Sha256).toHex())));
    };
    appendRow();
    remember();
    RunRequest r = kltest::smallKMeans();
    r.section<ClusteringProblem>().inputPath = csv.toStdString();
    r.section<ClusteringProblem>().k = 3;
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget()));
    kltest::Outcome o = kltest::runAndWait(c, r);
    QVERIFY2(o.kind == QStringLiteral("stored"), qPrintable(o.message));
    QVERIFY2(o.file->runs.front().ok, o.file->runs.front().message.c_str());
    QCOMPARE(c.workers()->uploads(), 1);
    QVERIFY(QFile::exists(copies.back()));
    // The run names the user's file, not the copy on the target, and the file's real size.
    QCOMPARE(
        QString::fromStdString(o.file->runs.front().request.section<ClusteringProblem>().inputPath),
        csv);
    QCOMPARE(o.file->runs.front().request.section<ClusteringProblem>().n, int64_t(151));
    o = kltest::runAndWait(c, r);
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QCOMPARE(c.workers()->uploads(), 1);  // the same content: not copied again
    appendRow();
    remember();
    o = kltest::runAndWait(c, r);
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QCOMPARE(c.workers()->uploads(), 2);  // changed content: copied again
    QCOMPARE(o.file->runs.front().request.section<ClusteringProblem>().n, int64_t(152));
    for (const QString& p : copies) QFile::remove(p);
  }

  void cancelEndsTheRemoteWorkerWithinASecond() {
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget()));
    QSignalSpy cancelled(&c, &RunCoordinator::cancelled);
    c.start(kltest::longTranspose());
    QVERIFY(kltest::waitUntilRunning(c));
    const QList<qint64> pids =
        kltest::busyWorkerPids(c);  // remote pids: this machine, over loopback
    QCOMPARE(pids.size(), 1);
    c.cancel();
    const qint64 gone = kltest::msUntilGone(pids);
    qInfo("MEASURE cancel (SSH): remote worker gone %lld ms after Cancel",
          static_cast<long long>(gone));
    QVERIFY2(gone >= 0 && gone < 1000, qPrintable(QString::number(gone)));
    QVERIFY(cancelled.count() == 1 || cancelled.wait(5000));
    QCOMPARE(kltest::runAndWait(c, kltest::smallTranspose(64)).kind, QStringLiteral("stored"));
  }

  void anotherProtocolVersionOverSsh() {
    // A CLI that announces protocol 99: a stub in front of the real one.
    const QString stub = tmp_.filePath(QStringLiteral("kernellab-cli-v99"));
    QFile f(stub);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("#!/bin/sh\nKERNELLAB_WORKER_PROTOCOL=99 exec '%1' \"$@\"\n")
                .arg(QStringLiteral(KERNELLAB_CLI_PATH))
                .toUtf8());
    f.close();
    f.setPermissions(f.permissions() | QFile::ExeOwner);
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget(stub)));
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(64), {}, 60000);
    QCOMPARE(o.kind, QStringLiteral("failed"));
    QVERIFY2(o.message.contains(QStringLiteral("protocol 99")) &&
                 o.message.contains(QStringLiteral("protocol 1")) &&
                 o.message.contains(QStringLiteral("loopback (SSH)")),
             qPrintable(o.message));
  }

  void theWindowRunsOnAnSshTarget() {
    const QString history = kltest::tempPath(QStringLiteral("ssh_window_history"));
    QDir(history).removeRecursively();
    MainWindow w(history);
    w.resize(1400, 900);
    w.show();
    QCOMPARE(w.targets()->put(sshTarget()), QString());
    QVERIFY(w.selectTarget(QStringLiteral("loopback")));
    QTRY_VERIFY_WITH_TIMEOUT(
        w.backendText().startsWith(QStringLiteral("loopback (SSH) \u00b7 Backend: CPU")), 60000);
    RunRequest r = kltest::smallKMeans(30000);
    r.backend = BackendChoice::Auto;
    w.panel()->setRequest(r);
    int live = 0;
    connect(w.coordinator(), &RunCoordinator::iteration, this,
            [&](const LiveIteration& it) { live += it.current ? 1 : 0; });
    QSignalSpy settled(&w, &MainWindow::runSettled);
    QVERIFY(w.startRun());
    QVERIFY(settled.wait(120000));
    QVERIFY2(settled.first().at(0).toBool(), qPrintable(settled.first().at(1).toString()));
    QVERIFY(live >= 1);
    QVERIFY(w.stageText().startsWith(QStringLiteral("Done")));
    QCOMPARE(w.selection().runs.size(), 1);
    QTemporaryDir out;
    QStringList written;
    QVERIFY(w.exportCharts(out.path(), QSize(800, 500), &written));
    QVERIFY(written.size() > 5);
    // The history says where the run ran.
    QVERIFY(QFile(QDir(history).filePath(QStringLiteral("index.json"))).open(QIODevice::ReadOnly));
  }

  // Not a speed test (nothing asserted about time): a million-point k-means result, labels
  // included, from the worker's send to decoded and checked in the window, over this loopback
  // SSH target and from a local worker, measured in the same run (docs/BENCHMARKS.md).
  void measureAMillionLabelsOverSsh() {
    RunRequest r = kltest::smallKMeans(1000000);
    r.section<ClusteringProblem>().maxIterations = 3;
    r.verify = false;
    double ssh = 0, local = 0;
    {
      RunCoordinator c(dir_);
      c.setTargets(list(sshTarget()));
      const kltest::Outcome o = kltest::runAndWait(c, r, {}, 600000);
      QCOMPARE(o.kind, QStringLiteral("stored"));
      QCOMPARE(o.file->runs.front().variants.front().detail<ClusteringOutput>()->labels.size(),
               size_t(1000000));
      ssh = c.workers()->lastResultTransferMs();
    }
    {
      RunCoordinator c(dir_);
      TargetList l;
      c.setTargets(l);
      const kltest::Outcome o = kltest::runAndWait(c, r, {}, 600000);
      QCOMPARE(o.kind, QStringLiteral("stored"));
      local = c.workers()->lastResultTransferMs();
    }
    qInfo(
        "MEASURE 1e6-point k-means result (labels included): sent -> decoded and checked in %.0f "
        "ms over the "
        "loopback SSH target, %.0f ms from a local worker",
        ssh, local);
    QVERIFY(ssh > 0);
  }

  // Last: it takes the server down.
  void aLostConnectionGivesAClearMessage() {
    RunCoordinator c(dir_);
    c.setTargets(list(sshTarget()));
    const kltest::Outcome first = kltest::runAndWait(c, kltest::smallTranspose(64));
    QCOMPARE(first.kind, QStringLiteral("stored"));
    QSignalSpy failed(&c, &RunCoordinator::failed);
    c.start(kltest::longTranspose());
    QVERIFY(kltest::waitUntilRunning(c));
    const QList<qint64> pids = kltest::busyWorkerPids(c);
    sshd_.killAll();
    QVERIFY(failed.wait(30000));
    const QString m = failed.first().at(0).toString();
    QVERIFY2(m.contains(QStringLiteral("connection to loopback (SSH) was lost")), qPrintable(m));
    QVERIFY(QFile::exists(first.path));
    // The remote worker does not outlive its connection (stdin closed: --lifeline).
    const qint64 gone = kltest::msUntilGone(pids);
    QVERIFY2(gone >= 0 && gone < 1000, qPrintable(QString::number(gone)));
  }
};

QTEST_MAIN(TstSshTarget)
#include "tst_ssh_target.moc"
