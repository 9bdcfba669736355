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

  void accessTracesClusteringAndKnn() {
    // k-means assign, interleaved, D = 16: a warp's point read takes 32 sectors for 4 useful
    // ones; the staged centroid is one shared word for every lane (conflict-free).
    const QString json = dir_.filePath("kmeans.json");
    auto r = runCli({"access", "--family", "kmeans", "--layout", "interleaved", "--memory", "shared",
                     "--d", "16", "--block", "2,0", "--warp", "1", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("kmeans shared-interleaved (assignToClustersKernel), warp 1 of 8"));
    QVERIFY(r.out.contains("32 (4)"));
    QVERIFY(r.out.contains("12.5 %"));
    QVERIFY(!r.out.contains("-way conflict"));
    const QJsonObject j = readJson(json)["report"].toObject();
    QCOMPARE(j["kernel"].toString(), QString("assignToClustersKernel"));
    int points = 0, stage = 0;
    for (const auto& v : j["requests"].toArray()) {
      const QJsonObject q = v.toObject();
      if (q["buffer"].toString() == "points") {
        ++points;
        QCOMPARE(q["sectors"].toInt(), 32);
        QCOMPARE(q["ideal_sectors"].toInt(), 4);
      }
      if (q["buffer"].toString() == "stage" && q["kind"].toString() == "load") {
        ++stage;
        QCOMPARE(q["conflict_degree"].toInt(), 1);
        QCOMPARE(q["active_lanes"].toInt(), 32);
      }
    }
    QCOMPARE(points, 16 * 16);
    QCOMPARE(stage, 16 * 16);
    // Coalesced: 4 sectors of one line.
    r = runCli({"access", "--family", "kmeans", "--variant", "global-coalesced", "--d", "8"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("4 (4)"));
    QVERIFY(r.out.contains("100.0 %"));
    // The other kernels of both algorithms.
    r = runCli({"access", "--family", "kmeans", "--variant", "shared-coalesced", "--kernel",
                "centroids", "--n", "20000", "--k", "5", "--d", "4", "--block", "3,0"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("calcCentroidsKernel"));
    QVERIFY(r.out.contains("owns cluster 3"));
    r = runCli({"access", "--family", "kmeans", "--variant", "global-interleaved", "--kernel",
                "score", "--n", "20000", "--k", "5"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("calcScoreKernel"));
    r = runCli({"access", "--family", "kcenters", "--variant", "shared-coalesced", "--n", "5000",
                "--k", "4", "--d", "8", "--lanes"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("kcentersDistanceKernel"));
    QVERIFY(r.out.contains("bank "));
    r = runCli({"access", "--family", "kcenters", "--variant", "global-coalesced", "--kernel",
                "select", "--n", "5000", "--k", "4"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("kcentersSelectKernel"));
    // KNN: one row at a time in shared memory, no bank conflict.
    r = runCli({"access", "--family", "knn", "--variant", "shared-row", "--image", "60x100x2",
                "--window", "6", "--block-shape", "64x2", "--block", "0,10"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("knn shared-row (knnSharedRowKernel), warp 0 of 4"));
    QVERIFY(r.out.contains("conflict-free"));
    QVERIFY(!r.out.contains("-way conflict"));
    r = runCli({"access", "--family", "knn", "--variant", "global", "--image", "60x100",
                "--window", "6", "--tpb", "64", "--block", "0,10"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("knnGlobalKernel"));
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
    QTest::newRow("engine") << QStringList{"access", "--family", "kmeans", "--variant", "best"} << "no access tracer";
    QTest::newRow("family") << QStringList{"access", "--family", "fft", "--variant", "x"} << "--family fft is unknown";
    QTest::newRow("kernel") << QStringList{"access", "--family", "kmeans", "--variant", "shared-coalesced", "--kernel", "select"} << "--kernel select: unknown kmeans kernel (known: assign, centroids, score)";
    QTest::newRow("kernel of transpose") << QStringList{"access", "--variant", "naive", "--kernel", "assign"} << "launch one kernel each";
    QTest::newRow("kmeans block") << QStringList{"access", "--family", "kmeans", "--variant", "shared-coalesced", "--kernel", "score", "--block", "16,0"} << "--block 16,0 is outside the grid (0..15, 0..0)";
    QTest::newRow("kmeans tpb") << QStringList{"access", "--family", "kmeans", "--variant", "global-coalesced", "--tpb", "2000"} << "--tpb 2000 is outside 1..1024";
    QTest::newRow("kmeans k") << QStringList{"access", "--family", "kcenters", "--variant", "shared-coalesced", "--n", "10", "--k", "20"} << "--k 20 is larger than --n 10";
    QTest::newRow("too long") << QStringList{"access", "--family", "kmeans", "--variant", "shared-coalesced", "--kernel", "centroids", "--n", "1000000", "--d", "200", "--k", "100"} << "the access lens traces at most";
    QTest::newRow("layout alone") << QStringList{"access", "--family", "kmeans", "--layout", "interleaved"} << "--layout / --memory: name one of each";
    QTest::newRow("layout of transpose")
        << QStringList{"access", "--variant", "naive", "--layout", "coalesced"}
        << "--layout coalesced does not apply to transpose (it is an option of kmeans, kcenters)";
    QTest::newRow("knn variant") << QStringList{"access", "--family", "knn", "--variant", "nearest"} << "unknown knn variant";
    QTest::newRow("knn block shape") << QStringList{"access", "--family", "knn", "--variant", "global", "--block-shape", "0x4"} << "--block-shape 0x4";
    QTest::newRow("knn window") << QStringList{"access", "--family", "knn", "--variant", "global", "--window", "0"} << "--window 0 is outside 1..65535";
    QTest::newRow("knn block") << QStringList{"access", "--family", "knn", "--variant", "shared-row", "--block", "0,377"} << "--block 0,377 is outside the grid";
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

  // Issue 13: without Nsight Compute, `profile` says so in one line and runs nothing.
  void profileWithoutNcuRunsNothing() {
    const QString json = dir_.filePath("profile.json");
    const auto r = runCli({"profile", "transpose", "--size", "256x256", "--json", json},
                          {"KERNELLAB_NCU=/nonexistent/ncu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("Nsight Compute (ncu) was not found") && r.err.contains("nothing was run"),
             qPrintable(r.err));
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY(!QFile::exists(json));
  }

  // The reports an H200 profile kept, attached to its run: the counters land in the results file,
  // and the models are printed beside them (the transpose: every access row agrees).
  void rereadAttachesRecordedCounters() {
    const QString data = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/ncu");
    const QString json = dir_.filePath("reread.json");
    const auto r = runCli({"profile", "--reread", data + "/transpose", "--request",
                           data + "/transpose-profiled.json", "--json", json});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains("access model beside the counters"), qPrintable(r.out));
    QVERIFY(r.out.contains("0 of 20 rows differ beyond the tolerance"));
    QVERIFY(r.out.contains("occupancy calculator beside the counters"));
    QVERIFY(r.out.contains("1 of 18 rows differ beyond the tolerance"));  // naive's DRAM bytes
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    QCOMPARE(run["profile"].toObject()["counters_version"].toInt(), 1);
    const QJsonArray variants = run["variants"].toArray();
    QCOMPARE(variants.size(), 6);
    for (const auto& v : variants) {
      const QJsonArray counters = v.toObject()["counters"].toArray();
      QCOMPARE(counters.size(), 1);
      QVERIFY(counters[0].toObject()["dram_bytes_read"].toDouble() > 1e8);
    }
    // A folder without the reports: named, exit 1.
    const auto missing = runCli({"profile", "--reread", dir_.path(), "--request",
                                 data + "/transpose-profiled.json"});
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains("transpose-copy.csv"), qPrintable(missing.err));
  }
};

QTEST_GUILESS_MAIN(TstCliModels)
#include "tst_cli_models.moc"
