// SPDX-License-Identifier: MIT
// kernellab-cli with the KNN family: run, --input .npy, exit codes and one-line errors, the JSON
// fields of KNN results, verify (and verify failing on a wrong result), sweep and bench.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtTest>

#include "kernellab/knn.h"
#include "test_support.h"

using kltest::runCli;

class TstKnnCli : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;

  static QJsonObject readJson(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
  }

 private slots:
  void runWritesEveryVariantWithKnnDetails() {
    const QString json = dir_.filePath("knn.json");
    const auto r = runCli({"run", "knn", "--image", "31x27x2", "--window", "6", "--k", "5",
                           "--variant", "all", "--block", "16x4", "--reps", "1", "--warmup", "0",
                           "--backend", "cpu", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("knn image 31x27x2, window 6 rows, k 5, block 16x4"));
    QVERIFY(r.out.contains("shared-row-rect"));
    const QJsonObject run = readJson(json)["runs"].toArray()[0].toObject();
    QCOMPARE(run["request"].toObject()["launch"].toObject()["threads_per_block"].toInt(), 64);
    const QJsonArray variants = run["variants"].toArray();
    QCOMPARE(variants.size(), 4);
    QStringList ids;
    for (const auto& value : variants) {
      const QJsonObject v = value.toObject();
      ids << v["variant"].toString();
      QVERIFY(v["verification"].toObject()["passed"].toBool());
      const QJsonObject knn = v["knn"].toObject();
      QCOMPARE(knn["candidates_per_pixel"].toInt(),
               v["variant"].toString() == "shared-row-rect" ? 7 * 27 - 1 : 6 * 27);
      QCOMPARE(knn["reference_pixels"].toInt(), 31 * 27);
      QVERIFY(!knn.contains("indices"));  // not kept unless asked
    }
    QCOMPARE(ids, (QStringList{"global", "shared-window", "shared-row", "shared-row-rect"}));
    QCOMPARE(variants[2].toObject()["knn"].toObject()["shared_bytes_per_block"].toInt(), 27 * 2 * 4);
    const QJsonObject vs = variants[3].toObject()["knn"].toObject()["versus_per_pixel"].toObject();
    QCOMPARE(vs["pixels"].toInt(), 31 * 27);
    QCOMPARE(vs["slots"].toInt(), 31 * 27 * 5);
    QCOMPARE(vs["mismatched"].toInt(), vs["tie_swaps"].toInt() + vs["different_neighbours"].toInt());
  }

  void runReadsAnNpyImage() {
    const kernellab::knn::Image img = kernellab::knn::makeImage(12, 19, 3, 4);
    const QString path = dir_.filePath("img.npy");
    kernellab::knn::saveNpyImage(path.toStdString(), img);
    const QString json = dir_.filePath("npy.json");
    const auto r = runCli({"run", "knn", "--input", path, "--window", "3", "--k", "4", "--reps", "1",
                           "--backend", "cpu", "--json", json});
    QCOMPARE(r.exitCode, 0);
    const QJsonObject knn = readJson(json)["runs"].toArray()[0].toObject()["request"].toObject()["knn"].toObject();
    QCOMPARE(knn["rows"].toInt(), 12);  // from the file, not the default 377 x 329
    QCOMPARE(knn["cols"].toInt(), 19);
    QCOMPARE(knn["components"].toInt(), 3);
    QCOMPARE(knn["k"].toInt(), 4);
    QCOMPARE(knn["input_path"].toString(), path);
    const QJsonObject req = readJson(json)["runs"].toArray()[0].toObject()["request"].toObject();
    QVERIFY(!req.contains("clustering") && !req.contains("transpose"));  // nothing copied across

    // The stored request runs the same experiment again.
    const QString again = dir_.filePath("npy-again.json");
    const auto r2 = runCli({"run", "--request", json, "--json", again});
    QCOMPARE(r2.exitCode, 0);
    QVERIFY(r2.out.contains("knn image 12x19x3 (" + path + "), window 3 rows, k 4"));
    const QJsonObject run1 = readJson(json)["runs"].toArray()[0].toObject();
    const QJsonObject run2 = readJson(again)["runs"].toArray()[0].toObject();
    QCOMPARE(run2["request"], run1["request"]);
    const QJsonArray v1 = run1["variants"].toArray(), v2 = run2["variants"].toArray();
    QCOMPARE(v2.size(), v1.size());
    for (int i = 0; i < v1.size(); ++i) {
      QCOMPARE(v2[i].toObject()["verification"], v1[i].toObject()["verification"]);
      QCOMPARE(v2[i].toObject()["knn"], v1[i].toObject()["knn"]);
    }
    // An image file gives the image's size: --image beside it would be ignored, so it is refused.
    const auto r3 = runCli({"run", "knn", "--input", path, "--image", "5x5", "--backend", "cpu"});
    QCOMPARE(r3.exitCode, 2);
    QVERIFY2(r3.err.contains("--image 5x5 does not apply with --input"), qPrintable(r3.err));
  }

  void badInputExitsTwoWithOneLine_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("expected");
    QTest::newRow("C 33") << QStringList{"--image", "10x10x33"} << "33 components is outside 1..32";
    QTest::newRow("window 0") << QStringList{"--image", "10x10", "--window", "0"} << "--window 0 is outside 1..65535";
    QTest::newRow("k 40") << QStringList{"--image", "10x10", "--k", "40"} << "--k 40 is outside 1..32";
    QTest::newRow("k >= window") << QStringList{"--image", "1x5", "--k", "8"} << "needs at least 9 pixels in the window";
    QTest::newRow("block") << QStringList{"--image", "10x10", "--block", "2048x1"} << "--block 2048x1: each side must be 1..1024";
    QTest::newRow("block vs tpb") << QStringList{"--image", "10x10", "--block", "32x8", "--tpb", "128"} << "is 256 threads but --tpb says 128";
    QTest::newRow("variant") << QStringList{"--variant", "texture"} << "unknown knn variant";
    QTest::newRow("missing file") << QStringList{"--input", "/nonexistent/x.npy"} << "cannot open the file";
    QTest::newRow("cpu work") << QStringList{"--image", "4096x4096x8"} << "the CPU backend runs at most";
  }
  void badInputExitsTwoWithOneLine() {
    QFETCH(QStringList, args);
    QFETCH(QString, expected);
    const auto r = runCli(QStringList{"run", "knn"} + args + QStringList{"--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains(expected), qPrintable(r.err));
    QCOMPARE(r.err.trimmed().count('\n'), 0);
    QVERIFY(r.out.isEmpty());
  }

  void nanInTheImageIsNamed() {
    kernellab::knn::Image img = kernellab::knn::makeImage(4, 5, 1, 1);
    img.planes[7] = std::numeric_limits<float>::quiet_NaN();  // row 1, column 2
    const QString path = dir_.filePath("nan.npy");
    kernellab::knn::saveNpyImage(path.toStdString(), img);
    const auto r = runCli({"run", "knn", "--input", path, "--window", "1", "--k", "2", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("value at (1, 2, 0) is NaN"), qPrintable(r.err));
  }

  void refusedVariantExitsOneAndSaysWhy() {
    const auto r = runCli({"run", "knn", "--image", "6x512x32", "--window", "4", "--variant",
                           "shared-window", "--backend", "cpu", "--no-verify", "--reps", "1"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.contains("not run: shared-window needs 294912 B of shared memory per block"));
  }

  void verifyPassesOnTheCpu() {
    const auto r = runCli({"verify", "--quick", "--family", "knn", "--backend", "cpu"});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("PASS knn 1x2x1 window 1 k 1"));
    QVERIFY(r.out.contains("window larger than the image"));
    QVERIFY(r.out.contains(" 0 failed"));
    QVERIFY(!r.out.contains("FAIL"));
  }

  void verifyFailsWhenAResultIsWrong() {
    const auto r = runCli({"verify", "--quick", "--family", "knn", "--backend", "cpu"},
                          {"KERNELLAB_FAULT_INJECT=shared-row"});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.contains("FAIL knn"));
    QVERIFY2(r.out.contains("shared-row: 1 of"), qPrintable(r.out));
    QVERIFY(!r.out.contains("global: 1 of"));
  }

  void sweepOverWindowAndBlock() {
    const QString json = dir_.filePath("sweep.json");
    const auto r = runCli({"sweep", "knn", "--image", "20x24", "--window", "2,5", "--block", "32x1,8x4",
                           "--k", "3", "--reps", "1", "--warmup", "0", "--backend", "cpu", "--json", json});
    QCOMPARE(r.exitCode, 0);
    const QJsonArray runs = readJson(json)["runs"].toArray();
    QCOMPARE(runs.size(), 4);
    QCOMPARE(runs[3].toObject()["request"].toObject()["knn"].toObject()["window"].toInt(), 5);
    QCOMPARE(runs[3].toObject()["request"].toObject()["launch"].toObject()["block_y"].toInt(), 4);
  }

  void benchReportsTimeSharedMemoryAndBlocks() {
    const QString json = dir_.filePath("bench.json");
    const auto r = runCli({"bench", "knn", "--sizes", "24x20x1,16x16x3", "--reps", "1", "--backend",
                           "cpu", "--json", json});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("knn 24x20x1 per variant: time relative to global"));
    QVERIFY(r.out.contains("shared/block"));
    QVERIFY(r.out.contains("shared-row-rect: "));
    QCOMPARE(readJson(json)["runs"].toArray().size(), 2);
    QCOMPARE(readJson(json)["runs"].toArray()[1].toObject()["request"].toObject()["knn"].toObject()["window"].toInt(), 14);
  }
};

QTEST_GUILESS_MAIN(TstKnnCli)
#include "tst_knn_cli.moc"
