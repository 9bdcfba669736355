// SPDX-License-Identifier: MIT
// kernellab-cli against a hostile user (issue 16): numbers that used to wrap or silently become
// defaults, output paths that used to fail after the whole run, inputs that are not regular
// files, an address-space limit, and kill -9 in the middle of writing --json.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QThread>
#include <QtTest>

#include "test_support.h"

using kltest::runCli;

namespace {

QByteArray readAll(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

bool parsesAsResults(const QByteArray& bytes) {
  const QJsonDocument doc = QJsonDocument::fromJson(bytes);
  return doc.isObject() && doc.object().value("kind").toString() == "kernellab-results";
}

QStringList tempsOf(const QString& dir, const QString& name) {
  return QDir(dir).entryList({"." + name + ".kltmp-*"}, QDir::Files | QDir::Hidden);
}

// True once a new writer's temporary file holds data (`before`: what earlier, killed writers
// left): the CLI is inside the write.
bool writing(const QString& dir, const QString& name, const QStringList& before) {
  for (const QString& t : tempsOf(dir, name))
    if (!before.contains(t) && QFileInfo(QDir(dir).filePath(t)).size() > 0) return true;
  return false;
}

}  // namespace

class TstCliHostile : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  // A run whose --json is several megabytes: 300000 labels of one k-means variant.
  QStringList bigRun(const QString& json) const {
    return {"run",    "kmeans",    "--n",      "300000",      "--k",
            "2",      "--d",       "1",        "--variant",   "shared-coalesced",
            "--reps", "1",         "--warmup", "0",           "--max-iter",
            "1",      "--backend", "cpu",      "--no-verify", "--json",
            json};
  }

