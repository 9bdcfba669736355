// SPDX-License-Identifier: MIT
// kernellab-cli with the reduction family: run and its results file, exit codes and one-line
// errors, verify over its awkward sizes (and failing on a wrong result), bench with the share of
// the copy ceiling, the access lens. All on the CPU backend.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "test_support.h"

using kltest::runCli;

class TstReductionCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
  }

 private slots:
  void runWritesTheReductionSections() {
    const QString json = dir_.filePath("run.json");
    const auto r = runCli({"run", "reduction", "--n", "100003", "--op", "max", "--tpb", "128",
                           "--reps", "1", "--backend", "cpu", "--json", json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY(r.out.contains("reduction: the maximum and its index of 100003 floats"));
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    const QJsonObject section = run["request"].toObject()["reduction"].toObject();
    QCOMPARE(section["n"].toInt(), 100003);
    QCOMPARE(section["operation"].toString(), QStringLiteral("max"));
    QVERIFY(!run["request"].toObject().contains("transpose"));  // its own section only
    const QJsonArray variants = run["variants"].toArray();
    QCOMPARE(variants.size(), 7);  // cub runs only on CUDA
    const QJsonObject first = variants[0].toObject()["reduction"].toObject();
    for (const QJsonValue v : variants) {
      const QJsonObject out = v.toObject()["reduction"].toObject();
      QCOMPARE(out["index"].toInt(), first["index"].toInt());  // every variant: the same maximum
      QVERIFY(v.toObject()["verification"].toObject()["passed"].toBool());
    }
  }

  void badInputExitsTwoWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("tpb") << QStringList{"run", "reduction", "--tpb", "96"}
                         << "the reduction's tree halves the block";
    QTest::newRow("n") << QStringList{"run", "reduction", "--n", "0"}
                       << "--n 0 is outside 1..2147483647";
    QTest::newRow("op") << QStringList{"run", "reduction", "--op", "min"}
                        << "--op min is unknown (sum, max)";
    QTest::newRow("cub on the cpu")
        << QStringList{"run", "reduction", "--variant", "cub"} << "runs only on the CUDA backend";
    QTest::newRow("another family's option") << QStringList{"run", "reduction", "--tile", "16"}
                                             << "--tile 16 does not apply to reduction";
  }
  void badInputExitsTwoWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = runCli(args + QStringList{"--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
  }

  void verifyCoversTheFamilyAndFailsOnAWrongResult() {
    const auto r = runCli({"verify", "--family", "reduction", "--quick", "--backend", "cpu"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.out.right(2000)));
    QVERIFY(r.out.contains("PASS reduction sum N=1000003 tpb 1024"));
    QVERIFY(r.out.contains("PASS reduction max N=31 tpb 32"));
    QVERIFY(r.out.contains(", 0 failed"));
    const auto bad = runCli({"verify", "--family", "reduction", "--quick", "--backend", "cpu"},
                            {"KERNELLAB_FAULT_INJECT=warp-shuffle"});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY(bad.out.contains("FAIL reduction"));
  }

  void benchGivesTheShareOfTheCopyCeiling() {
    const QString json = dir_.filePath("bench.json");
    const auto r = runCli({"bench", "reduction", "--sizes", "65536", "--reps", "1", "--backend",
                           "cpu", "--json", json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY(r.out.contains("bandwidth as a share of the copy ceiling (memcpy (host)"));
    QCOMPARE(readJson(json)["runs"].toArray().size(), 2);  // the sum and the max
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    QVERIFY(run["ceilings"].toArray().size() == 1);
    QVERIFY(run["variants"].toArray()[0].toObject()["fraction_of_memcpy"].toDouble() > 0);
  }

  void sweepOverN() {
    const QString json = dir_.filePath("sweep.json");
    const auto r =
        runCli({"sweep", "reduction", "--n", "1000,4096", "--tpb", "64,256", "--variant",
                "sequential,grid-stride", "--reps", "1", "--backend", "cpu", "--json", json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QCOMPARE(readJson(json)["runs"].toArray().size(), 4);
  }

  void theAccessLensShowsTheBankConflicts() {
    const auto r = runCli({"access", "--family", "reduction", "--variant", "interleaved-strided",
                           "--n", "65536", "--tpb", "256"});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("8-way conflict"));
    const auto seq = runCli({"access", "--family", "reduction", "--variant", "sequential", "--n",
                             "65536", "--tpb", "256"});
    QVERIFY(!seq.out.contains("-way conflict"));
  }
};

QTEST_APPLESS_MAIN(TstReductionCli)
#include "tst_reduction_cli.moc"
