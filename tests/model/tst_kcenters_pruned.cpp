// SPDX-License-Identifier: MIT
// Pruned k-centers (issue 15) on the CPU backend: the same centers, labels, radii and distances
// as the seed variants' run, bit for bit, on data where pruning skips most points (the seed's
// generator) and where it skips hardly any (one broad cloud); sane visited and screened counts; the
// 8-bit sketch's error bound holds, also where cancellation and the range ends try to break it;
// the bit-for-bit comparison itself fails on a difference; Cancel stops the host run.
#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "kernellab/clustering.h"
#include "kernellab/clustering_pruning.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/pruned_reads.h"
#include "clustering_budget.h"
#include "pruned_requests.h"

using namespace kernellab;

namespace {

RunRequest pairRequest(int64_t n, int k, int d, DatasetShape shape, double noise) {
  RunRequest r = kltest::seedAndPrunedRequest(clustering::kKCenters, n, k, d, shape, noise);
  return r;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

clustering::KCentersOutputs outputs(const char* name) {
  clustering::KCentersOutputs o;
  o.variant = name;
  o.centers = {0, 7, 3};
  o.radii = {9.0f, 4.0f, 1.0f};
  o.distances = {0.0f, 1.0f, 0.5f, 0.0f, 0.25f, 1.0f, 0.75f, 0.0f};
  o.labels = {0, 1, 2, 2, 0, 1, 2, 1};
  return o;
}

}  // namespace

class TstKCentersPruned : public QObject {
  Q_OBJECT
 private slots:
  void prunedEqualsTheSeedRunBitForBit_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("shape");
    QTest::addColumn<double>("noise");
    QTest::addColumn<bool>("prunes");  // whether most points should be skipped
    // The seed's generator: K separated clusters, one center each after K centers.
    QTest::newRow("seed generator")
        << 20000 << 24 << 12 << int(DatasetShape::SeedGenerator) << 0.0 << true;
    // One broad cloud: blobs whose points are all uniform noise but K, where every point is
    // about equally far from every center and the triangle inequality rules out little.
    QTest::newRow("one broad cloud")
        << 12000 << 16 << 24 << int(DatasetShape::Blobs) << 0.99999 << false;
    // N a multiple of neither the tile nor the chunks, D = 1: ties in plenty.
    QTest::newRow("ties, D = 1") << 1001 << 40 << 1 << int(DatasetShape::SeedGenerator) << 0.0
                                 << true;
    // Centers x D past kKCentersExactBudget from center 42 on: the triangle test then compares
    // with rho2 alone.
    QTest::newRow("seed generator, D = 200, rho2 bound")
        << 20000 << 60 << 200 << int(DatasetShape::SeedGenerator) << 0.0 << true;
  }
  void prunedEqualsTheSeedRunBitForBit() {
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, d);
    QFETCH(int, shape);
    QFETCH(double, noise);
    QFETCH(bool, prunes);
    const RunResult res =
        runExperiment(pairRequest(n, k, d, static_cast<DatasetShape>(shape), noise));
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.backend, std::string("cpu"));
    QCOMPARE(res.variants.size(), size_t(2));
    const VariantResult& seed = res.variants[0];
    const VariantResult& pruned = res.variants[1];
    QCOMPARE(pruned.variant, std::string("pruned"));
    QVERIFY2(seed.verification.passed, seed.verification.note.c_str());
    QVERIFY2(pruned.verification.passed, pruned.verification.note.c_str());
    // The runner compared the two in full (distances included) and says so.
    QVERIFY2(pruned.verification.note.find("as shared-coalesced bit for bit") != std::string::npos,
             pruned.verification.note.c_str());
    const ClusteringOutput& a = *seed.detail<ClusteringOutput>();
    const ClusteringOutput& b = *pruned.detail<ClusteringOutput>();
    QCOMPARE(b.centerIndices, a.centerIndices);
    QCOMPARE(b.labels, a.labels);
    QCOMPARE(b.clusterSizes, a.clusterSizes);
    QVERIFY(sameBits(b.inertia, a.inertia));  // the same floats summed in the same order
    QCOMPARE(pruned.iterations.size(), seed.iterations.size());
    for (size_t j = 0; j < seed.iterations.size(); ++j) {
      QVERIFY(sameBits(pruned.iterations[j].score, seed.iterations[j].score));  // the radii
      QCOMPARE(pruned.iterations[j].chosenPoint, seed.iterations[j].chosenPoint);
      QCOMPARE(seed.iterations[j].visited, int64_t(-1));  // the seed reads every point: uncounted
    }
    // Visited counts (the lazy traversal): every point for center 1, then the points of the units
    // a center's passes brought up to date with some missed center to compute (each point once
    // for all of them); no sketch.
    QCOMPARE(pruned.iterations.front().visited, int64_t(n));
    // Distances summed: N for center 1; after it each read point sums one per center its unit
    // listed, at least one and at most the centers since its last catch-up (j of them).
    QCOMPARE(pruned.iterations.front().distances, int64_t(n));
    double sum = 0, distances = 0;
    for (size_t j = 0; j < pruned.iterations.size(); ++j) {
      const IterationRecord& it = pruned.iterations[j];
      QVERIFY(it.visited >= 0 && it.visited <= n);
      QCOMPARE(it.screened, int64_t(-1));
      QCOMPARE(seed.iterations[j].screened, int64_t(-1));
      QCOMPARE(seed.iterations[j].distances, int64_t(-1));
      QVERIFY2(it.distances >= it.visited, qPrintable(QString::number(j)));
      QVERIFY2(it.distances <= it.visited * int64_t(std::max<size_t>(1, j)),
               qPrintable(QString::number(j)));
      sum += double(it.visited);
      distances += double(it.distances);
    }
    // The flops count those distances, 3 D each (difference, multiply, add), over the K launches.
    QVERIFY(std::abs(pruned.kernels[0].flops - 3.0 * d * distances / k) <=
            1e-9 * pruned.kernels[0].flops);
    const double share = sum / (double(n) * k);
    qInfo("float coordinates read: %.1f %% of N x K", 100.0 * share);
    if (prunes) {
      for (size_t j = 1; j < pruned.iterations.size(); ++j)
        QVERIFY2(pruned.iterations[j].visited < n, qPrintable(QString::number(j)));
      // A center's passes touch the few clusters still without a center whose bounds reach the
      // farthest distance (about a third of 24 clusters here; 9 % of N x K at N = 1e5, K = 100,
      // D = 200), where the unpruned pass reads every point for every center.
      QVERIFY2(share < 0.4, qPrintable(QString::number(share)));
    } else {
      QVERIFY2(share <= 1.0, qPrintable(QString::number(share)));
    }
    // Its kernel's bytes count what it read: less than the unpruned pass's N * D * 4 per center.
    QCOMPARE(pruned.kernels.size(), size_t(1));
    QCOMPARE(pruned.kernels[0].name, std::string("kcentersPrunedKernel"));
    QCOMPARE(pruned.kernels[0].launches, k);
  }

  // What a run read, from its per-center records: the shares of N per center, and the passes over
  // the points (the CUDA engine's several centers a pass; not counted: one a center).
  void prunedReadsCountThePasses() {
    std::vector<IterationRecord> records(4);
    const int64_t visited[] = {100, 10, 0, 30}, screened[] = {0, 60, 0, 20};
    const int pass[] = {1, 0, 0, 1};
    for (int j = 0; j < 4; ++j) {
      records[j].iteration = j + 1;
      records[j].visited = visited[j];
      records[j].screened = screened[j];
      records[j].pass = pass[j];
    }
    PrunedReads r = prunedReads(records, 100);
    QCOMPARE(r.centers, 4);
    QCOMPARE(r.floatShare, 140.0 / 400.0);
    QCOMPARE(r.sketchShare, 80.0 / 400.0);
    QCOMPARE(r.passes, 2);
    QCOMPARE(r.passShare(), 0.5);
    for (IterationRecord& it : records) it.pass = -1;  // the CPU engine, an older file
    r = prunedReads(records, 100);
    QCOMPARE(r.passes, -1);
    QCOMPARE(r.passShare(), 1.0);
  }

  // The sketch's error bound e(x) bounds the distance from x to its sketch, and the skip test's
  // lower bound stays below the true distance to a center, computed as both engines compute it
  // (c - lo, then minus step * code), on data made to hurt: a large offset with small differences
  // (cancellation), values at the range ends, one dimension of a single value, and D = 1500.
  // The triangle test's center distance: exact where measured, never below rho2, NaN never
  // skips; measured while centers x D <= kKCentersExactBudget.
  void centerBoundRules() {
    using namespace kernellab::clustering;
    QCOMPARE(kcentersCenterBound(5.f, true, 3.f), 5.f);
    QCOMPARE(kcentersCenterBound(2.f, true, 3.f), 3.f);
    QCOMPARE(kcentersCenterBound(9.f, false, 3.f), 3.f);
    QVERIFY(std::isnan(kcentersCenterBound(NAN, true, 3.f)));
    QVERIFY(std::isnan(kcentersCenterBound(5.f, true, NAN)));
    QVERIFY(!kcentersSkips(kcentersCenterBound(NAN, true, 3.f), 0.f, 1e-3f));
    QVERIFY(kcentersExactCenterDistances(40, 200));
    QVERIFY(!kcentersExactCenterDistances(41, 200));
    QVERIFY(kcentersExactCenterDistances(4096, 2));
    QVERIFY(!kcentersExactCenterDistances(1, 8193));
  }
  void sketchBoundsHold_data() {
    QTest::addColumn<int>("d");
    QTest::addColumn<double>("offset");
    QTest::addColumn<double>("spread");
    QTest::addColumn<int>("sample");
    QTest::newRow("D = 200") << 200 << 0.0 << 1000.0 << 1;
    QTest::newRow("offset 1e6, spread 1") << 64 << 1e6 << 1.0 << 1;
    QTest::newRow("D = 1500, tiny") << 1500 << -3.0 << 1e-3 << 1;
    QTest::newRow("D = 3") << 3 << 5.0 << 40.0 << 1;
    // The CUDA engine's grid comes from a sample of the points (kSketchRangeSample): points and
    // centers beyond it get the end codes, and the bound must hold for them too.
    QTest::newRow("D = 200, grid from every 8th point") << 200 << 0.0 << 1000.0 << 8;
    QTest::newRow("offset 1e6, grid from every 8th point") << 64 << 1e6 << 1.0 << 8;
  }
  void sketchBoundsHold() {
    using namespace kernellab::clustering;
    QFETCH(int, d);
    QFETCH(double, offset);
    QFETCH(double, spread);
    QFETCH(int, sample);
    const int n = 400;
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<float> x(size_t(n) * d);  // point-major here: the bound is per point
    for (int i = 0; i < n; ++i)
      for (int q = 0; q < d; ++q)
        x[size_t(i) * d + q] =
            q == 1 ? float(offset) : float(offset + spread * (i % 7 == 0 ? (i % 2 ? 1 : -1) : u(rng)));
    std::vector<SketchScale> scales(static_cast<size_t>(d));
    double ranges = 0;
    for (int q = 0; q < d; ++q) {
      float lo = INFINITY, hi = -INFINITY;
      for (int i = 0; i < n; i += sample) {
        lo = std::min(lo, x[size_t(i) * d + q]);
        hi = std::max(hi, x[size_t(i) * d + q]);
      }
      scales[size_t(q)] = sketchScale(lo, hi);
      ranges += (double(hi) - lo) * (double(hi) - lo);
    }
    const double slack = sketchArithmeticSlack(ranges);
    std::vector<unsigned> codes(x.size());
    std::vector<float> err(static_cast<size_t>(n));
    int beyond = 0;  // coordinates outside the grid (a sampled grid must have some)
    for (size_t at = 0; at < x.size(); ++at) {
      const SketchScale& sc = scales[at % size_t(d)];
      beyond += x[at] < sc.lo || double(x[at]) > double(sc.lo) + 255.0 * double(sc.step);
    }
    QVERIFY(sample == 1 || beyond > 0);
    for (int i = 0; i < n; ++i) {
      double e2 = 0, exact = 0;
      for (int q = 0; q < d; ++q) {
        const size_t at = size_t(i) * d + q;
        codes[at] = sketchCode(x[at], scales[size_t(q)]);
        QVERIFY(codes[at] <= 255u);
        e2 += sketchSquaredError(x[at], codes[at], scales[size_t(q)]);
        const long double t = (long double)x[at] - ((long double)scales[size_t(q)].lo +
                                                    (long double)scales[size_t(q)].step * codes[at]);
        exact += double(t * t);
      }
      err[size_t(i)] = sketchErrorBound(e2, slack, true);
      QVERIFY2(double(err[size_t(i)]) >= std::sqrt(exact), qPrintable(QString::number(i)));
    }
    // Every point against every 10th point as the center: the test's lower bound (with r just
    // below it) must never exceed the true distance.
    const float margin = kcentersSkipMargin(d);
    int skips = 0;
    for (int c = 0; c < n; c += 10)
      for (int i = 0; i < n; ++i) {
        float screen = 0;
        long double truth = 0;
        for (int q = 0; q < d; ++q) {
          const float cq = x[size_t(c) * d + q];
          const float diff = (cq - scales[size_t(q)].lo) -
                             scales[size_t(q)].step * float(codes[size_t(i) * d + q]);
          screen += diff * diff;
          const long double t = (long double)cq - x[size_t(i) * d + q];
          truth += t * t;
        }
        // The largest r the test would skip at: the unpruned float distance must not be below it.
        const float lower = std::sqrt(screen) * (1.0f - margin) - err[size_t(i)];
        if (!(lower > 0)) continue;
        const float r = std::nextafter(lower * lower / (1.0f + margin), 0.0f);
        if (!kcentersSketchSkips(screen, err[size_t(i)], r, margin)) continue;
        ++skips;
        float unpruned = 0;  // the seed's float sum, dimension 0 first
        for (int q = 0; q < d; ++q) {
          const float t = x[size_t(c) * d + q] - x[size_t(i) * d + q];
          unpruned += t * t;
        }
        QVERIFY2(double(truth) > double(r) && unpruned >= r,
                 qPrintable(QStringLiteral("point %1, center %2").arg(i).arg(c)));
      }
    QVERIFY(skips > 0);  // the test was exercised
    // NaN and infinities never skip through a NaN; a non-finite point's bound is infinite.
    QVERIFY(!kcentersSketchSkips(NAN, 1.0f, 1.0f, margin));
    QVERIFY(!kcentersSketchSkips(4.0f, INFINITY, 0.0f, margin));
    QVERIFY(std::isinf(sketchErrorBound(1.0, slack, false)));
    QCOMPARE(sketchCode(NAN, scales[0]), 0u);
  }

  // The CPU backend runs the pruned engine ("all" includes it); the other engines stay GPU-only.
  void prunedRunsOnBothBackends() {
    const auto list = clustering::parseVariants({"all"}, clustering::kKCenters, false);
    QCOMPARE(list.size(), size_t(5));
    QCOMPARE(list.back().id, std::string("pruned"));
    QCOMPARE(list.back().layout, DataLayout::Coalesced);
    QCOMPARE(clustering::kernelNames(clustering::kKCenters, list.back()).front(),
             std::string("kcentersPrunedKernel"));
    for (const auto& v : describeVariants(clustering::kKCenters))
      QCOMPARE(v.cudaOnly, v.id == "best");
    // k-means has its own pruned variant (Hamerly's bounds, point-major, on the CPU too).
    const auto km = clustering::parseVariants({"pruned"}, clustering::kKMeans, false);
    QCOMPARE(km.size(), size_t(1));
    QCOMPARE(km.front().layout, DataLayout::Interleaved);
    QCOMPARE(clustering::kernelNames(clustering::kKMeans, km.front()).size(), size_t(5));
  }

  // On CUDA the pruned variant keeps the uploaded point-major points beside the dimension-major
  // ones for the whole run (the transpose's staging copy, counted once already): its device
  // estimate is best's plus the sketch and its small state, not a third copy of the points.
  void deviceEstimateCountsTheKeptPointsOnce() {
    clustering::BudgetInput in;
    in.family = clustering::kKCenters;
    in.n = 1000000;
    in.d = 200;
    in.k = 100;
    in.useCuda = true;
    in.measureCeilings = false;
    const auto need = [&](const char* id) {
      in.variants = clustering::parseVariants({id}, clustering::kKCenters, true);
      return clustering::estimateMemory(in).deviceBytes();
    };
    const double points = 4.0 * in.n * in.d;  // 800 MB
    const double sketch = 16.0 * clustering::sketchWords(in.d) * in.n + 4.0 * in.n;  // codes, e(x)
    const double best = need("best"), pruned = need("pruned");
    QVERIFY2(best >= 2.0 * points, "the points and the transpose's staging copy");
    QVERIFY2(pruned - best >= sketch, "the sketch is counted");
    QVERIFY2(pruned - best < sketch + 0.05 * points, qPrintable(QString::number(pruned - best)));
  }

  void aDifferenceFailsTheComparison() {
    const clustering::KCentersOutputs twin = outputs("best");
    clustering::KCentersOutputs same = outputs("pruned");
    Verification v = clustering::comparePrunedKCenters(same, twin);
    QVERIFY2(v.passed, v.note.c_str());
    QCOMPARE(v.compared, uint64_t(8));
    // One ulp in one distance is a failure, named by point.
    clustering::KCentersOutputs ulp = same;
    ulp.distances[6] = std::nextafter(ulp.distances[6], 1.0f);
    v = clustering::comparePrunedKCenters(ulp, twin);
    QVERIFY(!v.passed);
    QCOMPARE(v.mismatches, uint64_t(1));
    QVERIFY2(v.note.find("first: point 6") != std::string::npos, v.note.c_str());
    // -0 and +0 are different bits: the pruned run must be the same computation, not equal values.
    clustering::KCentersOutputs zero = same;
    zero.distances[0] = -0.0f;
    QVERIFY(!clustering::comparePrunedKCenters(zero, twin).passed);
    // A different center sequence or label.
    clustering::KCentersOutputs center = same;
    center.centers[2] = 4;
    v = clustering::comparePrunedKCenters(center, twin);
    QVERIFY(!v.passed);
    QVERIFY2(v.note.find("center 3 is point 4, best chose 3") != std::string::npos, v.note.c_str());
    clustering::KCentersOutputs label = same;
    label.labels[4] = 1;
    QVERIFY(!clustering::comparePrunedKCenters(label, twin).passed);
    label.labels.pop_back();
    QVERIFY(!clustering::comparePrunedKCenters(label, twin).passed);  // sizes differ
  }

  // Cancel during the host run: it stops between centers and the run throws Cancelled.
  void cancelStopsTheHostRun() {
    RunRequest r = pairRequest(200000, 64, 16, DatasetShape::SeedGenerator, 0.0);
    r.variants = {"pruned"};
    std::atomic<bool> cancel{false};
    RunHooks hooks;
    hooks.cancel = &cancel;
    hooks.progress = [&](const std::string& stage, double) {
      if (stage.find("running pruned: repetition 1") != std::string::npos) cancel = true;
    };
    QVERIFY_THROWS_EXCEPTION(Cancelled, runExperiment(r, hooks));
  }
};

QTEST_GUILESS_MAIN(TstKCentersPruned)
#include "tst_kcenters_pruned.moc"