 private slots:
  void numbersAreRefusedNotWrapped_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    // Each of these used to run: with 256 threads, K = 2, 377 rows, or a default.
    QTest::newRow("tpb 2^32+256") << QStringList{"run", "transpose", "--tpb", "4294967552"}
                                  << "--tpb 4294967552 is above the limit 2147483647";
    QTest::newRow("k 2^32+2") << QStringList{"run", "kmeans", "--k", "4294967298"}
                              << "--k 4294967298 is above the limit 2147483647";
    QTest::newRow("image rows")
        << QStringList{"run", "knn", "--image", "4294967673x329"}
        << "--image 4294967673x329: 4294967673 is above the limit 2147483647";
    QTest::newRow("max-iter -1") << QStringList{"run", "kmeans", "--max-iter", "-1"}
                                 << "--max-iter -1 is outside 1..1000000";
    QTest::newRow("reps -1") << QStringList{"run", "transpose", "--reps", "-1"}
                             << "--reps -1 is outside 1..100000";
    QTest::newRow("epsilon nan") << QStringList{"run", "kmeans", "--epsilon", "nan"}
                                 << "--epsilon nan is not a finite number";
    QTest::newRow("epsilon -1") << QStringList{"run", "kmeans", "--epsilon", "-1"}
                                << "--epsilon -1 must be a number >= 0";
    QTest::newRow("epsilon 1e-400") << QStringList{"run", "kmeans", "--epsilon", "1e-400"}
                                    << "--epsilon 1e-400 is out of range";
    QTest::newRow("noise nan") << QStringList{"run", "kmeans", "--shape", "blobs", "--noise", "nan"}
                               << "--noise nan is not a finite number";
    QTest::newRow("seed -1") << QStringList{"run", "kmeans", "--seed", "-1"}
                             << "--seed -1 is negative; it must be 0..18446744073709551615";
    QTest::newRow("warmup 2^40") << QStringList{"run", "transpose", "--warmup", "1099511627776"}
                                 << "--warmup 1099511627776 is above the limit 2147483647";
    QTest::newRow("sweep k") << QStringList{"sweep", "kmeans", "--k", "2,4294967298"}
                             << "--k 4294967298 is above the limit";
    QTest::newRow("occupancy tpb") << QStringList{"occupancy", "--tpb", "4294967552"}
                                   << "--tpb 4294967552 is above the limit 2147483647";
    QTest::newRow("bench reps") << QStringList{"bench", "transpose", "--reps", "x"}
                                << "--reps: 'x' is not a whole number";
  }
  void numbersAreRefusedNotWrapped() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    if (args.first() != "occupancy")
      args << "--backend"
           << "cpu";
    const auto r = runCli(args, {}, 60000);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
  }

  void requestFileNumbersAreChecked() {
    const QString req = dir_.filePath("frac.json");
    QFile f(req);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"family":"kmeans","clustering":{"n":100.7,"k":2,"d":2},"backend":"cpu"})");
    f.close();
    const auto r = runCli({"run", "kmeans", "--request", req});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("field 'n': 100.7 is not a whole number"), qPrintable(r.err));
  }

  void outputPathsAreCheckedBeforeTheRun_data() {
    QTest::addColumn<QString>("option");
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("expected");
    QTest::newRow("json dir") << "--json" << dir_.path() << "is a directory";
    QTest::newRow("json /proc") << "--json"
                                << "/proc/x.json"
                                << "cannot create a file in '/proc'";
    QTest::newRow("json no folder")
        << "--json" << dir_.filePath("missing/x.json")
        << "the folder '" + dir_.filePath("missing") + "' does not exist";
    QTest::newRow("csv dir") << "--csv" << dir_.path() << "is a directory";
    QTest::newRow("labels device") << "--labels"
                                   << "/dev/null"
                                   << "is a character device";
  }
  void outputPathsAreCheckedBeforeTheRun() {
    QFETCH(QString, option);
    QFETCH(QString, path);
    QFETCH(QString, expected);
    const auto r =
        runCli({"run", "kmeans", "--n", "2000", "--k", "3", "--backend", "cpu", option, path});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(option + " " + path + ": " + expected), qPrintable(r.err));
    QVERIFY2(!r.out.contains("Backend:"), "the run was made before the refusal");
  }

  void inputsThatAreNotRegularFilesAreRefusedAtOnce() {
    const QString fifo = dir_.filePath("fifo.csv"), fifoNpy = dir_.filePath("fifo.npy"),
                  zero = dir_.filePath("zero.csv");
    QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    QCOMPARE(::mkfifo(fifoNpy.toLocal8Bit().constData(), 0600), 0);
    QCOMPARE(::symlink("/dev/zero", zero.toLocal8Bit().constData()), 0);
    struct Case {
      QStringList args;
      QString expected;
    };
    const Case cases[] = {
        {{"run", "kmeans", "--input", fifo, "--k", "2"}, "is a FIFO (named pipe)"},
        {{"run", "kmeans", "--input", zero, "--k", "2"}, "is a character device"},
        {{"run", "knn", "--input", fifoNpy}, "is a FIFO (named pipe)"},
        {{"run", "kmeans", "--request", dir_.path()}, "is a directory, not a file"},
        {{"run", "kmeans", "--n", "10", "--k", "2", "--d", "2", "--centers", fifo}, "is a FIFO"},
    };
    for (const Case& c : cases) {
      QElapsedTimer t;
      t.start();
      // A FIFO used to block for ever and /dev/zero to grow to 8 GB: 20 s is a generous bound.
      const auto r = runCli(c.args + QStringList{"--backend", "cpu"}, {}, 20000);
      QVERIFY2(r.exitCode == 2, qPrintable(c.args.join(' ') + ": " + r.err));
      QVERIFY2(r.err.contains(c.expected), qPrintable(r.err));
      QVERIFY(t.elapsed() < 20000);
    }
  }

  void anAddressSpaceLimitIsAnErrorNotAShorterInput() {
    // 3,000,000 points of a 2-column CSV: ~12 MB of text, 24 MB of floats. Under ulimit -v just
    // above what the CLI needs to start, the loader must refuse (exit 2) or fail (exit 3): it
    // used to read half the rows and exit 0.
    const QString csv = dir_.filePath("big.csv");
    {
      QFile f(csv);
      QVERIFY(f.open(QIODevice::WriteOnly));
      QByteArray block;
      for (int i = 0; i < 1000; ++i)
        block += QByteArray::number(i % 97) + "," + QByteArray::number(i % 89) + "\n";
      for (int i = 0; i < 3000; ++i) f.write(block);
    }
    // The CLI's own footprint: run it once with a tiny input and no limit to learn nothing but
    // that it works; then find a limit it starts under (bisect from 64 MB up).
    const QString cli = QStringLiteral(KERNELLAB_CLI_PATH);
    int startable = 0;
    for (int mb : {96, 128, 192, 256, 384, 512}) {
      QProcess p;
      p.start("bash", {"-c", QString("ulimit -v %1; exec '%2' devices").arg(mb * 1024).arg(cli)});
      p.waitForFinished(60000);
      if (p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0) {
        startable = mb;
        break;
      }
    }
    if (startable == 0) QSKIP("kernellab-cli does not start under a 512 MB address-space limit");
    QProcess p;
    p.start("bash",
            {"-c", QString("ulimit -v %1; exec '%2' run kmeans --input '%3' --k 2 --backend cpu "
                           "--variant shared-coalesced --reps 1 --warmup 0 --max-iter 1")
                       .arg((startable + 16) * 1024)
                       .arg(cli, csv)});
    QVERIFY(p.waitForFinished(300000));
    const QString err = QString::fromUtf8(p.readAllStandardError());
    const QString out = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(p.exitStatus() == QProcess::NormalExit, "killed by a signal");
    QVERIFY2(p.exitCode() == 2 || p.exitCode() == 3, qPrintable(out + err));
    QVERIFY2(err.contains("host memory") || err.contains("not enough memory"), qPrintable(err));
    QVERIFY2(!out.contains("N=1500000"), "half the rows were read");
  }

  void killDuringJsonWriteNeverLeavesAHalfFile() {
    const QString json = dir_.filePath("out.json");
    // The old file: a valid results file that must survive every kill.
    auto first = runCli(
        {"run", "transpose", "--size", "64x64", "--backend", "cpu", "--reps", "1", "--json", json});
    QCOMPARE(first.exitCode, 0);
    const QByteArray old = readAll(json);
    QVERIFY(parsesAsResults(old));

    const QString cli = QStringLiteral(KERNELLAB_CLI_PATH);
    int killedMidWrite = 0;
    for (int round = 0; round < 6; ++round) {
      // Rounds 0-2: each 1 MiB chunk takes 150 ms, so the kill lands in the write every time.
      // Rounds 3-5: full speed, killed at a random moment around the write.
      const bool slow = round < 3;
      QProcess p;
      QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
      if (slow) env.insert("KERNELLAB_TEST_SLOW_WRITE_MS", "150");
      p.setProcessEnvironment(env);
      const QStringList before = tempsOf(dir_.path(), "out.json");
      p.start(cli, bigRun(json));
      QVERIFY(p.waitForStarted());
      QElapsedTimer t;
      t.start();
      bool sawTemp = false;
      while (p.state() != QProcess::NotRunning && t.elapsed() < 300000) {
        if (writing(dir_.path(), "out.json", before)) {
          sawTemp = true;
          break;
        }
        QThread::msleep(2);
      }
      if (sawTemp) QThread::msleep(QRandomGenerator::global()->bounded(slow ? 300 : 30));
      if (p.state() != QProcess::NotRunning) ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
      p.waitForFinished(60000);
      const bool killed = p.exitStatus() == QProcess::CrashExit;
      if (killed && sawTemp) ++killedMidWrite;
      const QByteArray now = readAll(json);
      // The old file intact, or the new one whole: never a truncated one.
      QVERIFY2(
          now == old || parsesAsResults(now),
          qPrintable(QString("round %1: %2 bytes that do not parse").arg(round).arg(now.size())));
      if (slow) {
        QVERIFY2(killed && sawTemp && now == old, "the slow write was not interrupted");
        // What the killed writer left; the next writer of this path removes it.
        QCOMPARE(tempsOf(dir_.path(), "out.json").size(), 1);
      }
    }
    QVERIFY(killedMidWrite >= 3);

    // The next writer removes the dead writers' temporary files and replaces the file whole.
    const auto r = runCli(bigRun(json));
    QCOMPARE(r.exitCode, 0);
    QVERIFY(parsesAsResults(readAll(json)));
    QVERIFY(readAll(json).size() > 2000000);
    QCOMPARE(tempsOf(dir_.path(), "out.json"), QStringList());
  }

  void labelsAndCsvAreWrittenWhole() {
    const QString labels = dir_.filePath("labels.txt"), csv = dir_.filePath("rows.csv");
    QFile f(labels);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("old\n");
    f.close();
    QVERIFY(QFile::setPermissions(labels, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup));
    const auto r =
        runCli({"run", "kmeans", "--n", "500", "--k", "3", "--d", "2", "--backend", "cpu",
                "--variant", "shared-coalesced", "--labels", labels, "--csv", csv});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(readAll(labels).count('\n'), 500);
    QVERIFY(readAll(csv).startsWith("run,family,backend"));
    // The replaced file keeps its permissions; no temporary file is left.
    QCOMPARE(QFile::permissions(labels) &
                 (QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther),
             QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup);
    QCOMPARE(tempsOf(dir_.path(), "labels.txt"), QStringList());
    QCOMPARE(tempsOf(dir_.path(), "rows.csv"), QStringList());
  }
};

QTEST_GUILESS_MAIN(TstCliHostile)
#include "tst_cli_hostile.moc"
