// SPDX-License-Identifier: MIT
// kernellab-cli occupancy | schedule | access: readable tables, JSON files that parse and carry
// the models' numbers, one-line errors with exit code 2; verify's occupancy line.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "test_support.h"

using kltest::runCli;

class TstCliModels : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  static QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
  }

 private slots:
  void occupancyPrintsEveryLimit() {
    const QString json = dir_.filePath("occ.json");
    const auto r = runCli({"occupancy", "--arch", "gt200", "--tpb", "256", "--regs", "9", "--json", json});
    QCOMPARE(r.exitCode, 0);
    for (const char* row : {"threads", "block slots", "registers", "shared memory"})
      QVERIFY2(r.out.contains(row), row);
    QVERIFY(r.out.contains("Active: 4 blocks per SM, 32 of 32 warps"));
    QVERIFY(r.out.contains("<- binding"));
    QVERIFY(r.out.contains("2560 per block"));  // 2304 rounded to the 512-register unit
    const QJsonObject j = readJson(json);
    QCOMPARE(j["kind"].toString(), QString("kernellab-occupancy"));
    const QJsonObject res = j["result"].toObject();
    QCOMPARE(res["active_blocks"].toInt(), 4);
    const QJsonArray limits = res["limits"].toArray();
    QCOMPARE(limits.size(), 4);
    QCOMPARE(limits[2].toObject()["blocks"].toInt(), 6);
    QCOMPARE(limits[2].toObject()["blocks_without_granularity"].toInt(), 7);
    QVERIFY(limits[0].toObject()["binding"].toBool());
    QVERIFY(limits[3].toObject()["blocks"].isNull());  // no shared memory: no limit
    QCOMPARE(j["charts"].toObject()["by_threads_per_block"].toArray().size(), 16);
  }

  void occupancySuggestsTheNextBlock() {
    const auto r = runCli({"occupancy", "--arch", "ampere", "--tpb", "1024", "--regs", "64"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("registers per thread 64 -> 32"), qPrintable(r.out));
  }

  void scheduleComparesMappings() {
    const QString json = dir_.filePath("sched.json");
    const auto r = runCli({"schedule", "--grid", "64x64", "--arch", "gt200", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("90 blocks per wave"));
    QVERIFY(r.out.contains("cartesian:"));
    QVERIFY(r.out.contains("diagonal:"));
    QVERIFY(r.out.contains("before compute capability 2.0"));
    const QJsonObject j = readJson(json);
    QCOMPARE(j["kind"].toString(), QString("kernellab-schedule"));
    const QJsonArray models = j["models"].toArray();
    QCOMPARE(models.size(), 2);
    const double cart = models[0].toObject()["mean_worst_write_share"].toDouble();
    const double diag = models[1].toObject()["mean_worst_write_share"].toDouble();
    QVERIFY(diag < cart);
    QCOMPARE(models[0].toObject()["blocks"].toArray().size(), 64 * 64);
    QCOMPARE(models[1].toObject()["waves"].toArray()[0].toObject()["write_bytes"].toArray().size(), 8);
  }

  void scheduleTakesOneMappingAndOverrides() {
    const auto r = runCli({"schedule", "--grid", "8x4", "--mapping", "diagonal", "--sms", "2",
                           "--blocks-per-sm", "2", "--partitions", "4", "--partition-bytes", "128"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("4 blocks per wave, 8 waves"));
    QVERIFY(!r.out.contains("cartesian:"));
  }

  void accessShowsSectorsAndBanks() {
    const QString json = dir_.filePath("access.json");
    auto r = runCli({"access", "--family", "transpose", "--variant", "naive", "--warp", "0", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("32 (4)"));   // sectors (ideal) of a strided store
    QVERIFY(r.out.contains("12.5 %"));
    const QJsonObject j = readJson(json)["report"].toObject();
    const QJsonArray reqs = j["requests"].toArray();
    QCOMPARE(reqs[1].toObject()["sectors"].toInt(), 32);
    QCOMPARE(reqs[1].toObject()["lanes"].toArray().size(), 32);
    r = runCli({"access", "--variant", "tiled", "--lanes"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("32-way conflict"));
    QVERIFY(r.out.contains("bank 0"));
    r = runCli({"access", "--variant", "padded", "--block", "1,2", "--warp", "3"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("conflict-free"));
    QVERIFY(!r.out.contains("-way conflict"));
  }

  void badInputExitsTwoWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("arch") << QStringList{"occupancy", "--arch", "pascal"} << "--arch pascal is unknown";
    QTest::newRow("tpb") << QStringList{"occupancy", "--arch", "g80", "--tpb", "1024"} << "--tpb 1024 is outside 1..512";
    QTest::newRow("regs") << QStringList{"occupancy", "--arch", "gf100", "--regs", "64"} << "--regs 64 is outside 0..63";
    QTest::newRow("smem") << QStringList{"occupancy", "--arch", "gt200", "--smem", "20000"} << "--smem 20000 is outside 0..16384";
    QTest::newRow("grid") << QStringList{"schedule", "--grid", "0x4"} << "--grid";
    QTest::newRow("mapping") << QStringList{"schedule", "--mapping", "spiral"} << "--mapping spiral is unknown";
    QTest::newRow("partitions") << QStringList{"schedule", "--partitions", "0"} << "--partitions 0 is outside";
    QTest::newRow("variant") << QStringList{"access", "--variant", "fastest"} << "unknown transpose variant";
    QTest::newRow("warp") << QStringList{"access", "--variant", "naive", "--warp", "8"} << "--warp 8 is outside 0..7";
    QTest::newRow("block") << QStringList{"access", "--variant", "naive", "--block", "64,0"} << "--block 64,0 is outside the grid";
    QTest::newRow("family") << QStringList{"access", "--family", "kmeans", "--variant", "shared-coalesced"} << "no access tracer";
    QTest::newRow("no variant") << QStringList{"access"} << "--variant";
  }

  void badInputExitsTwoWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = runCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
  }

  void deviceArchSaysWhyWithoutAGpu() {
    if (kltest::cudaUnavailableReason().isEmpty()) QSKIP("a CUDA device works here");
    const auto r = runCli({"occupancy", "--arch", "device"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("--arch device: no usable CUDA device here"));
  }

  void verifySaysWhetherOccupancyWasChecked() {
    const auto r = runCli({"verify", "--quick", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("occupancy: not checked"));
  }
};

QTEST_GUILESS_MAIN(TstCliModels)
#include "tst_cli_models.moc"
