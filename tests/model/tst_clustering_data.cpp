// SPDX-License-Identifier: MIT
// Clustering data: the seed's generator (counts, offsets, reproducibility), blobs, both layouts
// holding the same values, the loaders (good files and every refusal's message) and the initial
// centers.
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <type_traits>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"

using namespace kernellab;
using namespace kernellab::clustering;

namespace {

// A minimal .npy writer (format 1.0): the header dict padded so the data starts 64-aligned.
void writeNpy(const std::string& path, const std::string& descr, const std::string& shape,
              const void* data, size_t bytes, bool fortran = false) {
  std::string header = "{'descr': '" + descr +
                       "', 'fortran_order': " + (fortran ? "True" : "False") +
                       ", 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream out(path, std::ios::binary);
  out.write("\x93NUMPY\x01\x00", 8);
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.put(static_cast<char>(len & 0xFF));
  out.put(static_cast<char>(len >> 8));
  out << header;
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
}

void writeText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

QString errorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return QString();
}

}  // namespace

class TstClusteringData : public QObject {
  Q_OBJECT
  QTemporaryDir dir_;
  std::string path(const char* name) { return dir_.filePath(name).toStdString(); }

 private slots:
  void seedGeneratorCountsEveryPoint_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::newRow("K divides N") << 1000 << 10;
    QTest::newRow("K does not divide N") << 1003 << 10;
    QTest::newRow("N = K") << 7 << 7;
    QTest::newRow("K = 1") << 13 << 1;
  }
  void seedGeneratorCountsEveryPoint() {
    QFETCH(int, n);
    QFETCH(int, k);
    const PointSet s = generateSeedPoints(n, k, 3, 1000.0, 5);
    QCOMPARE(s.n, int64_t(n));
    QCOMPARE(s.d, 3);
    QCOMPARE(s.values.size(), size_t(n) * 3);
    QCOMPARE(s.truth.size(), size_t(n));
    std::vector<int> counts(k, 0);
    int previous = 0;
    for (int32_t t : s.truth) {
      QVERIFY(t >= 0 && t < k);
      QVERIFY(t >= previous);  // stored cluster after cluster, as the seed generates them
      previous = t;
      ++counts[t];
    }
    for (int c = 0; c < k; ++c) QCOMPARE(counts[c], n / k + (c < n % k ? 1 : 0));
    for (float v : s.values) QVERIFY(std::isfinite(v));
  }

  void seedGeneratorOffsetsFollowTheSeed() {
    // Within a cluster, even points sit at center + offset and odd ones at center - offset, with
    // offsets in [0, radius) in 0.01 steps: so even - odd coordinates are >= 0 around the center.
    const double radius = 10.0;
    const PointSet s = generateSeedPoints(400, 2, 4, radius, 9);
    for (int c = 0; c < 2; ++c) {
      const int64_t base = c * 200;
      for (int j = 0; j < 4; ++j) {
        double evenMin = 1e30, oddMax = -1e30;
        for (int64_t p = 0; p < 200; ++p) {
          const double v = s.values[(base + p) * 4 + j];
          if (p % 2 == 0)
            evenMin = std::min(evenMin, v);
          else
            oddMax = std::max(oddMax, v);
        }
        QVERIFY(evenMin >= oddMax);  // the center lies between them
        QVERIFY(evenMin - oddMax < 2 * radius);
      }
    }
  }

  void generatorsAreReproducible() {
    const PointSet a = generateSeedPoints(500, 4, 5, 1000, 7),
                   b = generateSeedPoints(500, 4, 5, 1000, 7);
    const PointSet c = generateSeedPoints(500, 4, 5, 1000, 8);
    QVERIFY(a.values == b.values);
    QVERIFY(a.values != c.values);
    const PointSet x = generateBlobs(500, 4, 5, 1000, 0.1, 7),
                   y = generateBlobs(500, 4, 5, 1000, 0.1, 7);
    QVERIFY(x.values == y.values);
    QVERIFY(x.truth == y.truth);
  }

  void blobsHaveNoiseAndInterleavedClusters() {
    const PointSet s = generateBlobs(1000, 5, 2, 100.0, 0.1, 3);
    int noise = 0;
    std::vector<int> counts(5, 0);
    for (int32_t t : s.truth) {
      if (t < 0)
        ++noise;
      else
        ++counts[t];
    }
    QCOMPARE(noise, 100);
    for (int c = 0; c < 5; ++c) QCOMPARE(counts[c], 180);
    bool sorted = std::is_sorted(s.truth.begin(), s.truth.end());
    QVERIFY(!sorted);  // shuffled
    QVERIFY_THROWS_EXCEPTION(InputError, generateBlobs(10, 2, 2, 1.0, 1.5, 1));
  }

  void generatorRefusesBadShapes() {
    QCOMPARE(errorOf([] { generateSeedPoints(3, 5, 2, 1000, 1); }),
             QString("--k 5 is larger than --n 3 (K clusters need at least K points)"));
    QCOMPARE(errorOf([] { generateSeedPoints(10, 2, 0, 1000, 1); }),
             QString("--d 0 must be at least 1"));
    QCOMPARE(errorOf([] { generateSeedPoints(0, 1, 2, 1000, 1); }),
             QString("--n 0 must be at least 1"));
  }

  void bothLayoutsHoldTheSameValues() {
    const PointSet s = generateSeedPoints(123, 3, 7, 1000, 2);
    const ArrangedPoints<CoalescedLayout> c(s);
    const ArrangedPoints<InterleavedLayout> i(s);
    const auto cv = c.view();
    const auto iv = i.view();
    for (int64_t p = 0; p < s.n; ++p)
      for (int j = 0; j < s.d; ++j) {
        const float expected = s.values[p * s.d + j];
        QCOMPARE(cv.values()[cv.element(p, j)], expected);
        QCOMPARE(iv.values()[iv.element(p, j)], expected);
      }
    QCOMPARE(cv.element(5, 2), int64_t(2 * 123 + 5));  // X[d * N + i]
    QCOMPARE(iv.element(5, 2), int64_t(5 * 7 + 2));    // X[i * D + d]
    const auto dm = toDimensionMajor(s);
    QVERIFY(dm == c.values());
  }

  void aLayoutMismatchDoesNotCompile() {
    // A view of one layout cannot be made from a raw pointer, nor turned into the other layout.
    static_assert(
        !std::is_constructible_v<PointsView<CoalescedLayout>, const float*, int64_t, int>);
    static_assert(
        !std::is_convertible_v<PointsView<CoalescedLayout>, PointsView<InterleavedLayout>>);
    static_assert(
        !std::is_convertible_v<PointsView<InterleavedLayout>, PointsView<CoalescedLayout>>);
    QVERIFY(true);
  }

  void csvWithAndWithoutHeader() {
    writeText(path("h.csv"), "x,y,z\r\n1,2,3\r\n4.5,-6,7e2\r\n\r\n");
    writeText(path("noh.csv"), "1;2;3\n4.5;-6;700\n");
    writeText(path("ws.txt"), "  1 2\t3\n4.5   -6 700\n");
    for (const char* name : {"h.csv", "noh.csv", "ws.txt"}) {
      const PointSet s = loadPoints(path(name));
      QCOMPARE(s.n, int64_t(2));
      QCOMPARE(s.d, 3);
      const std::vector<float> expected{1, 2, 3, 4.5f, -6, 700};
      QVERIFY2(s.values == expected, name);
      QVERIFY(s.truth.empty());
      QCOMPARE(QString::fromStdString(s.source), QString::fromStdString(path(name)));
    }
  }

  void npyFloat32AndFloat64() {
    const float f32[] = {1, 2, 3, 4, 5, 6};
    writeNpy(path("a.npy"), "<f4", "(3, 2)", f32, sizeof f32);
    PointSet s = loadPoints(path("a.npy"));
    QCOMPARE(s.n, int64_t(3));
    QCOMPARE(s.d, 2);
    QVERIFY(s.values == std::vector<float>(f32, f32 + 6));
    const double f64[] = {0.5, -1.5, 2.25};
    writeNpy(path("b.npy"), "<f8", "(3,)", f64, sizeof f64);
    s = loadPoints(path("b.npy"));
    QCOMPARE(s.n, int64_t(3));
    QCOMPARE(s.d, 1);
    QCOMPARE(s.values[2], 2.25f);
  }

  void badFilesNameTheProblem_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::addColumn<QString>("expected");
    QTest::newRow("malformed") << "m.csv" << QByteArray("x,y\n1,2\n3,abc\n")
                               << "m.csv line 3, field 2: 'abc' is not a number";
    QTest::newRow("nan") << "nan.csv" << QByteArray("1,2\nnan,4\n")
                         << "nan.csv line 2, field 1: NaN is not allowed";
    QTest::newRow("inf") << "inf.csv" << QByteArray("1,2\n3,inf\n")
                         << "inf.csv line 2, field 2: 'inf' is infinite";
    QTest::newRow("ragged")
        << "r.csv" << QByteArray("a,b\n1,2\n3,4,5\n")
        << "r.csv line 3 has 3 fields; line 2 (the first data line) has 2 (ragged rows)";
    QTest::newRow("empty") << "e.csv" << QByteArray("") << "e.csv: no data lines";
    QTest::newRow("header only") << "ho.csv" << QByteArray("x,y\n") << "ho.csv: no data lines";
    QTest::newRow("too big") << "big.csv" << QByteArray("1e39,1\n")
                             << "big.csv line 1, field 1: 1e39 does not fit in float32";
    QTest::newRow("extension") << "p.json" << QByteArray("[]")
                               << "unknown point file type '.json' (.csv or .npy)";
    QTest::newRow("not npy") << "x.npy" << QByteArray("hello world") << "x.npy: not a .npy file";
  }
  void badFilesNameTheProblem() {
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    QFETCH(QString, expected);
    const std::string p = path(qPrintable(name));
    writeText(p, content.toStdString());
    const QString err = errorOf([&] { loadPoints(p); });
    QVERIFY2(err.contains(expected), qPrintable(err));
    QCOMPARE(err.count('\n'), 0);
  }

  void badNpyHeadersNameTheField() {
    const int32_t ints[] = {1, 2, 3, 4};
    writeNpy(path("i.npy"), "<i4", "(2, 2)", ints, sizeof ints);
    QVERIFY(errorOf([&] {
              loadPoints(path("i.npy"));
            }).contains("dtype '<i4' is not supported (float32 '<f4' or float64 '<f8')"));
    const float f[] = {1, 2, 3, 4};
    writeNpy(path("f.npy"), "<f4", "(2, 2)", f, sizeof f, true);
    QVERIFY(errorOf([&] { loadPoints(path("f.npy")); }).contains("Fortran order"));
    writeNpy(path("be.npy"), ">f4", "(2, 2)", f, sizeof f);
    QVERIFY(errorOf([&] { loadPoints(path("be.npy")); }).contains("big-endian"));
    writeNpy(path("t.npy"), "<f4", "(3, 2)", f, sizeof f);
    QVERIFY(errorOf([&] {
              loadPoints(path("t.npy"));
            }).contains("data is 16 bytes; shape (3, 2) of <f4 needs 24"));
    writeNpy(path("d0.npy"), "<f4", "(4, 0)", f, 0);
    QVERIFY(errorOf([&] { loadPoints(path("d0.npy")); }).contains("has no dimensions (D = 0)"));
    writeNpy(path("n0.npy"), "<f4", "(0, 3)", f, 0);
    QVERIFY(errorOf([&] { loadPoints(path("n0.npy")); }).contains("holds no points (N = 0)"));
    writeNpy(path("3d.npy"), "<f4", "(1, 2, 2)", f, sizeof f);
    QVERIFY(errorOf([&] { loadPoints(path("3d.npy")); }).contains("points must be a 2-D array"));
    const float nanData[] = {1, 2, NAN, 4};
    writeNpy(path("nan.npy"), "<f4", "(2, 2)", nanData, sizeof nanData);
    QVERIFY(errorOf([&] { loadPoints(path("nan.npy")); }).contains("element [1, 0] is NaN"));
    const double huge[] = {1e300, 1};
    writeNpy(path("huge.npy"), "<f8", "(1, 2)", huge, sizeof huge);
    QVERIFY(errorOf([&] { loadPoints(path("huge.npy")); }).contains("element [0, 0]"));
  }

  void fewerPointsThanClustersIsRefused() {
    writeText(path("three.csv"), "1,1\n2,2\n3,3\n");
    RunRequest r;
    r.family = clustering::kKMeans;
    r.section<ClusteringProblem>().inputPath = path("three.csv");
    r.section<ClusteringProblem>().k = 5;
    r.backend = BackendChoice::Cpu;
    const QString err = errorOf([&] { validateRequest(r); });
    QVERIFY2(err.contains("--k 5 is larger than the 3 points of"), qPrintable(err));
  }

  void centersFileMustBeKxD() {
    writeText(path("c.csv"), "0,0\n5,5\n");
    QCOMPARE(loadCenters(path("c.csv"), 2, 2).size(), size_t(4));
    QVERIFY(errorOf([&] { loadCenters(path("c.csv"), 3, 2); }).contains("2 centers; --k is 3"));
    QVERIFY(errorOf([&] {
              loadCenters(path("c.csv"), 2, 3);
            }).contains("centers have 2 dimensions; the points have 3"));
  }

  void initialCentersMethods() {
    const PointSet s = generateBlobs(2000, 6, 3, 100, 0.0, 4);
    const InitialCenters first = initialCenters(s, 6, InitMethod::First, 1);
    QCOMPARE(first.indices, (std::vector<int64_t>{0, 1, 2, 3, 4, 5}));
    QCOMPARE(first.values.size(), size_t(18));
    QCOMPARE(first.values[3], s.values[3]);
    for (InitMethod m : {InitMethod::Random, InitMethod::KMeansPlusPlus}) {
      const InitialCenters a = initialCenters(s, 6, m, 11), b = initialCenters(s, 6, m, 11);
      QCOMPARE(a.indices, b.indices);  // seeded
      QCOMPARE(std::set<int64_t>(a.indices.begin(), a.indices.end()).size(),
               size_t(6));  // distinct
      for (int64_t i : a.indices) QVERIFY(i >= 0 && i < s.n);
    }
    // k-means++ spreads the centers: on well-separated blobs it lands in (nearly) every blob.
    const InitialCenters pp = initialCenters(s, 6, InitMethod::KMeansPlusPlus, 11);
    std::set<int> blobs;
    for (int64_t i : pp.indices) blobs.insert(s.truth[i]);
    QVERIFY(blobs.size() >= 5);
    QCOMPARE(firstCenter(s, InitMethod::First, 3), int64_t(0));
    QVERIFY(errorOf([&] {
              firstCenter(s, InitMethod::KMeansPlusPlus, 3);
            }).contains("--init kmeans++ applies to kmeans"));
  }

  void makePointsFollowsTheRequest() {
    ClusteringProblem p;
    p.n = 50;
    p.k = 5;
    p.d = 2;
    QVERIFY(
        QString::fromStdString(makePoints(p, 1).source).startsWith("seed generator N=50 K=5 D=2"));
    p.shape = DatasetShape::Blobs;
    QVERIFY(QString::fromStdString(makePoints(p, 1).source).startsWith("blobs N=50"));
    p.inputPath = KERNELLAB_TEST_DATA_DIR "/clustering_gold_n10_k2_d2.csv";
    const PointSet gold = makePoints(p, 1);
    QCOMPARE(gold.n, int64_t(10));
    QCOMPARE(gold.d, 2);
  }

  void aSampleHoldsTheFullSetsPoints_data() {
    QTest::addColumn<int>("shape");
    QTest::newRow("seed generator") << int(DatasetShape::SeedGenerator);
    QTest::newRow("blobs") << int(DatasetShape::Blobs);
  }
  void aSampleHoldsTheFullSetsPoints() {
    // The window shows large sets through generatePointsAt: value for value the full set's.
    QFETCH(int, shape);
    ClusteringProblem p;
    p.n = 5003;
    p.k = 7;
    p.d = 5;
    p.shape = DatasetShape(shape);
    p.noiseFraction = 0.05;
    const PointSet full = makePoints(p, 42);
    const std::vector<int64_t> pick{0, 1, 2, 714, 715, 2500, 4999, 5002};
    const PointSet some = generatePointsAt(p, 42, pick);
    QCOMPARE(some.n, int64_t(pick.size()));
    for (size_t j = 0; j < pick.size(); ++j) {
      QCOMPARE(some.truth[j], full.truth[static_cast<size_t>(pick[j])]);
      for (int c = 0; c < p.d; ++c)
        QCOMPARE(some.values[j * p.d + c], full.values[static_cast<size_t>(pick[j]) * p.d + c]);
    }
    QVERIFY(errorOf([&] { generatePointsAt(p, 42, {3, 2}); }).contains("out of order"));
    QVERIFY(errorOf([&] { generatePointsAt(p, 42, {5003}); }).contains("outside 0..5002"));
  }
};

QTEST_GUILESS_MAIN(TstClusteringData)
#include "tst_clustering_data.moc"
