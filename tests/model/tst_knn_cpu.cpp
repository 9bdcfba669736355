// SPDX-License-Identifier: MIT
// The KNN windows, the CPU reference on hand-made images with known neighbours (ties included),
// every variant's phase functions on the CPU executor against the reference, the rectangular
// window's mismatch classification, the list checks and the input refusals.
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <limits>

#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"

Q_DECLARE_METATYPE(kernellab::RunRequest)

using namespace kernellab;
using namespace kernellab::knn;

namespace {

Image fromValues(int rows, int cols, const std::vector<float>& values) {
  Image img;
  img.rows = rows;
  img.cols = cols;
  img.components = static_cast<int>(values.size() / (size_t(rows) * cols));
  img.planes = values;  // already component-major
  return img;
}

// Coarse random values (a handful of levels): many exact ties between candidates.
Image tiedImage(int rows, int cols, int components, uint64_t seed) {
  Image img;
  img.rows = rows;
  img.cols = cols;
  img.components = components;
  img.planes.resize(size_t(rows) * cols * components);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (float& v : img.planes) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    v = float(x % 5) * 0.25f;
  }
  return img;
}

// The plainest possible reference: every candidate of the window, a stable sort by (d, index).
std::vector<Neighbour> bruteForce(const Image& img, const Geometry& g, WindowShape w, int64_t p) {
  std::vector<Neighbour> all;
  for (int64_t q = 0; q < g.pixels; ++q) {
    if (q == p) continue;
    bool inside;
    if (w == WindowShape::Rectangular) {
      const RowSpan rs = rectWindow(g, int(p / g.cols));
      inside = q / g.cols >= rs.lo && q / g.cols <= rs.hi;
    } else {
      const PixelRange pr = pixelWindow(g, p);
      inside = q >= pr.lo && q <= pr.hi;
    }
    if (!inside) continue;
    float d = 0;
    for (int c = 0; c < img.components; ++c) {
      const float diff = img.at(p, c) - img.at(q, c);
      d = std::fmaf(diff, diff, d);
    }
    all.push_back({int32_t(q), d});
  }
  std::stable_sort(all.begin(), all.end(), [](const Neighbour& a, const Neighbour& b) {
    return a.squaredDistance < b.squaredDistance;  // stable: equal distances keep index order
  });
  all.resize(size_t(g.k));
  return all;
}

RunRequest request(int rows, int cols, int comps, int window, int k, int bx, int by) {
  RunRequest r;
  r.family = knn::kFamily;
  r.section<KnnProblem>().rows = rows;
  r.section<KnnProblem>().cols = cols;
  r.section<KnnProblem>().components = comps;
  r.section<KnnProblem>().window = window;
  r.section<KnnProblem>().k = k;
  r.section<KnnProblem>().blockX = bx;
  r.section<KnnProblem>().blockY = by;
  r.launch.threadsPerBlock = bx * by;
  r.backend = BackendChoice::Cpu;
  r.warmup = 0;
  r.repetitions = 1;
  return r;
}

