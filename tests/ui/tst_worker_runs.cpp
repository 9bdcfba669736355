// SPDX-License-Identifier: MIT
// Runs in worker processes on this machine and through a command template: results, live
// k-means iterations, sweeps over several workers, Cancel that ends the worker within a second,
// a killed worker, another protocol version, a GPU fault (emulated on the CPU), a stand-in srun.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "kernellab/experiment.h"
#include "kernellab/worker_protocol.h"
#include "targets.h"
#include "test_support.h"
#include "worker_test_support.h"

using namespace kernellab;
using namespace kernellab::app;

class TstWorkerRuns : public QObject {
  Q_OBJECT
  QString dir_;
  QTemporaryDir tmp_;

  TargetList local(int sweepWorkers = 0) {
    TargetList list;
    Target t = *list.find(kLocalTargetName);
    t.sweepWorkers = sweepWorkers;
    list.put(t);
    return list;
  }

 private slots:
  void initTestCase() {
    registerMetaTypes();
    dir_ = kltest::tempPath(QStringLiteral("worker_runs_history"));
    QDir(dir_).removeRecursively();
    QVERIFY2(!localCliPath().isEmpty(), "the build's kernellab-cli is found");
  }

  void aTransposeRunsInAWorker() {
    RunCoordinator c(dir_);
    c.setTargets(local());
    QVERIFY(c.usingWorkers());
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(256));
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QVERIFY(QFile::exists(o.path));
    const RunResult& run = o.file->runs.front();
    QVERIFY2(run.ok, run.message.c_str());
    QCOMPARE(run.variants.size(), size_t(5));
    for (const auto& v : run.variants) QVERIFY(v.verification.passed);
    QCOMPARE(QString::fromStdString(run.backend), QStringLiteral("cpu"));
    // The worker stays for the next run (no start-up per run); the next run uses it.
    const auto workers = c.workers()->workers();
    QCOMPARE(workers.size(), 1);
    const qint64 pid = workers.front()->hello().pid;
    QCOMPARE(kltest::runAndWait(c, kltest::smallTranspose(64)).kind, QStringLiteral("stored"));
    QCOMPARE(c.workers()->workers().front()->hello().pid, pid);
  }

  void kmeansIterationsArriveLive() {
    RunCoordinator c(dir_);
    c.setTargets(local());
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallKMeans(20000));
    QCOMPARE(o.kind, QStringLiteral("stored"));
    const auto& v = o.file->runs.front().variants.front();
    QVERIFY(o.iterations >= 2);
    QCOMPARE(o.iterations, static_cast<int>(v.iterations.size()));  // every record, in order
    QVERIFY(o.liveLabels >= 1);
    QCOMPARE(o.labelsSize, size_t(20000));
    QCOMPARE(v.detail<ClusteringOutput>()->labels.size(), size_t(20000));
  }

  void aSweepSpreadsOverWorkersInOrder() {
    RunCoordinator c(dir_);
    c.setTargets(local(2));
    const SweepAxes axes{{"tpb", {"64", "128", "256", "512", "1024"}}};
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(128), axes);
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QCOMPARE(o.file->runs.size(), size_t(5));
    QCOMPARE(o.file->sweep.size(), size_t(1));
    const int expected[] = {64, 128, 256, 512, 1024};
    for (int i = 0; i < 5; ++i) {
      QCOMPARE(o.file->runs[static_cast<size_t>(i)].request.launch.threadsPerBlock, expected[i]);
      QVERIFY(o.file->runs[static_cast<size_t>(i)].ok);
    }
    QCOMPARE(c.workers()->lastSlots(), QStringLiteral("This machine, This machine"));
    QCOMPARE(c.workers()->workers().size(), 2);
    QVERIFY(std::any_of(o.stages.begin(), o.stages.end(), [](const QString& s) {
      return s.contains(QLatin1String("points done on 2 workers"));
    }));
    // A point the request checks refuse is a skipped run, as in-process.
    const kltest::Outcome bad =
        kltest::runAndWait(c, kltest::smallTranspose(128), {{"tpb", {"256", "2048"}}});
    QCOMPARE(bad.kind, QStringLiteral("stored"));
    QVERIFY(bad.file->runs[0].ok);
    QVERIFY(!bad.file->runs[1].ok);
    QVERIFY(
        QString::fromStdString(bad.file->runs[1].message).startsWith(QStringLiteral("skipped:")));
  }

  void sweepSlotsFollowTheGpus() {
    TargetList list;
    Target gpu;
    gpu.name = QStringLiteral("gpu-box");
    gpu.kind = Target::Kind::Ssh;
    gpu.host = QStringLiteral("gpu-box");
    list.put(gpu);
    Target other = gpu;
    other.name = QStringLiteral("laptop-peer");
    other.shareSweeps = true;
    list.put(other);
    Target idle = gpu;
    idle.name = QStringLiteral("not-shared");
    list.put(idle);
    list.setCurrent(QStringLiteral("gpu-box"));
    auto gpus = [](const QString& name) { return name == QLatin1String("gpu-box") ? 4 : 0; };
    auto plan = planSweepSlots(list, gpus);
    QCOMPARE(plan.size(), size_t(5));  // one per GPU, then the sharing CPU-only target
    for (int i = 0; i < 4; ++i) {
      QCOMPARE(plan[static_cast<size_t>(i)].target, QStringLiteral("gpu-box"));
      QCOMPARE(plan[static_cast<size_t>(i)].gpu, i);
    }
    QCOMPARE(plan[4].target, QStringLiteral("laptop-peer"));
    QCOMPARE(plan[4].gpu, -1);
    gpu.sweepWorkers = 3;
    list.put(gpu);
    plan = planSweepSlots(list,
                          [](const QString& n) { return n == QLatin1String("gpu-box") ? 2 : 0; });
    QCOMPARE(plan[0].gpu, 0);
    QCOMPARE(plan[1].gpu, 1);
    QCOMPARE(plan[2].gpu, 0);
    // One GPU, one worker: it keeps the default device (no CUDA_VISIBLE_DEVICES).
    gpu.sweepWorkers = 0;
    list.put(gpu);
    plan = planSweepSlots(list,
                          [](const QString& n) { return n == QLatin1String("gpu-box") ? 1 : 0; });
    QCOMPARE(plan[0].gpu, -1);
  }

  void cancelEndsTheWorkerWithinASecond() {
    RunCoordinator c(dir_);
    c.setTargets(local());
    QSignalSpy cancelled(&c, &RunCoordinator::cancelled);
    c.start(kltest::longTranspose());
    QVERIFY(kltest::waitUntilRunning(c));
    const QList<qint64> pids = kltest::busyWorkerPids(c);
    QCOMPARE(pids.size(), 1);
    c.cancel();
    const qint64 gone = kltest::msUntilGone(pids);
    qInfo("MEASURE cancel (this machine): worker gone %lld ms after Cancel",
          static_cast<long long>(gone));
    QVERIFY2(gone >= 0 && gone < 1000, qPrintable(QString::number(gone)));
    QVERIFY(cancelled.wait(5000) || cancelled.count() == 1);
    QVERIFY(!c.running());
    // The next run starts a fresh worker and works.
    QCOMPARE(kltest::runAndWait(c, kltest::smallTranspose(64)).kind, QStringLiteral("stored"));
  }

  void aKilledWorkerGivesAClearMessage() {
    RunCoordinator c(dir_);
    c.setTargets(local());
    const kltest::Outcome first = kltest::runAndWait(c, kltest::smallTranspose(64));
    QCOMPARE(first.kind, QStringLiteral("stored"));
    QSignalSpy failed(&c, &RunCoordinator::failed);
    c.start(kltest::longTranspose());
    QVERIFY(kltest::waitUntilRunning(c));
    const QList<qint64> pids = kltest::busyWorkerPids(c);
    QCOMPARE(pids.size(), 1);
    ::kill(static_cast<pid_t>(pids.front()), SIGKILL);  // as the out-of-memory killer would
    QVERIFY(failed.wait(10000));
    const QString m = failed.first().at(0).toString();
    QVERIFY2(m.contains(QStringLiteral("killed")) && m.contains(kLocalTargetName), qPrintable(m));
    QVERIFY(QFile::exists(first.path));  // the run before is kept
    QCOMPARE(kltest::runAndWait(c, kltest::smallTranspose(64)).kind, QStringLiteral("stored"));
  }

  void anotherProtocolVersionIsNamed() {
    qputenv(worker::kProtocolOverrideEnv, "99");
    RunCoordinator c(dir_);
    c.setTargets(local());
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(64));
    qunsetenv(worker::kProtocolOverrideEnv);
    QCOMPARE(o.kind, QStringLiteral("failed"));
    QVERIFY2(o.message.contains(QStringLiteral("protocol 99")) &&
                 o.message.contains(QStringLiteral("protocol 1")) &&
                 o.message.contains(QString::fromStdString(toolVersion())),
             qPrintable(o.message));
  }

  void aGpuFaultIsReportedAndTheNextRunWorks() {
    if (kltest::cudaUnavailableReason().isEmpty())
      QSKIP("a GPU works here: tst_worker_runs checks the CPU emulation");
    // Set before the coordinator starts its first worker (which inherits it).
    qputenv(worker::kFaultEnv, "padded");
    RunCoordinator c(dir_);
    c.setTargets(local());
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(128));
    qunsetenv(worker::kFaultEnv);
    QCOMPARE(o.kind, QStringLiteral("failed"));
    QVERIFY2(o.message.contains(QStringLiteral("emulated GPU fault in variant 'padded'")),
             qPrintable(o.message));
    const kltest::Outcome next = kltest::runAndWait(c, kltest::smallTranspose(128));
    QCOMPARE(next.kind, QStringLiteral("stored"));
    QVERIFY(next.file->runs.front().ok);
  }

  void aCommandTemplateRunsThroughAStandInSrun() {
    // A stand-in for Slurm's srun: notes its options and environment, then runs the command.
    const QString srun = tmp_.filePath(QStringLiteral("srun"));
    const QString log = tmp_.filePath(QStringLiteral("srun.log"));
    QFile f(srun);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QStringLiteral("#!/bin/sh\necho \"srun $*\" >> '%1'\nwhile [ $# -gt 0 ]; do case "
                           "\"$1\" in --*) shift;; *) break;; esac; done\nexec \"$@\"\n")
                .arg(log)
                .toUtf8());
    f.close();
    f.setPermissions(f.permissions() | QFile::ExeOwner);
    TargetList list;
    Target t;
    t.name = QStringLiteral("cluster");
    t.kind = Target::Kind::Command;
    t.launch = srun + QStringLiteral(" --gres=gpu:1 --time=10 {cli}");
    list.put(t);
    list.setCurrent(t.name);
    RunCoordinator c(dir_);
    c.setTargets(list);
    QCOMPARE(c.targetLabel(), QStringLiteral("cluster (command)"));
    const kltest::Outcome o = kltest::runAndWait(c, kltest::smallTranspose(128));
    QCOMPARE(o.kind, QStringLiteral("stored"));
    QVERIFY(o.file->runs.front().ok);
    QFile l(log);
    QVERIFY(l.open(QIODevice::ReadOnly));
    const QString said = QString::fromUtf8(l.readAll());
    QVERIFY2(said.contains(QStringLiteral("srun --gres=gpu:1 --time=10 ")) &&
                 said.contains(QStringLiteral("worker --lifeline")),
             qPrintable(said));
    // Cancel through the scheduler's client: TERM to its group, the worker ends.
    c.start(kltest::longTranspose());
    QVERIFY(kltest::waitUntilRunning(c));
    const QList<qint64> pids = kltest::busyWorkerPids(c);
    c.cancel();
    const qint64 gone = kltest::msUntilGone(pids);
    QVERIFY2(gone >= 0 && gone < 1000, qPrintable(QString::number(gone)));
  }

  void anUnknownTargetIsBadInput() {
    QProcess app;
    QProcessEnvironment e = QProcessEnvironment::systemEnvironment();
    e.insert(QStringLiteral("XDG_CONFIG_HOME"), tmp_.filePath(QStringLiteral("config")));
    app.setProcessEnvironment(e);
    app.start(QStringLiteral(KERNELLAB_APP_PATH),
              {QStringLiteral("--history-dir"), tmp_.filePath(QStringLiteral("h")),
               QStringLiteral("--target"), QStringLiteral("nowhere"), QStringLiteral("--quit")});
    QVERIFY(app.waitForFinished(60000));
    QCOMPARE(app.exitCode(), 2);
    QVERIFY(QString::fromUtf8(app.readAllStandardError())
                .contains(QStringLiteral("--target nowhere: no such target")));
  }

  // Not a speed test (nothing asserted): a small transpose in-process and in a local worker,
  // measured in the same run for docs/BENCHMARKS.md ("Worker stream").
  void measureTheWorkerOverhead() {
    RunRequest r = kltest::smallTranspose(256);
    r.variants = {"tiled"};
    r.repetitions = 3;
    auto median = [](QVector<qint64> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    RunCoordinator inProcess(dir_);
    QVector<qint64> a, b, fresh;
    for (int i = 0; i < 7; ++i) a << kltest::runAndWait(inProcess, r).ms;
    RunCoordinator worker(dir_);
    worker.setTargets(local());
    kltest::runAndWait(worker, r);  // the worker starts once
    for (int i = 0; i < 7; ++i) b << kltest::runAndWait(worker, r).ms;
    for (int i = 0; i < 5; ++i) {
      RunCoordinator once(dir_);
      once.setTargets(local());
      fresh << kltest::runAndWait(once, r).ms;
    }
    qInfo(
        "MEASURE small transpose (256x256, tiled, 3 reps, CPU), median of runs: in-process %lld "
        "ms, "
        "local worker (warm) %lld ms, local worker started for the run %lld ms",
        static_cast<long long>(median(a)), static_cast<long long>(median(b)),
        static_cast<long long>(median(fresh)));
  }
};

QTEST_MAIN(TstWorkerRuns)
#include "tst_worker_runs.moc"
