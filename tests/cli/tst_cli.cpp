// SPDX-License-Identifier: MIT
// kernellab-cli as a user meets it: exit codes, one-line errors naming the value and the limit,
// files that parse, verify failing when a result is wrong.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtTest>

#include "test_support.h"

using kltest::runCli;

class TstCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  static QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
  }

 private slots:
  void devicesSaysWhatWorksAndWhy() {
    const auto r = runCli({"devices", "--json", dir_.filePath("dev.json")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("CPU backend: works"));
    QVERIFY(r.out.contains("CUDA backend:"));
    QVERIFY(r.out.contains("Runs use:"));
    const QJsonObject j = readJson(dir_.filePath("dev.json"));
    QVERIFY(j.contains("cuda_usable"));
    if (!j["cuda_usable"].toBool()) QVERIFY(!j["cuda_reason"].toString().isEmpty());
  }

  void runWritesJsonAndCsv() {
    const QString json = dir_.filePath("run.json"), csv = dir_.filePath("run.csv");
    const auto r = runCli({"run", "transpose", "--variant", "all", "--size", "1000x37", "--tpb", "256",
                           "--backend", "cpu", "--json", json, "--csv", csv});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("transpose 1000x37"));
    QVERIFY(r.out.contains("GB/s"));
    const QJsonObject j = readJson(json);
    QCOMPARE(j["schema_version"].toInt(), 2);
    // The request carries its own family's section only.
    const QJsonObject req = j["runs"].toArray()[0].toObject()["request"].toObject();
    QVERIFY(req.contains("transpose") && !req.contains("clustering") && !req.contains("knn"));
    const QJsonArray variants = j["runs"].toArray()[0].toObject()["variants"].toArray();
    QCOMPARE(variants.size(), 6);
    for (const auto& v : variants) QVERIFY(v.toObject()["verification"].toObject()["passed"].toBool());
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 7);  // header + 6 variants
    QVERIFY(lines[0].startsWith("run,family,backend"));
    // Tidy: a transpose row has empty clustering and KNN cells.
    const QStringList head = kltest::csvCells(lines[0]);
    const QStringList row = kltest::csvCells(lines[1]);
    QCOMPARE(row.size(), head.size());
    QCOMPARE(row[head.indexOf("width")], QString("1000"));
    for (const char* empty :
         {"n", "k", "d", "rows", "window", "neighbours", "block_x", "iterations", "stop_reason"})
      QVERIFY2(row[head.indexOf(empty)].isEmpty(), empty);
  }

  void badInputExitsTwoWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("zero size") << QStringList{"run", "transpose", "--size", "0x37"} << "--size 0x37: width and height must be at least 1";
    QTest::newRow("negative size") << QStringList{"run", "transpose", "--size", "-5x3"} << "--size -5x3";
    QTest::newRow("tpb 0") << QStringList{"run", "transpose", "--tpb", "0"} << "--tpb 0 is outside 1..1024";
    QTest::newRow("tpb 2048") << QStringList{"run", "transpose", "--tpb", "2048"} << "--tpb 2048 is outside 1..1024";
    QTest::newRow("tile 8") << QStringList{"run", "transpose", "--tile", "8"} << "--tile 8 is not supported (16 or 32)";
    QTest::newRow("variant") << QStringList{"run", "transpose", "--variant", "fastest"} << "unknown transpose variant";
    QTest::newRow("family") << QStringList{"run", "sorting"} << "family 'sorting' is unknown";
    QTest::newRow("too big") << QStringList{"run", "transpose", "--size", "1000000x1000000"} << "needs 8.00 TB";
    QTest::newRow("grid y") << QStringList{"run", "transpose", "--size", "4x3000000", "--tile", "16"} << "CUDA grid limit is 65535";
    QTest::newRow("list in run") << QStringList{"run", "transpose", "--tpb", "64,128"} << "run takes one value; use sweep";
    QTest::newRow("unknown option") << QStringList{"run", "transpose", "--speed", "11"} << "--speed";
    QTest::newRow("reps") << QStringList{"run", "transpose", "--reps", "0"} << "--reps 0 is outside 1..100000";
  }

  void badInputExitsTwoWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = runCli(args + QStringList{"--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);  // one line
    QVERIFY(r.out.isEmpty());                 // nothing was timed
  }

  void cudaRequestedWithoutCudaExplainsWhy() {
    if (kltest::cudaUnavailableReason().isEmpty()) QSKIP("CUDA works here; the refusal path is not reachable");
    const auto r = runCli({"run", "transpose", "--backend", "cuda"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("CUDA cannot be used here: " + kltest::cudaUnavailableReason()));
  }

  void autoFallsBackToTheCpuAndSaysWhy() {
    if (kltest::cudaUnavailableReason().isEmpty()) QSKIP("CUDA works here");
    const auto r = runCli({"run", "transpose", "--size", "64x64"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Backend: CPU: " + kltest::cudaUnavailableReason()));
    QVERIFY(r.out.contains("CPU timings"));
  }

  void streamPrintsJsonLines() {
    const auto r = runCli({"run", "transpose", "--size", "100x50", "--backend", "cpu", "--stream"});
    QCOMPARE(r.exitCode, 0);
    const QStringList lines = r.out.split('\n', Qt::SkipEmptyParts);
    QVERIFY(lines.size() >= 3);
    for (const QString& l : lines) QVERIFY(QJsonDocument::fromJson(l.toUtf8()).isObject());
    const QJsonObject last = QJsonDocument::fromJson(lines.last().toUtf8()).object();
    QCOMPARE(last["event"].toString(), QString("result"));
    QVERIFY(last["result"].toObject()["ok"].toBool());
    QCOMPARE(QJsonDocument::fromJson(lines.first().toUtf8()).object()["event"].toString(), QString("progress"));
  }

  void streamReportsInputErrorsAsEvents() {
    const auto r = runCli({"run", "transpose", "--size", "0x1", "--stream"});
    QCOMPARE(r.exitCode, 2);
    const QJsonObject e = QJsonDocument::fromJson(r.out.split('\n', Qt::SkipEmptyParts).last().toUtf8()).object();
    QCOMPARE(e["event"].toString(), QString("error"));
    QVERIFY(e["input_error"].toBool());
  }

  void requestFileRuns() {
    const QString req = dir_.filePath("req.json");
    QFile f(req);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(R"({"schema_version":1,"request":{"family":"transpose","variants":["naive"],"transpose":{"width":40,"height":20},"backend":"cpu"}})");
    f.close();
    const QString out = dir_.filePath("req-out.json");
    // The file names the family: no family argument is needed, and one that agrees is fine.
    const auto r = runCli({"run", "--request", req, "--json", out});
    QCOMPARE(r.exitCode, 0);
    QCOMPARE(readJson(out)["runs"].toArray()[0].toObject()["variants"].toArray().size(), 1);
    QCOMPARE(runCli({"run", "transpose", "--request", req}).exitCode, 0);
  }

  void requestFamilyMustAgreeWithTheFile() {
    const QString req = dir_.filePath("req-km.json");
    QFile f(req);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(
        R"({"schema_version":2,"request":{"family":"kmeans","clustering":{"n":40,"k":2,"d":2},"backend":"cpu"}})");
    f.close();
    const auto r = runCli({"run", "transpose", "--request", req});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(
        r.err.contains("family 'transpose' disagrees with") && r.err.contains("a kmeans request"),
        qPrintable(r.err));
    QVERIFY(r.out.isEmpty());
    // Experiment options beside --request would change what the file says: refused by name.
    const auto r2 = runCli({"run", "--request", req, "--n", "5", "--tpb", "64"});
    QCOMPARE(r2.exitCode, 2);
    QVERIFY2(r2.err.contains("--tpb, --n cannot change it"), qPrintable(r2.err));
    // Without --request a family is required.
    const auto r3 = runCli({"run", "--backend", "cpu"});
    QCOMPARE(r3.exitCode, 2);
    QVERIFY2(r3.err.contains("a family is required"), qPrintable(r3.err));
  }

  void sweepRunsTheProduct() {
    const QString json = dir_.filePath("sweep.json");
    const auto r = runCli({"sweep", "transpose", "--variant", "naive,padded", "--tpb", "128,256", "--tile", "16,32",
                           "--size", "70x40", "--backend", "cpu", "--reps", "1", "--json", json});
    // tile 16 with tpb 128 and 256 is valid; all four points run.
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = readJson(json);
    QCOMPARE(j["runs"].toArray().size(), 4);
    QCOMPARE(j["sweep"].toArray().size(), 2);
    QVERIFY(r.err.contains("%]"));  // progress on stderr
  }

  void sweepKeepsInvalidPointsWithTheReason() {
    const QString json = dir_.filePath("sweep2.json");
    const auto r = runCli({"sweep", "transpose", "--tpb", "256,512", "--tile", "16", "--size", "40x40",
                           "--backend", "cpu", "--reps", "1", "--json", json});
    QCOMPARE(r.exitCode, 1);
    const QJsonArray runs = readJson(json)["runs"].toArray();
    QCOMPARE(runs.size(), 2);
    QVERIFY(runs[0].toObject()["ok"].toBool());
    QVERIFY(runs[1].toObject()["message"].toString().contains("skipped: --tpb 512 with --tile 16"));
  }

  void verifyPassesOnTheCpu() {
    const auto r = runCli({"verify", "--quick", "--family", "transpose", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("PASS transpose 1x1"));
    QVERIFY(r.out.contains("PASS transpose 1000x37"));
    QVERIFY(r.out.contains(" 0 failed"));
    QVERIFY(!r.out.contains("FAIL"));
  }

  void verifyFailsWhenAResultIsWrong() {
    const auto r = runCli({"verify", "--quick", "--family", "transpose", "--backend", "cpu"},
                          {"KERNELLAB_FAULT_INJECT=diagonal"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.contains("FAIL transpose"));
    QVERIFY(r.out.contains("diagonal: 1 of"));
  }

  void benchPrintsRatiosToTheCeiling() {
    const auto r = runCli({"bench", "transpose", "--sizes", "128x128", "--reps", "2", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("x ceil"));
    // The summary: every shape's best with its strategy, ratio and verdict (issue 18).
    QVERIFY(r.out.contains("best transpose by shape"));
    QVERIFY(r.out.contains(QRegularExpression("128x128 +tile +[0-9.]+ +[0-9.]+ +[0-9.]+")));
    QVERIFY(r.out.contains("verified bit-exact; no target"));
  }
};

QTEST_GUILESS_MAIN(TstCli)
#include "tst_cli.moc"