QString inputErrorOf(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TstKnnCpu : public QObject {
  Q_OBJECT

 private slots:
  void perPixelWindowSlidesAtTheBorders() {
    // 5 rows x 3 columns, W = 2: one row before, one after, span 6 candidates.
    const Geometry g = windowGeometry({5, 3, 1}, 2, 2);
    QCOMPARE(g.before, 1);
    QCOMPARE(g.span, int64_t(6));
    QCOMPARE(pixelWindow(g, 0).lo, int64_t(0));   // top: slid down, not shrunk
    QCOMPARE(pixelWindow(g, 0).hi, int64_t(6));
    QCOMPARE(pixelWindow(g, 7).lo, int64_t(4));   // interior: p - cols .. p + cols
    QCOMPARE(pixelWindow(g, 7).hi, int64_t(10));
    QCOMPARE(pixelWindow(g, 14).lo, int64_t(8));  // bottom: slid up
    QCOMPARE(pixelWindow(g, 14).hi, int64_t(14));
    for (int64_t p = 0; p < g.pixels; ++p) {
      const PixelRange w = pixelWindow(g, p);
      QVERIFY(w.lo <= p && p <= w.hi);
      QCOMPARE(w.hi - w.lo, g.span);
    }
  }

  void rectangularWindowCoversTheRowsWindows() {
    const Geometry g = windowGeometry({9, 7, 1}, 4, 3);
    QCOMPARE(g.rectRows, 5);
    QCOMPARE(rectWindow(g, 0).lo, 0);
    QCOMPARE(rectWindow(g, 0).hi, 4);
    QCOMPARE(rectWindow(g, 4).lo, 2);
    QCOMPARE(rectWindow(g, 8).lo, 4);
    QCOMPARE(rectWindow(g, 8).hi, 8);
    for (int64_t p = 0; p < g.pixels; ++p) {
      const RowSpan rs = rectWindow(g, int(p / g.cols));
      const PixelRange w = pixelWindow(g, p);
      QVERIFY(rs.lo * g.cols <= w.lo);               // the rectangle contains the pixel's window
      QVERIFY((rs.hi + 1) * int64_t(g.cols) - 1 >= w.hi);
    }
  }

  void windowLargerThanTheImageIsTheWholeImage() {
    const Geometry g = windowGeometry({4, 5, 1}, 14, 8);
    QCOMPARE(g.span, int64_t(19));
    QCOMPARE(g.rectRows, 4);
    for (int64_t p = 0; p < g.pixels; ++p) {
      QCOMPARE(pixelWindow(g, p).lo, int64_t(0));
      QCOMPARE(pixelWindow(g, p).hi, int64_t(19));
    }
    QCOMPARE(candidatesPerPixel(g, WindowShape::Rectangular), int64_t(19));
  }

  // example-begin knn-reference
  void referenceOnAHandMadeRow() {
    // One row of 6 pixels, one component: 0 1 3 6 10 15. A 1-row window holds the whole row.
    const Image img = fromValues(1, 6, {0, 1, 3, 6, 10, 15});
    const Geometry g = windowGeometry({1, 6, 1}, 1, 2);
    Lists out;
    referenceKnn(img, g, WindowShape::PerPixel, out);
    // Pixel 0: 1 (d2 = 1), then 2 (d2 = 9).
    QCOMPARE(out.index[0], 1);
    QCOMPARE(out.squaredDistance[0], 1.0f);
    QCOMPARE(out.index[1], 2);
    QCOMPARE(out.squaredDistance[1], 9.0f);
    // Pixel 2 (value 3): 1 at d2 = 4, then a tie at d2 = 9 between 0 and 3: the lower index wins.
    QCOMPARE(out.index[4], 1);
    QCOMPARE(out.index[5], 0);
    QCOMPARE(out.squaredDistance[5], 9.0f);
  }
  // example-end knn-reference

  void referenceOnAHandMadeGrid() {
    // 5 x 3 image whose value is its own index: d2(p, q) = (p - q)^2. W = 2, k = 4.
    std::vector<float> v(15);
    for (int i = 0; i < 15; ++i) v[size_t(i)] = float(i);
    const Image img = fromValues(5, 3, v);
    const Geometry g = windowGeometry({5, 3, 1}, 2, 4);
    Lists out;
    referenceKnn(img, g, WindowShape::PerPixel, out);
    // Pixel 7, window 4..10: 6 and 8 tie at 1, then 5 and 9 tie at 4.
    const int32_t p7[] = {6, 8, 5, 9};
    for (int j = 0; j < 4; ++j) QCOMPARE(out.index[size_t(7 * 4 + j)], p7[j]);
    // Pixel 14, window slid to 8..14: 13, 12, 11, 10.
    const int32_t p14[] = {13, 12, 11, 10};
    for (int j = 0; j < 4; ++j) QCOMPARE(out.index[size_t(14 * 4 + j)], p14[j]);
    // Pixel 0, window 0..6: 1, 2, 3, 4.
    for (int j = 0; j < 4; ++j) QCOMPARE(out.index[size_t(j)], j + 1);
  }

  void referenceNeighboursOfOnePixelMatchTheLists() {
    const Image img = makeImage(30, 20, 2, 4);
    const Geometry g = windowGeometry({30, 20, 2}, 5, 6);
    Lists out;
    referenceKnn(img, g, WindowShape::Rectangular, out);
    const auto one = referenceNeighbours(img, g, WindowShape::Rectangular, 311);
    QCOMPARE(one.size(), size_t(6));
    for (int j = 0; j < 6; ++j) {
      QCOMPARE(one[size_t(j)].index, out.index[size_t(311 * 6 + j)]);
      QCOMPARE(one[size_t(j)].squaredDistance, out.squaredDistance[size_t(311 * 6 + j)]);
    }
  }

  void referenceMatchesBruteForceWithManyTies_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("comps");
    QTest::addColumn<int>("window");
    QTest::addColumn<int>("k");
    QTest::newRow("7x9 C1 W3 k5") << 7 << 9 << 1 << 3 << 5;
    QTest::newRow("12x5 C3 W4 k8") << 12 << 5 << 3 << 4 << 8;
    QTest::newRow("3x11 C2 W14 k10") << 3 << 11 << 2 << 14 << 10;
    QTest::newRow("20x1 C1 W5 k1") << 20 << 1 << 1 << 5 << 1;
  }
  void referenceMatchesBruteForceWithManyTies() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, comps);
    QFETCH(int, window);
    QFETCH(int, k);
    const Image img = tiedImage(rows, cols, comps, 9);
    const Geometry g = windowGeometry({rows, cols, comps}, window, k);
    for (WindowShape w : {WindowShape::PerPixel, WindowShape::Rectangular}) {
      Lists out;
      referenceKnn(img, g, w, out);
      for (int64_t p = 0; p < g.pixels; ++p) {
        const auto expected = bruteForce(img, g, w, p);
        for (int j = 0; j < k; ++j) {
          QCOMPARE(out.index[size_t(p * k + j)], expected[size_t(j)].index);
          QCOMPARE(out.squaredDistance[size_t(p * k + j)], expected[size_t(j)].squaredDistance);
        }
      }
    }
  }

  void executorMatchesReference_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("comps");
    QTest::addColumn<int>("window");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("bx");
    QTest::addColumn<int>("by");
    QTest::addColumn<bool>("ties");
    QTest::newRow("1x2 k1") << 1 << 2 << 1 << 1 << 1 << 32 << 1 << false;
    QTest::newRow("23x17 W4") << 23 << 17 << 1 << 4 << 8 << 64 << 1 << false;
    QTest::newRow("37x41 C3 32x8") << 37 << 41 << 3 << 14 << 8 << 32 << 8 << false;
    QTest::newRow("6x9 window>image") << 6 << 9 << 2 << 14 << 8 << 16 << 4 << true;
    QTest::newRow("40x1 column") << 40 << 1 << 1 << 14 << 8 << 32 << 1 << false;
    QTest::newRow("1x300 row") << 1 << 300 << 1 << 14 << 8 << 128 << 1 << true;
    QTest::newRow("29x31 C32 k32") << 29 << 31 << 32 << 3 << 32 << 16 << 16 << false;
    QTest::newRow("50x45 C5 k1 33x3") << 50 << 45 << 5 << 5 << 1 << 33 << 3 << true;
    QTest::newRow("30x70 C8 k12 1x64") << 30 << 70 << 8 << 6 << 12 << 1 << 64 << true;
    QTest::newRow("19x23 odd W 7x5") << 19 << 23 << 1 << 5 << 3 << 7 << 5 << true;
  }
  void executorMatchesReference() {
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, comps);
    QFETCH(int, window);
    QFETCH(int, k);
    QFETCH(int, bx);
    QFETCH(int, by);
    QFETCH(bool, ties);
    const Image img = ties ? tiedImage(rows, cols, comps, 3) : makeImage(rows, cols, comps, 3);
    const RunRequest r = request(rows, cols, comps, window, k, bx, by);
    const ImageShape shape{rows, cols, comps};
    const Geometry base = windowGeometry(shape, window, k);
    Lists perPixel, rect;
    referenceKnn(img, base, WindowShape::PerPixel, perPixel);
    referenceKnn(img, base, WindowShape::Rectangular, rect);
    for (const auto& vi : variants()) {
      const Geometry g = makeGeometry(shape, r, vi.variant);
      Lists out;
      out.reset(g.pixels, g.k);  // poisoned
      executeOnCpu(vi.variant, g, img, out);
      const bool isRect = windowOf(vi.variant) == WindowShape::Rectangular;
      const Verification v = compareLists(isRect ? rect : perPixel, out, g);
      QVERIFY2(v.passed, qPrintable(QString(vi.id) + ": " + QString::fromStdString(v.note)));
      std::string problem;
      QCOMPARE(checkConsistency(img, g, windowOf(vi.variant), out, problem), uint64_t(0));
    }
  }

  void sharedMemoryPerVariant() {
    // The seed's image and launch (one block per image row): W + 1 rows staged, or one row.
    const RunRequest r = request(377, 329, 1, 14, 8, 329, 1);
    const ImageShape s{377, 329, 1};
    QCOMPARE(sharedBytes(makeGeometry(s, r, Variant::Global)), uint64_t(0));
    QCOMPARE(sharedBytes(makeGeometry(s, r, Variant::SharedWindow)), uint64_t(4 * 329 * 15));
    QCOMPARE(sharedBytes(makeGeometry(s, r, Variant::SharedRow)), uint64_t(4 * 329));
    QCOMPARE(sharedBytes(makeGeometry(s, r, Variant::SharedRowRect)), uint64_t(4 * 329));
    // 256-wide blocks: W rows' worth plus the block's own extent.
    const RunRequest r256 = request(377, 329, 1, 14, 8, 256, 1);
    QCOMPARE(makeGeometry(s, r256, Variant::SharedWindow).sharedPitch, 14 * 329 + 256);
  }

  void blockShapeComesFromThreadsPerBlock() {
    RunRequest r = request(50, 60, 1, 4, 4, 0, 0);
    r.launch.threadsPerBlock = 128;
    Geometry g = makeGeometry({50, 60, 1}, r, Variant::Global);
    QCOMPARE(g.blockX, 128);
    QCOMPARE(g.blockY, 1);
    QCOMPARE(g.gridX, 1);
    QCOMPARE(g.gridY, 50);
    r.section<KnnProblem>().blockX = 32;
    g = makeGeometry({50, 60, 1}, r, Variant::Global);
    QCOMPARE(g.blockY, 4);
    QCOMPARE(g.gridX, 2);
    QCOMPARE(g.gridY, 13);
  }

  void classificationSeparatesTieSwapsFromNearerPixels() {
    // Hand-made lists for 3 pixels, k = 2: identical, a tie swap, a nearer pixel.
    const Geometry g = windowGeometry({1, 3, 1}, 1, 2);
    Lists perPixel, rect;
    perPixel.k = rect.k = 2;
    perPixel.index = {1, 2, 0, 2, 1, 0};
    perPixel.squaredDistance = {1, 4, 1, 1, 1, 4};
    rect.index = {1, 2, 2, 0, 1, 0};  // pixel 1: same distances, other pixels; pixel 2: nearer
    rect.squaredDistance = {1, 4, 1, 1, 1, 2};
    const KnnWindowMismatch m = classifyAgainstPerPixel(perPixel, rect, g);
    QCOMPARE(m.pixels, uint64_t(3));
    QCOMPARE(m.mismatched, uint64_t(2));
    QCOMPARE(m.tieSwaps, uint64_t(1));
    QCOMPARE(m.differentNeighbours, uint64_t(1));
    QCOMPARE(m.slotsCompared, uint64_t(6));
    QCOMPARE(m.slotsMismatched, uint64_t(3));
    QCOMPARE(m.slotTieSwaps, uint64_t(2));
    QCOMPARE(m.mismatchPct, 200.0 / 3.0);
  }

  void rectangularVariantDiffersWhereTheWindowsDo() {
    // 5 x 3 image, W = 2. Pixel 8 copies pixel 1's value: only the rectangle of row 0 (rows 0..2)
    // holds it for pixel 1, whose own window is 0..6.
    std::vector<float> v = {10, 1, 10, 20, 30, 17, 40, 50, 1, 60, 70, 80, 90, 95, 99};
    const Image img = fromValues(5, 3, v);
    const Geometry g = windowGeometry({5, 3, 1}, 2, 1);
    Lists perPixel, rect;
    referenceKnn(img, g, WindowShape::PerPixel, perPixel);
    referenceKnn(img, g, WindowShape::Rectangular, rect);
    QCOMPARE(perPixel.index[1], 0);  // pixel 1: nearest in its window is 0 (d2 81)
    QCOMPARE(rect.index[1], 8);      // the rectangle finds pixel 8 (d2 0)
    QCOMPARE(perPixel.index[5], 3);  // pixel 5 (17): 20 at pixel 3 (d2 9)
    QCOMPARE(rect.index[5], 3);
    QCOMPARE(perPixel.index[2], 0);  // pixel 2 (10): pixel 0 holds 10 too, in both windows
    QCOMPARE(rect.index[2], 0);
    const KnnWindowMismatch m = classifyAgainstPerPixel(perPixel, rect, g);
    QVERIFY(m.differentNeighbours >= 1);
    QCOMPARE(m.mismatched, m.tieSwaps + m.differentNeighbours);
  }

  void tieSwapEndToEnd() {
    // Pixel 5 (row 1, value 5): its window is 2..8; pixel 2 (value 7) is its nearest at d2 4.
    // Pixel 0 also holds 7 but lies only in the rectangle (rows 0..2): same distance, lower index.
    std::vector<float> v = {7, 100, 7, 200, 300, 5, 400, 500, 600, 700, 800, 900, 950, 990, 999};
    const Image img = fromValues(5, 3, v);
    const Geometry g = windowGeometry({5, 3, 1}, 2, 1);
    Lists perPixel, rect;
    referenceKnn(img, g, WindowShape::PerPixel, perPixel);
    referenceKnn(img, g, WindowShape::Rectangular, rect);
    QCOMPARE(perPixel.index[5], 2);
    QCOMPARE(rect.index[5], 0);
    QCOMPARE(rect.squaredDistance[5], perPixel.squaredDistance[5]);
    const KnnWindowMismatch m = classifyAgainstPerPixel(perPixel, rect, g, {1});
    QCOMPARE(m.pixels, uint64_t(3));
    QCOMPARE(m.tieSwaps, uint64_t(1));
    QCOMPARE(m.differentNeighbours, uint64_t(0));
  }

  void comparisonNamesThePoison() {
    const Image img = makeImage(10, 8, 1, 2);
    const Geometry g = windowGeometry({10, 8, 1}, 3, 4);
    Lists ref, out;
    referenceKnn(img, g, WindowShape::PerPixel, ref);
    out = ref;
    out.index[size_t(33 * 4 + 2)] = -1;
    out.squaredDistance[size_t(33 * 4 + 2)] = std::numeric_limits<float>::quiet_NaN();
    const Verification v = compareLists(ref, out, g);
    QVERIFY(!v.passed);
    QCOMPARE(v.mismatches, uint64_t(1));
    QVERIFY2(QString::fromStdString(v.note).contains("pixel (4, 1) neighbour 2"), v.note.c_str());
    QVERIFY(QString::fromStdString(v.note).contains("never written"));
  }

  void consistencyCatchesWrongLists() {
    const Image img = makeImage(12, 10, 2, 6);
    const Geometry g = windowGeometry({12, 10, 2}, 2, 3);
    Lists ref;
    referenceKnn(img, g, WindowShape::PerPixel, ref);
    std::string problem;
    QCOMPARE(checkConsistency(img, g, WindowShape::PerPixel, ref, problem), uint64_t(0));
    Lists bad = ref;
    bad.index[size_t(50 * 3)] = 50;  // the pixel itself
    QCOMPARE(checkConsistency(img, g, WindowShape::PerPixel, bad, problem), uint64_t(1));
    QVERIFY(QString::fromStdString(problem).contains("pixel (5, 0)"));
    bad = ref;
    bad.squaredDistance[size_t(70 * 3 + 1)] += 1.0f;  // a distance that was not computed so
    QCOMPARE(checkConsistency(img, g, WindowShape::PerPixel, bad, problem), uint64_t(1));
    QVERIFY(QString::fromStdString(problem).contains("recomputed"));
    bad = ref;
    std::swap(bad.index[size_t(90 * 3)], bad.index[size_t(90 * 3 + 2)]);
    std::swap(bad.squaredDistance[size_t(90 * 3)], bad.squaredDistance[size_t(90 * 3 + 2)]);
    QVERIFY(checkConsistency(img, g, WindowShape::PerPixel, bad, problem) >= 1);
  }

  void sampledRowsIncludeTheBorders() {
    const Geometry g = windowGeometry({4096, 4096, 8}, 14, 8);
    const std::vector<int> rows = referenceRows(g, WindowShape::Rectangular, kReferenceBudgetTerms);
    QVERIFY(rows.size() < 4096);
    for (int r : {0, 6, 7, 8, 2048, 4088, 4089, 4095}) QVERIFY(std::count(rows.begin(), rows.end(), r) == 1);
    QVERIFY(std::is_sorted(rows.begin(), rows.end()));
    const Geometry small = windowGeometry({40, 30, 1}, 14, 8);
    QCOMPARE(referenceRows(small, WindowShape::PerPixel, kReferenceBudgetTerms).size(), size_t(40));
  }

  void runOnTheCpuBackendVerifiesEveryVariant() {
    RunRequest r = request(33, 47, 2, 6, 5, 32, 2);
    r.section<KnnProblem>().keepNeighbours = true;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.variants.size(), size_t(4));
    for (const auto& v : res.variants) {
      QVERIFY(v.verification.passed);
      QVERIFY(v.detail<KnnDetails>() != nullptr);
      QCOMPARE(v.detail<KnnDetails>()->indices.size(), size_t(33 * 47 * 5));
      QCOMPARE(v.detail<KnnDetails>()->referencePixels, uint64_t(33 * 47));
      QCOMPARE(v.detail<KnnDetails>()->versusPerPixel.has_value(), v.variant == "shared-row-rect");
    }
    // W * cols candidates + the block's reach (one more row, 32 columns) + the first pixel, x 2 components.
    QCOMPARE(res.variants[1].detail<KnnDetails>()->sharedBytesPerBlock,
             uint64_t(4 * 2 * (6 * 47 + 47 + 31 + 1)));
  }

  void knnResultFieldsSurviveJson() {
    RunRequest r = request(9, 11, 2, 3, 4, 16, 2);
    r.section<KnnProblem>().keepNeighbours = true;
    ResultsFile file;
    file.runs.push_back(runExperiment(r));
    file.runs.back().variants[1].refused = true;  // as a refused variant would carry it
    const ResultsFile back = parseResultsFile(nlohmann::json(file).dump());
    const RunResult& a = file.runs.front();
    const RunResult& b = back.runs.front();
    QVERIFY(b.request.section<KnnProblem>().keepNeighbours);
    QCOMPARE(b.request.section<KnnProblem>().blockY, 2);
    QVERIFY(b.variants[1].refused);
    QVERIFY(!b.variants[0].refused);
    for (size_t i = 0; i < a.variants.size(); ++i) {
      const KnnDetails& x = *a.variants[i].detail<KnnDetails>();
      const KnnDetails& y = *b.variants[i].detail<KnnDetails>();
      QCOMPARE(y.window, x.window);
      QCOMPARE(y.sharedBytesPerBlock, x.sharedBytesPerBlock);
      QCOMPARE(y.sharedOptIn, x.sharedOptIn);
      QCOMPARE(y.candidatesPerPixel, x.candidatesPerPixel);
      QCOMPARE(y.referencePixels, x.referencePixels);
      QCOMPARE(y.k, 4);
      QVERIFY(y.indices == x.indices);
      QVERIFY(y.squaredDistances == x.squaredDistances);
      QCOMPARE(y.versusPerPixel.has_value(), x.versusPerPixel.has_value());
    }
    const KnnWindowMismatch& m = *a.variants[3].detail<KnnDetails>()->versusPerPixel;
    const KnnWindowMismatch& n = *b.variants[3].detail<KnnDetails>()->versusPerPixel;
    QCOMPARE(n.pixels, m.pixels);
    QCOMPARE(n.mismatched, m.mismatched);
    QCOMPARE(n.tieSwaps, m.tieSwaps);
    QCOMPARE(n.differentNeighbours, m.differentNeighbours);
    QCOMPARE(n.slotsCompared, m.slotsCompared);
    QCOMPARE(n.slotsMismatched, m.slotsMismatched);
    QCOMPARE(n.slotTieSwaps, m.slotTieSwaps);
    QCOMPARE(n.slotMismatchPct, m.slotMismatchPct);
  }

  void sharedWindowBeyondTheOptInLimitIsRefusedWithTheNumbers() {
    RunRequest r = request(6, 512, 32, 4, 8, 256, 1);
    r.variants = {"shared-window", "shared-row"};
    r.verify = false;
    const RunResult res = runExperiment(r);
    QVERIFY(!res.ok);
    const VariantResult& v = res.variants[0];
    QVERIFY(!v.ok);
    QVERIFY(v.refused);
    QVERIFY(v.kernels.empty() || v.kernels.front().timing.samples == 0);  // never timed
    const QString e = QString::fromStdString(v.error);
    QVERIFY2(e.contains("needs 294912 B of shared memory per block (2304 pixels x 32 components x 4 B)"),
             qPrintable(e));
    QVERIFY(e.contains("232448 B"));
    QVERIFY(res.variants[1].ok);  // the other variant still ran
  }

  void faultInjectionFailsVerification() {
    qputenv("KERNELLAB_FAULT_INJECT", "shared-row");
    const RunResult res = runExperiment(request(20, 20, 1, 4, 3, 64, 1));
    qunsetenv("KERNELLAB_FAULT_INJECT");
    QVERIFY(!res.ok);
    for (const auto& v : res.variants)
      QCOMPARE(v.verification.passed, v.variant != "shared-row");
  }

  void badInputIsRefusedWithTheValueAndTheLimit_data() {
    QTest::addColumn<RunRequest>("r");
    QTest::addColumn<QString>("expected");
    QTest::newRow("C 33") << request(10, 10, 33, 4, 4, 64, 1) << "33 components is outside 1..32";
    QTest::newRow("window 0") << request(10, 10, 1, 0, 4, 64, 1) << "--window 0 is outside 1..65535";
    QTest::newRow("k 0") << request(10, 10, 1, 4, 0, 64, 1) << "--k 0 is outside 1..32";
    QTest::newRow("k 40") << request(10, 10, 1, 4, 40, 64, 1) << "--k 40 is outside 1..32";
    QTest::newRow("k too large") << request(1, 5, 1, 14, 8, 64, 1)
                                 << "--k 8 needs at least 9 pixels in the window";
    QTest::newRow("one pixel") << request(1, 1, 1, 1, 1, 32, 1) << "single pixel";
    QTest::newRow("block 2048") << request(10, 10, 1, 4, 4, 2048, 1) << "CUDA allows at most 1024";
    QTest::newRow("cpu work") << request(4096, 4096, 8, 14, 8, 256, 1) << "the CPU backend runs at most";
    RunRequest schedule = request(10, 10, 1, 4, 4, 64, 1);
    schedule.recordSchedule = true;
    QTest::newRow("schedule") << schedule << "not recorded for knn";
  }
  void badInputIsRefusedWithTheValueAndTheLimit() {
    QFETCH(RunRequest, r);
    QFETCH(QString, expected);
    const QString msg = inputErrorOf([&] { validateRequest(r); });
    QVERIFY2(msg.contains(expected), qPrintable(msg));
    QVERIFY(!msg.contains('\n'));
  }
};

QTEST_GUILESS_MAIN(TstKnnCpu)
#include "tst_knn_cpu.moc"
