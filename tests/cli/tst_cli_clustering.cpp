// SPDX-License-Identifier: MIT
// kernellab-cli's clustering commands as a user meets them: run kmeans / kcenters with files in
// and out, one-line refusals with exit code 2, verify passing and failing under fault injection,
// sweep, and bench clustering at a small size.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "test_support.h"

using kltest::runCli;

class TstCliClustering : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  static QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
  }
  QString write(const QString& name, const QByteArray& text) {
    const QString p = dir_.filePath(name);
    QFile f(p);
    if (f.open(QIODevice::WriteOnly)) f.write(text);
    return p;
  }

 private slots:
  void runKMeansWritesJsonAndLabels() {
    const QString json = dir_.filePath("km.json"), labels = dir_.filePath("km.labels");
    const auto r =
        runCli({"run",    "kmeans", "--n",    "1003",     "--k",      "7",   "--d",       "3",
                "--tpb",  "96",     "--init", "kmeans++", "--seed",   "4",   "--backend", "cpu",
                "--reps", "1",      "--json", json,       "--labels", labels});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("kmeans N=1003 K=7 D=3, 96 threads per block"));
    QVERIFY(r.out.contains("assignToClustersKernel"));
    QVERIFY(r.out.contains("CPU timings"));
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    QVERIFY(run["ok"].toBool());
    const QJsonArray variants = run["variants"].toArray();
    QCOMPARE(variants.size(), 4);
    for (const auto& v : variants) {
      const QJsonObject o = v.toObject();
      QVERIFY(o["verification"].toObject()["passed"].toBool());
      QCOMPARE(o["kernels"].toArray().size(), 3);
      QCOMPARE(o["clustering"].toObject()["labels"].toArray().size(), 1003);
      QVERIFY(o["clustering"].toObject()["inertia"].toDouble() > 0);
      QVERIFY(o["iterations"].toArray().size() >= 1);
    }
    QFile f(labels);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 1003);
    for (const QString& l : lines) {
      bool ok = false;
      const int label = l.toInt(&ok);
      QVERIFY(ok && label >= 0 && label < 7);
    }
  }

  void runKCentersOneVariantFromSwitches() {
    const QString json = dir_.filePath("kc.json");
    const auto r =
        runCli({"run", "kcenters", "--n", "500", "--k", "5", "--d", "4", "--memory", "global",
                "--layout", "interleaved", "--backend", "cpu", "--reps", "1", "--json", json});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray variants =
        readJson(json)["runs"].toArray()[0].toObject()["variants"].toArray();
    QCOMPARE(variants.size(), 1);
    const QJsonObject v = variants[0].toObject();
    QCOMPARE(v["variant"].toString(), QString("global-interleaved"));
    QCOMPARE(v["clustering"].toObject()["center_indices"].toArray().size(), 5);
    QCOMPARE(v["clustering"].toObject()["center_indices"].toArray()[0].toInt(), 0);
    QVERIFY(v["verification"].toObject()["note"].toString().contains("every point"));
  }

  void runOnTheUsersFileWithGivenCenters() {
    const QString points = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/clustering_gold_n10_k2_d2.csv");
    const QString centers = write("centers.csv", "0,0\n12,12\n");
    const QString json = dir_.filePath("given.json");
    const auto r = runCli({"run", "kmeans", "--input", points, "--centers", centers, "--k", "2",
                           "--backend", "cpu", "--reps", "1", "--json", json});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject v =
        readJson(json)["runs"].toArray()[0].toObject()["variants"].toArray()[0].toObject();
    const QJsonObject c = v["clustering"].toObject();
    // It 1 assigns to the given centers, it 2 moves them to the means (1.2, 1.2) and (11, 11),
    // it 3 changes nothing and stops.
    QCOMPARE(c["iterations"].toInt(), 3);
    QVERIFY(qAbs(c["inertia"].toDouble() - 17.6) < 1e-4);
    QCOMPARE(c["cluster_sizes"].toArray()[0].toInt(), 5);
  }

  void badInputExitsTwoWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("k > n") << QStringList{"run", "kmeans", "--n", "3", "--k", "5"}
                           << "--k 5 is larger than --n 3";
    QTest::newRow("tpb") << QStringList{"run", "kcenters", "--tpb", "2048"}
                         << "--tpb 2048 is outside 1..1024";
    QTest::newRow("d") << QStringList{"run", "kmeans", "--d", "0"} << "--d 0 must be at least 1";
    QTest::newRow("max-iter") << QStringList{"run", "kmeans", "--max-iter", "0"}
                              << "--max-iter 0 is outside 1..1000000";
    QTest::newRow("init") << QStringList{"run", "kmeans", "--init", "best"}
                          << "--init best is unknown";
    QTest::newRow("kcenters init") << QStringList{"run", "kcenters", "--init", "kmeans++"}
                                   << "--init kmeans++ applies to kmeans";
    QTest::newRow("layout") << QStringList{"run", "kmeans", "--layout", "diagonal"}
                            << "--layout diagonal is unknown (coalesced, interleaved, all)";
    QTest::newRow("memory") << QStringList{"run", "kmeans", "--memory", "texture"}
                            << "--memory texture is unknown (shared, global, all)";
    QTest::newRow("missing file") << QStringList{"run", "kmeans", "--input", "/nonexistent/p.csv"}
                                  << "cannot open '/nonexistent/p.csv'";
    QTest::newRow("list in run") << QStringList{"run", "kmeans", "--k", "2,3"}
                                 << "run takes one value; use sweep";
  }
  void badInputExitsTwoWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = runCli(args + QStringList{"--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(r.out.isEmpty());
  }

  void badFileNamesTheLine() {
    const QString bad = write("bad.csv", "x,y\n1,2\n3,oops\n");
    const auto r = runCli({"run", "kmeans", "--input", bad, "--k", "1", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("bad.csv line 3, field 2: 'oops' is not a number"), qPrintable(r.err));
    const QString few = write("few.csv", "1,2\n3,4\n");
    const auto r2 = runCli({"run", "kcenters", "--input", few, "--k", "3", "--backend", "cpu"});
    QCOMPARE(r2.exitCode, 2);
    QVERIFY(r2.err.contains("--k 3 is larger than the 2 points of"));
  }

  void verifyPassesOnTheCpu() {
    const auto r = runCli({"verify", "--quick", "--family", "kmeans,kcenters", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("PASS kcenters N=10 K=2 D=2 seed tpb 64"));
    QVERIFY(r.out.contains("PASS kmeans N=1000 K=7 D=3 seed tpb 1000"));
    QVERIFY(r.out.contains(" 0 failed"));
    QVERIFY(!r.out.contains("FAIL"));
  }

  void verifyFailsWhenAResultIsWrong() {
    for (const char* variant : {"shared-coalesced", "global-interleaved"}) {
      const auto r =
          runCli({"verify", "--quick", "--family", "kmeans,kcenters", "--backend", "cpu"},
                 {QString("KERNELLAB_FAULT_INJECT=") + variant});
      QCOMPARE(r.exitCode, 1);
      QVERIFY(r.out.contains("FAIL kmeans N=10 K=2 D=2"));
      QVERIFY(r.out.contains("FAIL kcenters N=1000 K=7 D=3"));
      QVERIFY(r.out.contains(QString("[") + variant + ": 1 of"));
    }
  }

  void sweepOverThreadsPerBlock() {
    const QString json = dir_.filePath("sweep.json");
    const auto r = runCli({"sweep", "kcenters", "--n", "300", "--k", "4", "--d", "2", "--tpb",
                           "32,96,1000", "--backend", "cpu", "--reps", "1", "--json", json});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject j = readJson(json);
    QCOMPARE(j["runs"].toArray().size(), 3);
    QCOMPARE(j["runs"]
                 .toArray()[1]
                 .toObject()["request"]
                 .toObject()["launch"]
                 .toObject()["threads_per_block"]
                 .toInt(),
             96);
  }

  void benchClusteringSmall() {
    const QString json = dir_.filePath("bench.json");
    const auto r =
        runCli({"bench", "clustering", "--n", "2000", "--k", "5", "--d", "8", "--tpb", "64,512",
                "--max-iter", "3", "--reps", "1", "--backend", "cpu", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("k-centers, the seed's figure 19: N=2000 K=5 D=8"));
    QVERIFY(r.out.contains("published, GTX Titan, Orrit 2017"));
    QVERIFY(r.out.contains("x floor"));
    QVERIFY(r.out.contains("S = "));
    QVERIFY(r.out.contains("k-means, Campaign's three kernels"));
    QCOMPARE(readJson(json)["runs"].toArray().size(), 4);  // 2 TPB x (k-centers, k-means)
  }

  void benchAtTheSeedSizeRefusesTheCpu() {
    const auto r = runCli({"bench", "clustering", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.contains("would take hours on the CPU executor"));
  }
};

QTEST_GUILESS_MAIN(TstCliClustering)
#include "tst_cli_clustering.moc"
