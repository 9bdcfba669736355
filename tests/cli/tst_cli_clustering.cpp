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
  // Runs that differ only in their generated shape (bench best's seed data and one broad cloud)
  // say which they are: in the CLI's heading and in the short text of the Runs list.
  void theBlobShapeIsNamed() {
    const auto r = runCli({"run", "kcenters", "--n", "500", "--k", "4", "--d", "3", "--shape",
                           "blobs", "--noise", "0.9", "--backend", "cpu", "--reps", "1"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("kcenters N=500 K=4 D=3 (blobs, 90 % noise), 256 threads per block"),
             qPrintable(r.out));
  }

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
    QCOMPARE(variants.size(), 5);  // the seed's four and the pruned variant
    QVERIFY(r.out.contains("points read:"));
    for (const auto& v : variants) {
      const QJsonObject o = v.toObject();
      const bool pruned = o["variant"].toString() == "pruned";
      QVERIFY(o["verification"].toObject()["passed"].toBool());
      QCOMPARE(o["kernels"].toArray().size(), pruned ? 5 : 3);
      // The pruned variant counts its work per iteration: all N K distances in the first.
      if (pruned)
        QCOMPARE(o["iterations"].toArray()[0].toObject()["distances"].toInteger(), 1003 * 7);
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
    // It 1 assigns to the given centers, it 2 moves them to the means (1.2, 1.2) and (11, 11)
    // and no point changes cluster: the fixed point, after 2 iterations (scikit-learn's n_iter_).
    QCOMPARE(c["iterations"].toInt(), 2);
    QCOMPARE(c["stop_reason"].toString(), QString("converged"));
    QVERIFY(r.out.contains("converged after 2 iterations"));
    QVERIFY(qAbs(c["inertia"].toDouble() - 17.6) < 1e-4);
    QCOMPARE(c["cluster_sizes"].toArray()[0].toInt(), 5);
  }

  // The request stored with a run is the request that ran: the file's N and D (not the
  // generator's defaults), only the clustering section, and it runs the same experiment again.
  void storedFileRequestRunsAgain() {
    const QString points = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/iris.csv");
    const QString centers = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/iris_centers_k3.csv");
    const QString json = dir_.filePath("iris.json"), again = dir_.filePath("iris-again.json");
    const auto r = runCli({"run", "kmeans", "--input", points, "--centers", centers, "--k", "3",
                           "--variant", "shared-coalesced,global-interleaved", "--backend", "cpu",
                           "--reps", "1", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.out.contains("kmeans N=150 K=3 D=4 (" + points + ")"), qPrintable(r.out));
    QVERIFY(r.out.contains("stop at the fixed point or after 300 iterations"));
    QVERIFY(r.out.contains("converged after 12 iterations (no point changed cluster)"));
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    const QJsonObject req = run["request"].toObject();
    QVERIFY(!req.contains("knn") && !req.contains("transpose"));
    const QJsonObject c = req["clustering"].toObject();
    QCOMPARE(c["n"].toInt(), 150);
    QCOMPARE(c["d"].toInt(), 4);
    QCOMPARE(c["stop_rule"].toString(), QString("fixed-point"));
    QVERIFY(!c.contains("shape") && !c.contains("radius") && !c.contains("epsilon"));
    QVERIFY(!req["launch"].toObject().contains("tile"));

    // The results file itself is a request: the family comes from it.
    const auto r2 = runCli({"run", "--request", json, "--json", again});
    QCOMPARE(r2.exitCode, 0);
    QVERIFY(r2.out.contains("kmeans N=150 K=3 D=4"));
    const QJsonObject run2 = readJson(again)["runs"].toArray()[0].toObject();
    QCOMPARE(run2["request"].toObject(), req);
    const QJsonArray v1 = run["variants"].toArray(), v2 = run2["variants"].toArray();
    QCOMPARE(v2.size(), v1.size());
    for (int i = 0; i < v1.size(); ++i) {
      const QJsonObject a = v1[i].toObject()["clustering"].toObject();
      const QJsonObject b = v2[i].toObject()["clustering"].toObject();
      for (const char* field :
           {"labels", "centers", "iterations", "inertia", "stop_reason", "cluster_sizes"})
        QVERIFY2(a[field] == b[field], field);
    }
  }

  void storedSweepRunsAgain() {
    const QString points = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/breast_cancer.csv");
    const QString json = dir_.filePath("bc-sweep.json"), again = dir_.filePath("bc-again.json");
    const auto r =
        runCli({"sweep", "kmeans", "--input", points, "--k", "2,3", "--tpb", "32,1024", "--variant",
                "global-coalesced", "--backend", "cpu", "--reps", "1", "--json", json});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject first = readJson(json);
    QCOMPARE(first["runs"].toArray().size(), 4);
    const auto r2 = runCli({"sweep", "--request", json, "--json", again});
    QCOMPARE(r2.exitCode, 0);
    const QJsonObject second = readJson(again);
    QCOMPARE(second["sweep"], first["sweep"]);
    const QJsonArray a = first["runs"].toArray(), b = second["runs"].toArray();
    QCOMPARE(b.size(), a.size());
    for (int i = 0; i < a.size(); ++i) {
      QCOMPARE(b[i].toObject()["request"], a[i].toObject()["request"]);
      QCOMPARE(a[i].toObject()["request"].toObject()["clustering"].toObject()["n"].toInt(), 569);
      const QJsonObject ca =
          a[i].toObject()["variants"].toArray()[0].toObject()["clustering"].toObject();
      const QJsonObject cb =
          b[i].toObject()["variants"].toArray()[0].toObject()["clustering"].toObject();
      QCOMPARE(cb["labels"], ca["labels"]);
      QCOMPARE(cb["iterations"], ca["iterations"]);
      QCOMPARE(cb["inertia"], ca["inertia"]);
    }
    // A sweep's results file holds several runs: `run --request` says how to re-run it.
    const auto r3 = runCli({"run", "--request", json});
    QCOMPARE(r3.exitCode, 2);
    QVERIFY2(r3.err.contains("holds 4 runs; `kernellab-cli sweep --request FILE` re-runs them all"),
             qPrintable(r3.err));
  }

  void stopRuleIsChosenAndRecorded() {
    const QString points = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/breast_cancer.csv");
    const QString centers = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/breast_cancer_centers_k2.csv");
    const QString json = dir_.filePath("bc-score.json"), csv = dir_.filePath("bc-score.csv");
    // --epsilon alone asks for Campaign's score rule (as the seed's experiments do).
    const auto r =
        runCli({"run",       "kmeans", "--input",   points, "--centers", centers,
                "--k",       "2",      "--epsilon", "1e-4", "--variant", "shared-interleaved",
                "--backend", "cpu",    "--reps",    "1",    "--json",    json,
                "--csv",     csv});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("stop by the score rule (epsilon 0.0001) or after 300 iterations"));
    QVERIFY(r.out.contains("score rule met after 8 iterations"));
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    QCOMPARE(run["request"].toObject()["clustering"].toObject()["stop_rule"].toString(),
             QString("score"));
    QCOMPARE(run["request"].toObject()["clustering"].toObject()["epsilon"].toDouble(), 1e-4);
    const QJsonObject c = run["variants"].toArray()[0].toObject()["clustering"].toObject();
    QCOMPARE(c["stop_reason"].toString(), QString("score-rule"));
    QCOMPARE(c["iterations"].toInt(), 8);
    // The CSV: k-means rows carry n, k, d, iterations and the stop reason, no transpose fields.
    QFile f(csv);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 4);  // header + calcCentroids, assign, score
    const QStringList head = kltest::csvCells(lines[0]);
    for (int i = 1; i < lines.size(); ++i) {
      const QStringList row = kltest::csvCells(lines[i]);
      QCOMPARE(row.size(), head.size());
      QCOMPARE(row[head.indexOf("n")], QString("569"));
      QCOMPARE(row[head.indexOf("d")], QString("30"));
      QCOMPARE(row[head.indexOf("iterations")], QString("8"));
      QCOMPARE(row[head.indexOf("stop_reason")], QString("score-rule"));
      QVERIFY(row[head.indexOf("width")].isEmpty() && row[head.indexOf("tile")].isEmpty());
      QVERIFY(row[head.indexOf("neighbours")].isEmpty());
    }
    // The iteration limit is a stop reason too.
    const QString limited = dir_.filePath("bc-limit.json");
    QCOMPARE(runCli({"run", "kmeans", "--input", points, "--centers", centers, "--k", "2",
                     "--max-iter", "4", "--variant", "shared-coalesced", "--backend", "cpu",
                     "--reps", "1", "--json", limited})
                 .exitCode,
             0);
    QCOMPARE(readJson(limited)["runs"]
                 .toArray()[0]
                 .toObject()["variants"]
                 .toArray()[0]
                 .toObject()["clustering"]
                 .toObject()["stop_reason"]
                 .toString(),
             QString("iteration-limit"));
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
    const QString iris = QStringLiteral(KERNELLAB_TEST_DATA_DIR "/iris.csv");
    QTest::newRow("n with a file") << QStringList{"run", "kmeans", "--input", iris, "--n", "100000"}
                                   << "--n 100000 does not apply with --input";
    QTest::newRow("d with a file") << QStringList{"run", "kcenters", "--input", iris, "--d", "3"}
                                   << "--d 3 does not apply with --input";
    QTest::newRow("stop") << QStringList{"run", "kmeans", "--stop", "never"}
                          << "--stop never is unknown (fixed-point, score)";
    QTest::newRow("epsilon at the fixed point")
        << QStringList{"run", "kmeans", "--stop", "fixed-point", "--epsilon", "0.1"}
        << "belongs to the score rule, but --stop says fixed-point";
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
    // Pruned k-centers beside the seed variants, compared bit for bit (issue 15).
    QVERIFY(r.out.contains(
        "PASS kcenters pruned vs unpruned N=20000 K=32 D=8 seed tpb 256 (5 variants)"));
    QVERIFY(r.out.contains(" 0 failed"));
    QVERIFY(!r.out.contains("FAIL"));
  }

  void verifyFailsWhenAResultIsWrong() {
    for (const char* variant : {"shared-coalesced", "global-interleaved", "pruned"}) {
      const auto r =
          runCli({"verify", "--quick", "--family", "kmeans,kcenters", "--backend", "cpu"},
                 {QString("KERNELLAB_FAULT_INJECT=") + variant});
      QCOMPARE(r.exitCode, 1);
      // k-means has no pruned variant; the pruned k-centers fails by the reference's check (its
      // twin comparison sees the kernels' output, before the injected label).
      if (std::string(variant) != "pruned") QVERIFY(r.out.contains("FAIL kmeans N=10 K=2 D=2"));
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
