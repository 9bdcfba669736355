// SPDX-License-Identifier: MIT
// Clustering without a GPU: the CPU references on hand-checked cases (the thesis's gold size
// N=10, K=2, D=2, and the tie rules), every variant's block programs on the CPU executor against
// them at awkward sizes and launch shapes, the executor's race check, the verification rules and
// the seed's speed-up and gain formulas.
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <limits>

#include "kernellab/clustering.h"
#include "test_support.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/host_block.h"

using namespace kernellab;
using namespace kernellab::clustering;

namespace {

const char* kGold = KERNELLAB_TEST_DATA_DIR "/clustering_gold_n10_k2_d2.csv";

PointSet pointsOf(std::vector<float> values, int d) {
  PointSet s;
  s.d = d;
  s.n = static_cast<int64_t>(values.size()) / d;
  s.values = std::move(values);
  s.source = "test";
  return s;
}

RunRequest cpuRequest(Family f, int64_t n, int k, int d, int tpb) {
  RunRequest r;
  r.family = f;
  r.variants = {"all"};
  r.section<ClusteringProblem>().n = n;
  r.section<ClusteringProblem>().k = k;
  r.section<ClusteringProblem>().d = d;
  r.section<ClusteringProblem>().maxIterations = 8;
  r.launch.threadsPerBlock = tpb;
  r.backend = BackendChoice::Cpu;
  r.warmup = 0;
  r.repetitions = 1;
  r.measureCeilings = false;
  return r;
}

bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(b); }

// A memory policy over plain arrays for driving the shared reductions directly.
struct ScratchMem {
  std::vector<float> f;
  std::vector<int32_t> i;
  std::vector<double> d;
  HazardTracker* tracker;
  float loadScratchF(int t) {
    tracker->read(0, t);
    return f.at(t);
  }
  void storeScratchF(int t, float v) {
    tracker->write(0, t);
    f.at(t) = v;
  }
  int32_t loadScratchI(int t) {
    tracker->read(1, t);
    return i.at(t);
  }
  void storeScratchI(int t, int32_t v) {
    tracker->write(1, t);
    i.at(t) = v;
  }
  double loadScratchD(int t) {
    tracker->read(2, t);
    return d.at(t);
  }
  void storeScratchD(int t, double v) {
    tracker->write(2, t);
    d.at(t) = v;
  }
};

struct NoState {};

}  // namespace

class TstClusteringCpu : public QObject {
  Q_OBJECT

 private slots:
  // ---- the thesis's gold size, checked by hand ------------------------------------------------
  // Points (tests/data/clustering_gold_n10_k2_d2.csv): A = (1,1) (2,1) (1,2) (2,2) (0,0),
  // B = (10,10) (11,10) (10,11) (11,11) (13,13).

  void goldKMeansByHand() {
    // Initial centers: the first two points, (1,1) and (2,1).
    // It 1: (2,2) and all of B go to (2,1); score 3 + 918 = 921.
    // It 2: centers (2/3, 1) and (59/7, 58/7); A and B separate; score 65/9 + 4013/49.
    // It 3: centers (1.2, 1.2) and (11, 11); score 5.6 + 12 = 17.6. It 4: unchanged, stop.
    const PointSet s = loadPoints(kGold);
    const InitialCenters init = initialCenters(s, 2, InitMethod::First, 1);
    const KMeansReference r = referenceKMeans(s, init.values, 2, 50, 1e-4);
    QCOMPARE(r.iterations, 4);
    QCOMPARE(r.scores.size(), size_t(4));
    QVERIFY(near(r.scores[0], 921.0, 1e-12));
    QVERIFY(near(r.scores[1], 65.0 / 9 + 4013.0 / 49, 1e-12));
    QVERIFY(near(r.scores[2], 17.6, 1e-12));
    QVERIFY(near(r.inertia, 17.6, 1e-12));
    QCOMPARE(r.labels, (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
    QVERIFY(near(r.centers[0], 1.2, 1e-12) && near(r.centers[1], 1.2, 1e-12));
    QVERIFY(near(r.centers[2], 11.0, 1e-12) && near(r.centers[3], 11.0, 1e-12));
    QCOMPARE(r.sizes, (std::vector<int64_t>{5, 5}));
  }

  void goldKCentersByHand() {
    // From point 0 (1,1): the farthest is (13,13) at 144 + 144 = 288. Then the farthest from
    // both centers is (10,10) at 9 + 9 = 18. Distances: 0 1 1 2 2 | 18 13 13 8 0, sum 58.
    const PointSet s = loadPoints(kGold);
    const KCentersReference r = referenceKCenters(s, 2, 0);
    QCOMPARE(r.centers, (std::vector<int64_t>{0, 9}));
    QCOMPARE(r.labels, (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
    QCOMPARE(r.minDist, (std::vector<double>{0, 1, 1, 2, 2, 18, 13, 13, 8, 0}));
    QCOMPARE(r.radius, (std::vector<double>{288, 18}));
    QCOMPARE(r.farthest, (std::vector<int64_t>{9, 5}));
  }

  void goldCaseOnEveryVariant_data() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<int>("tpb");
    for (int tpb : {1, 2, 3, 32, 64, 96}) {
      QTest::newRow(qPrintable(QString("kmeans tpb %1").arg(tpb)))
          << QString(toString(clustering::kKMeans)) << tpb;
      QTest::newRow(qPrintable(QString("kcenters tpb %1").arg(tpb)))
          << QString(toString(clustering::kKCenters)) << tpb;
    }
  }
  void goldCaseOnEveryVariant() {
    QFETCH(QString, family);
    QFETCH(int, tpb);
    RunRequest r = cpuRequest(*familyFromString(family.toStdString()), 10, 2, 2, tpb);
    r.section<ClusteringProblem>().inputPath = kGold;
    r.section<ClusteringProblem>().maxIterations = 50;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    // The seed's four and the pruned engine of either family (it runs on the CPU too).
    QCOMPARE(res.variants.size(), size_t(5));
    QCOMPARE(res.variants.back().variant, std::string("pruned"));
    for (const auto& v : res.variants) {
      QVERIFY2(v.verification.passed, v.verification.note.c_str());
      const ClusteringOutput& c = *v.detail<ClusteringOutput>();
      QCOMPARE(c.labels, (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
      QCOMPARE(c.clusterSizes, (std::vector<int64_t>{5, 5}));
      if (*familyFromString(family.toStdString()) == clustering::kKMeans) {
        // Iteration 2 moves (1, 2) and (2, 2) to the first cluster; iteration 3 moves nothing:
        // Lloyd's fixed point, the default stop.
        QCOMPARE(c.iterations, 3);
        QCOMPARE(c.stopReason, StopReason::Converged);
        QVERIFY(near(c.inertia, 17.6, 1e-6));
        QVERIFY(near(c.centers[0], 1.2, 1e-6) && near(c.centers[3], 11.0, 1e-6));
        QCOMPARE(v.iterations.size(), size_t(3));
        QVERIFY(near(v.iterations[0].score, 921.0, 1e-6));
        QCOMPARE(v.iterations[1].labelsChanged, int64_t(2));
        QCOMPARE(v.iterations[2].labelsChanged, int64_t(0));
      } else {
        QCOMPARE(c.centerIndices, (std::vector<int64_t>{0, 9}));
        QCOMPARE(c.inertia, 58.0);
        QCOMPARE(c.centers, (std::vector<float>{1, 1, 13, 13}));
        QCOMPARE(v.iterations.size(), size_t(2));
        QCOMPARE(v.iterations[0].score, 288.0);
        QCOMPARE(v.iterations[1].score, 18.0);
        QCOMPARE(v.iterations[1].chosenPoint, 9);
      }
    }
  }

  void goldCaseUnderTheSeedsScoreRule() {
    // Campaign's rule stops when the score no longer changes: one iteration after the fixed
    // point (iteration 4 repeats iteration 3), at the same answer.
    RunRequest r = cpuRequest(clustering::kKMeans, 10, 2, 2, 32);
    r.section<ClusteringProblem>().inputPath = kGold;
    r.section<ClusteringProblem>().stopRule = StopRule::ScoreChange;
    r.section<ClusteringProblem>().epsilon = 1e-4;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    for (const auto& v : res.variants) {
      QVERIFY2(v.verification.passed, v.verification.note.c_str());
      QCOMPARE(v.detail<ClusteringOutput>()->iterations, 4);
      QCOMPARE(v.detail<ClusteringOutput>()->stopReason, StopReason::ScoreRule);
      QCOMPARE(v.detail<ClusteringOutput>()->labels,
               (std::vector<int32_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
      QVERIFY(near(v.detail<ClusteringOutput>()->inertia, 17.6, 1e-6));
    }
  }

  // ---- tie rules --------------------------------------------------------------------------------

  void kcentersTiesGoToTheLowestIndexAndTheEarlierCenter() {
    // From (0,0): (5,0) and (-5,0) are both at 25: the lower index, point 1, becomes center 2.
    // (1,0) is nearer center 1. With (2,0) between (0,0) and (4,0) the earlier center keeps it.
    const PointSet s = pointsOf({0, 0, 5, 0, -5, 0, 1, 0}, 2);
    const KCentersReference r = referenceKCenters(s, 3, 0);
    QCOMPARE(r.centers, (std::vector<int64_t>{0, 1, 2}));
    const PointSet mid = pointsOf({0, 0, 4, 0, 2, 0}, 2);
    QCOMPARE(referenceKCenters(mid, 2, 0).labels, (std::vector<int32_t>{0, 1, 0}));
    // The kernels follow the same rules on the executor, at any block size.
    QTemporaryDir dir;
    const QString line = dir.filePath("line.csv");
    QFile f(line);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("0,0\n5,0\n-5,0\n1,0\n");
    f.close();
    for (int tpb : {1, 2, 3, 64}) {
      RunRequest req = cpuRequest(clustering::kKCenters, 4, 3, 2, tpb);
      req.section<ClusteringProblem>().inputPath = line.toStdString();
      const RunResult res = runExperiment(req);
      QVERIFY2(res.ok, res.message.c_str());
      for (const auto& v : res.variants) {
        QCOMPARE(v.detail<ClusteringOutput>()->centerIndices, (std::vector<int64_t>{0, 1, 2}));
        QCOMPARE(v.detail<ClusteringOutput>()->labels, (std::vector<int32_t>{0, 1, 2, 0}));
      }
    }
  }

  void kmeansTiesGoToTheLowerCluster() {
    const PointSet s = pointsOf({0, 0, 4, 0, 2, 0}, 2);
    const KMeansReference r = referenceKMeans(s, {0, 0, 4, 0}, 2, 1, -1);
    QCOMPARE(r.labels, (std::vector<int32_t>{0, 1, 0}));
    QCOMPARE(r.inertia, 4.0);
  }

  // ---- every variant on the executor ------------------------------------------------------------

  void executorMatchesTheReference_data() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("tpb");
    QTest::addColumn<QString>("shape");
    struct Case {
      int n, k, d;
      const char* shape;
    };
    const Case cases[] = {{1000, 7, 3, "seed"}, {517, 3, 70, "seed"},  {64, 64, 4, "seed"},
                          {777, 1, 1, "seed"},  {1500, 6, 5, "blobs"}, {257, 4, 33, "blobs"}};
    for (Family f : {clustering::kKCenters, clustering::kKMeans})
      for (const auto& c : cases)
        for (int tpb : {1, 33, 64, 96, 1000, 1024})
          QTest::newRow(qPrintable(QString("%1 N=%2 K=%3 D=%4 %5 tpb %6")
                                       .arg(toString(f))
                                       .arg(c.n)
                                       .arg(c.k)
                                       .arg(c.d)
                                       .arg(c.shape)
                                       .arg(tpb)))
              << QString(toString(f)) << c.n << c.k << c.d << tpb << QString(c.shape);
  }
  void executorMatchesTheReference() {
    QFETCH(QString, family);
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, d);
    QFETCH(int, tpb);
    QFETCH(QString, shape);
    RunRequest r = cpuRequest(*familyFromString(family.toStdString()), n, k, d, tpb);
    r.section<ClusteringProblem>().shape = *shapeFromString(shape.toStdString());
    r.section<ClusteringProblem>().noiseFraction = shape == "blobs" ? 0.05 : 0.0;
    if (*familyFromString(family.toStdString()) == clustering::kKMeans && k > 1)
      r.section<ClusteringProblem>().init = InitMethod::KMeansPlusPlus;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    const Family fam = *familyFromString(family.toStdString());
    // The seed's four on the executor, and the pruned engine's host run.
    QCOMPARE(res.variants.size(), size_t(5));
    for (const auto& v : res.variants) {
      QVERIFY2(v.ok, v.error.c_str());
      QVERIFY2(v.verification.passed, (v.variant + ": " + v.verification.note).c_str());
      QCOMPARE(v.verification.compared, uint64_t(n));  // every point checked
      QCOMPARE(v.detail<ClusteringOutput>()->labels.size(), size_t(n));
      int64_t total = 0;
      for (int64_t sz : v.detail<ClusteringOutput>()->clusterSizes) total += sz;
      QCOMPARE(total, int64_t(n));
      QCOMPARE(v.kernels.size(), kernelNames(fam, *variantFromString(v.variant)).size());
      // An engine's whole run is one time, with no per-center kernel times.
      for (const auto& it : v.iterations)
        if (v.variant != "pruned") QCOMPARE(it.kernelMs.size(), v.kernels.size());
      QCOMPARE(v.kernels.front().timing.clock, std::string("cpu-steady-clock"));
    }
  }

  void runReportsPhasesAndLiveIterations() {
    RunRequest r = cpuRequest(clustering::kKMeans, 600, 4, 3, 64);
    r.variants = {"shared-coalesced"};
    r.section<ClusteringProblem>().shape = DatasetShape::Blobs;
    int calls = 0;
    size_t labelsSeen = 0;
    RunHooks hooks;
    hooks.iteration = [&](const std::string& variant, const IterationRecord& rec,
                          const ClusteringOutput& now) {
      QCOMPARE(variant, std::string("shared-coalesced"));
      QCOMPARE(rec.iteration, ++calls);
      QCOMPARE(now.centers.size(), size_t(12));
      labelsSeen = now.labels.size();
    };
    const RunResult res = runExperiment(r, hooks);
    QVERIFY(res.ok);
    const VariantResult& v = res.variants.front();
    QCOMPARE(calls, v.detail<ClusteringOutput>()->iterations);
    QCOMPARE(labelsSeen, size_t(600));
    std::vector<std::string> names;
    for (const auto& p : v.phases) names.push_back(p.name);
    // The fixed-point stop rule reads each iteration's labels back: its own phase.
    QCOMPARE(names, (std::vector<std::string>{"arrange layout (host)", "allocate", "kernels",
                                              "stop check (labels to host)", "copy results (host)",
                                              "free"}));
    QCOMPARE(v.kernels[0].launches,
             v.detail<ClusteringOutput>()->iterations - 1);  // no centroids in iteration 1
    QCOMPARE(v.kernels[1].launches, v.detail<ClusteringOutput>()->iterations);

    r.section<ClusteringProblem>().keepLabels = false;
    labelsSeen = 1;
    calls = 0;
    const RunResult lean = runExperiment(r, hooks);
    QCOMPARE(labelsSeen, size_t(0));
    QVERIFY(lean.variants.front().detail<ClusteringOutput>()->labels.empty());
    QVERIFY(lean.variants.front().verification.passed);  // verified all the same
  }

  void layoutAndMemorySwitchesPickTheVariant() {
    RunRequest r = cpuRequest(clustering::kKCenters, 100, 3, 2, 32);
    r.variants = {"global-interleaved", "shared-coalesced"};
    const RunResult res = runExperiment(r);
    QCOMPARE(res.variants.size(), size_t(2));
    QCOMPARE(res.variants[0].variant, std::string("global-interleaved"));
    r.variants = {"fastest"};
    try {
      validateRequest(r);
      QFAIL("an unknown variant was accepted");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("unknown kcenters variant (known: shared-coalesced"));
      QVERIFY(QString(e.what()).contains("best"));  // the engines are listed too
    }
    // The GPU-only engines: left out of "all" without CUDA, refused by name with the reason; the
    // pruned k-centers engine runs on the CPU too.
    if (kltest::cudaUnavailableReason().isEmpty()) return;
    r.variants = {"all"};
    QCOMPARE(runExperiment(r).variants.size(), size_t(5));
    r.variants = {"best"};
    try {
      validateRequest(r);
      QFAIL("a GPU-only engine was accepted on the CPU");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("--variant best runs only on the CUDA backend"));
    }
    RunRequest km = cpuRequest(clustering::kKMeans, 100, 3, 2, 32);
    km.variants = {"cublas"};
    QVERIFY_THROWS_EXCEPTION(InputError, validateRequest(km));
    km.variants = {"cublas-tf32"};
    QVERIFY_THROWS_EXCEPTION(InputError, validateRequest(km));
    // k-means: the seed's four, best, cublas, cublas-tf32 and pruned; k-centers: the four, best,
    // pruned.
    QVERIFY(variants(clustering::kKMeans).size() == 8 &&
            variants(clustering::kKCenters).size() == 6);
  }

  void badRequestsNameTheValueAndTheLimit_data() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("tpb");
    QTest::addColumn<QString>("expected");
    QTest::newRow("tpb 0") << QString(toString(clustering::kKMeans)) << 100 << 2 << 2 << 0
                           << "--tpb 0 is outside 1..1024";
    QTest::newRow("tpb 2048") << QString(toString(clustering::kKCenters)) << 100 << 2 << 2 << 2048
                              << "--tpb 2048 is outside 1..1024";
    QTest::newRow("k > n") << QString(toString(clustering::kKMeans)) << 3 << 5 << 2 << 64
                           << "--k 5 is larger than --n 3";
    QTest::newRow("k 0") << QString(toString(clustering::kKMeans)) << 3 << 0 << 2 << 64
                         << "--k 0 must be at least 1";
    QTest::newRow("d 0") << QString(toString(clustering::kKCenters)) << 3 << 1 << 0 << 64
                         << "--d 0 must be at least 1";
    QTest::newRow("n 0") << QString(toString(clustering::kKCenters)) << 0 << 1 << 2 << 64
                         << "--n 0 must be at least 1";
    QTest::newRow("memory") << QString(toString(clustering::kKMeans)) << 2000000000 << 2 << 2000
                            << 64 << "of host memory";
  }
  void badRequestsNameTheValueAndTheLimit() {
    QFETCH(QString, family);
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, d);
    QFETCH(int, tpb);
    QFETCH(QString, expected);
    const RunRequest r = cpuRequest(*familyFromString(family.toStdString()), n, k, d, tpb);
    try {
      validateRequest(r);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  void kcentersRefusesKMeansInits() {
    RunRequest r = cpuRequest(clustering::kKCenters, 100, 3, 2, 64);
    r.section<ClusteringProblem>().init = InitMethod::KMeansPlusPlus;
    QVERIFY_THROWS_EXCEPTION(InputError, validateRequest(r));
    r.section<ClusteringProblem>().init = InitMethod::Random;
    QVERIFY(runExperiment(r).ok);
  }

  // ---- the executor's race and bounds checks
  // ------------------------------------------------------

  void sharedReductionsFoldEverySlot() {
    // Farthest point over any block size: the largest value, the lowest index among equals.
    for (int size : {1, 2, 3, 5, 31, 32, 33, 64, 96, 100, 255, 1000, 1024}) {
      HazardTracker tracker("test");
      tracker.reset(3, size, 0);
      ScratchMem m{std::vector<float>(size), std::vector<int32_t>(size), std::vector<double>(size),
                   &tracker};
      for (int t = 0; t < size; ++t) {
        m.f[t] = float((t * 37) % 11);  // the maximum 10 appears several times
        m.i[t] = 1000 - t;
        m.d[t] = t + 0.5;
      }
      float best = -1;
      int bestIndex = 0;
      double sum = 0;
      for (int t = 0; t < size; ++t) {
        if (m.f[t] > best || (m.f[t] == best && m.i[t] < bestIndex)) {
          best = m.f[t];
          bestIndex = m.i[t];
        }
        sum += m.d[t];
      }
      std::vector<NoState> states;
      HostBlock<NoState> blk(0, size, 1, states, &tracker);
      reduceFarthest(blk, m);
      QCOMPARE(m.f[0], best);
      QCOMPARE(m.i[0], bestIndex);
      m.i = std::vector<int32_t>(size, 1);
      reduceSum(blk, m);
      QCOMPARE(m.d[0], sum);
      QCOMPARE(m.i[0], size);
    }
  }

  void executorCatchesAMissingBarrier() {
    HazardTracker tracker("brokenKernel");
    tracker.reset(3, 64, 7);
    ScratchMem m{std::vector<float>(64), std::vector<int32_t>(64), std::vector<double>(64),
                 &tracker};
    std::vector<NoState> states;
    HostBlock<NoState> blk(7, 64, 8, states, &tracker);
    // Each thread writes its slot, then (no barrier) reads its neighbour's: a read-after-write
    // race.
    try {
      blk.local([&](int t, NoState&) { m.storeScratchF(t, float(t)); });
      blk.local([&](int t, NoState&) { m.loadScratchF((t + 1) % 64); });
      QFAIL("the race was not detected");
    } catch (const std::logic_error& e) {
      QVERIFY2(QString(e.what()).contains("brokenKernel: race in block 7: thread 0 reads slot 1"),
               e.what());
    }
    // With the barrier the same accesses are fine.
    tracker.reset(3, 64, 7);
    blk.phase([&](int t, NoState&) { m.storeScratchF(t, float(t)); });
    blk.local([&](int t, NoState&) { m.loadScratchF((t + 1) % 64); });
    // A write after other threads read the slot in the same phase is a race too.
    try {
      blk.local([&](int t, NoState&) { m.storeScratchF(t, 0.f); });
      QFAIL("the write-after-read race was not detected");
    } catch (const std::logic_error& e) {
      QVERIFY(QString(e.what()).contains("that thread 63 read since the last barrier"));
    }
    try {
      m.loadScratchF(64);
      QFAIL("out of bounds");
    } catch (const std::logic_error& e) {
      QVERIFY(QString(e.what()).contains("touches slot 64 of a 64-slot array"));
    }
  }

  // ---- verification rules -----------------------------------------------------------------------

  void verificationCatchesUnprocessedPoints() {
    // What the thesis's library did below 256 threads per block: part of the points never
    // processed. Their label and distance keep the poison, and verification names them.
    const PointSet s = loadPoints(kGold);
    const KCentersReference ref = referenceKCenters(s, 2, 0);
    ClusteringOutput run;
    run.centerIndices = ref.centers;
    run.labels = ref.labels;
    std::vector<float> dist(ref.minDist.begin(), ref.minDist.end());
    std::vector<float> radius(ref.radius.begin(), ref.radius.end());
    QVERIFY(verifyKCenters(s, ref, run, dist, radius).passed);
    dist[7] = std::numeric_limits<float>::quiet_NaN();
    run.labels[7] = -1;
    Verification v = verifyKCenters(s, ref, run, dist, radius);
    QVERIFY(!v.passed);
    QCOMPARE(v.mismatches, uint64_t(1));
    QVERIFY2(QString::fromStdString(v.note).contains("point 7 was never processed"),
             v.note.c_str());
    dist[7] = 13;
    run.labels[7] = 0;  // a wrong nearest center, far from a tie
    v = verifyKCenters(s, ref, run, dist, radius);
    QVERIFY(!v.passed);
    QVERIFY(QString::fromStdString(v.note).contains("point 7: nearest center 0, reference 1"));
    run.labels[7] = 1;
    run.centerIndices[1] = 5;  // not the farthest point, and not a tie
    v = verifyKCenters(s, ref, run, dist, radius);
    QVERIFY(!v.passed);
    QVERIFY2(QString::fromStdString(v.note).contains("center 2: the run chose point 5"),
             v.note.c_str());
  }

  void verificationAcceptsTiesAndCountsThem() {
    // (2,0) is equidistant from (0,0) and (4,0): either label is right.
    const PointSet s = pointsOf({0, 0, 4, 0, 2, 0}, 2);
    const KMeansReference ref = referenceKMeans(s, {0, 0, 4, 0}, 2, 1, -1);
    ClusteringOutput run;
    run.labels = {0, 1, 1};
    run.centers = {0, 0, 4, 0};
    run.inertia = 4;
    run.clusterSizes = {1, 2};
    run.iterations = 1;
    Verification v = verifyKMeans(s, ref, run, {4.0});
    QVERIFY2(v.passed, v.note.c_str());
    QVERIFY(QString::fromStdString(v.note).contains("1 point(s) at a tie"));
    run.inertia = 4.0001;  // 2.5e-5 relative: beyond 1e-5
    v = verifyKMeans(s, ref, run, {4.0});
    QVERIFY(!v.passed);
    QVERIFY(QString::fromStdString(v.note).contains("inertia"));
    run.inertia = 4;
    run.clusterSizes = {2, 1};
    QVERIFY(!verifyKMeans(s, ref, run, {4.0}).passed);

    // k-centers: a near tie for the next center is accepted and the rest judged along the run.
    const PointSet line = pointsOf({0, 0, 5, 0, -5, 0, 1, 0}, 2);
    const KCentersReference kref = referenceKCenters(line, 2, 0);
    const KCentersReference along = referenceKCentersAlong(line, {0, 2});
    ClusteringOutput kc;
    kc.centerIndices = {0, 2};  // point 2 is as far as point 1
    kc.labels = along.labels;
    std::vector<float> dist(along.minDist.begin(), along.minDist.end());
    std::vector<float> radius(along.radius.begin(), along.radius.end());
    const Verification kv = verifyKCenters(line, kref, kc, dist, radius);
    QVERIFY2(kv.passed, kv.note.c_str());
    QVERIFY(QString::fromStdString(kv.note).contains("1 center choice(s) at a near tie"));
  }

  void stepByStepCheckFollowsTheRunsOwnPath() {
    // Build a run's iterations from the reference stopped after 1, 2, ... iterations, then break
    // one thing at a time.
    const PointSet s = generateBlobs(3000, 6, 4, 100, 0.1, 12);
    const InitialCenters init = initialCenters(s, 6, InitMethod::Random, 3);
    const KMeansReference full = referenceKMeans(s, init.values, 6, 6, -1);
    struct It {
      std::vector<float> centers;
      std::vector<int32_t> labels;
      double score;
      std::vector<int32_t> counts;
    };
    std::vector<It> its;
    for (int t = 1; t <= full.iterations; ++t) {
      const KMeansReference r = referenceKMeans(s, init.values, 6, t, -1);
      // The centers iteration t used: the initial ones, or the means of iteration t - 1's labels
      // (which the reference stopped after t iterations holds).
      It it;
      if (t == 1)
        it.centers = init.values;
      else
        it.centers.assign(r.centers.begin(), r.centers.end());
      it.labels = r.labels;
      it.score = r.scores.back();
      it.counts.assign(r.sizes.begin(), r.sizes.end());
      its.push_back(std::move(it));
    }
    auto runWith = [&](const std::function<void(std::vector<It>&, ClusteringOutput&)>& spoil) {
      std::vector<It> copy = its;
      ClusteringOutput out;
      out.iterations = full.iterations;
      out.labels = copy.back().labels;
      out.centers = copy.back().centers;
      out.inertia = copy.back().score;
      spoil(copy, out);
      KMeansStepCheck check(s, init.values, 6);
      for (const auto& it : copy) check.iteration(it.centers, it.labels, it.score, it.counts);
      return check.finish(out);
    };
    Verification v = runWith([](std::vector<It>&, ClusteringOutput&) {});
    QVERIFY2(v.passed, v.note.c_str());
    v = runWith([](std::vector<It>& its, ClusteringOutput&) { its[2].centers[5] += 1.0f; });
    QVERIFY(!v.passed);
    QVERIFY2(QString::fromStdString(v.note).contains("iteration 3: center 1 component 1"),
             v.note.c_str());
    v = runWith([](std::vector<It>& its, ClusteringOutput&) {
      its[1].labels[40] = (its[1].labels[40] + 1) % 6;
      ++its[1].counts[its[1].labels[40]];
    });
    QVERIFY(!v.passed);
    QVERIFY2(QString::fromStdString(v.note).contains("iteration 2: point 40 is in cluster"),
             v.note.c_str());
    v = runWith([](std::vector<It>& its, ClusteringOutput&) { its[0].score *= 1.001; });
    QVERIFY(!v.passed);
    QVERIFY(QString::fromStdString(v.note).contains("iteration 1: score"));
    v = runWith(
        [](std::vector<It>&, ClusteringOutput& out) { out.labels[7] = (out.labels[7] + 1) % 6; });
    QVERIFY(!v.passed);
    QCOMPARE(v.mismatches, uint64_t(1));
    QVERIFY(QString::fromStdString(v.note).contains("point 7: reported label"));
  }

  void tieToleranceGrowsWithD() {
    QCOMPARE(tieTolerance(2), 1e-6);
    QVERIFY(near(tieTolerance(200), 4.0 * 202 / 16777216.0, 1e-12));
  }

  // ---- issue 16: coordinate range, huge D, memory of every buffer
  // ------------------------------------------------------------

  void scoreToleranceGrowsWithDAndN() {
    QCOMPARE(scoreTolerance(100, 2), kInertiaTolerance);  // small problems: the old 1e-5
    const double u = 1.0 / 16777216.0;
    QVERIFY(near(scoreTolerance(3, 1000000), 1000002 * u / (1 - 1000002 * u), 1e-6));
    QVERIFY(scoreTolerance(2000000000, 3) > 2000000000 * std::ldexp(1.0, -53));
  }

  void coordinatesWhoseSquaresOverflowAreRefused() {
    // |x| = 1e19 at D = 2: (2e19)^2 overflows float32, every distance is inf, and the run used to
    // end in a verification failure.
    QTemporaryDir dir;
    const QString csv = dir.filePath("far.csv");
    QFile f(csv);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("1e19,1e19\n-1e19,-1e19\n1e19,-1e19\n-1e19,1e19\n0,0\n");
    f.close();
    RunRequest r = cpuRequest(clustering::kKMeans, 5, 2, 2, 32);
    r.section<ClusteringProblem>().inputPath = csv.toStdString();
    try {
      validateRequest(r);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(
                   "the largest coordinate |x| = 1e+19 is above the limit 4.61e+18 for D = 2"),
               e.what());
      QVERIFY(QString(e.what()).contains("divide it by 4"));
    }
    r.family = clustering::kKCenters;
    QVERIFY_THROWS_EXCEPTION(InputError, runExperiment(r));
    QVERIFY(maxCoordinate(2) > 4.6e18 && maxCoordinate(2) < 4.62e18);
  }

  void coordinatesTooCloseForFloatAreRefused() {
    // Points 1e-21 apart: their squared differences are subnormal float32 numbers.
    QTemporaryDir dir;
    const QString csv = dir.filePath("tiny.csv");
    QFile f(csv);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("1e-21,2e-21\n3e-21,1e-21\n5e-21,4e-21\n2e-21,5e-21\n");
    f.close();
    RunRequest r = cpuRequest(clustering::kKMeans, 4, 2, 2, 32);
    r.section<ClusteringProblem>().inputPath = csv.toStdString();
    try {
      validateRequest(r);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("below the limit 4.44e-16"), e.what());
      QVERIFY(QString(e.what()).contains("multiply it by"));
    }
    // Identical points are fine (every distance is exactly 0).
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write("1e-30,1e-30\n1e-30,1e-30\n1e-30,1e-30\n");
    f.close();
    r.section<ClusteringProblem>().k = 1;
    validateRequest(r);
  }

  void generatedPointsAreCheckedToo() {
    RunRequest r = cpuRequest(clustering::kKCenters, 50, 2, 3, 32);
    r.section<ClusteringProblem>().radius = 1e30;
    try {
      runExperiment(r);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("the generated points (radius 1e+30)"), e.what());
    }
  }

  void dimensionsBeyondWhatCanBeVerifiedAreRefused() {
    const RunRequest r = cpuRequest(clustering::kKMeans, 2, 1, 2000000, 32);
    try {
      validateRequest(r);
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("--d has D = 2000000 dimensions; at most 1048576"),
               e.what());
    }
  }

  void everyPerDimensionBufferIsInTheMemoryEstimate() {
    // K = 1000, D = 1e6: the points are 4 GB, but the reference's per-chunk sums are
    // 256 x 1000 x 1e6 doubles (2 TB). The estimate used to count the points only.
    const RunRequest r = cpuRequest(clustering::kKMeans, 1000, 1000, 1000000, 32);
    try {
      validateRequest(r);
      QFAIL("accepted");
    } catch (const InputError& e) {
      const QString m = e.what();
      QVERIFY2(m.contains("--n 1000 --d 1000000 needs") &&
                   m.contains("of host memory (reference sums 2.05 TB"),
               e.what());
      QVERIFY2(m.contains("is available ("), e.what());
    }
  }

  void hugeDPassesWithAToleranceThatScalesWithD() {
    // D = 100000, N = 3: float32 sums of 100000 terms round beyond the old fixed 1e-5 (about
    // 1.8e-5 here); the bound is 100002 x 2^-24 = 6e-3.
    RunRequest r = cpuRequest(clustering::kKMeans, 3, 2, 100000, 256);
    r.variants = {"shared-coalesced"};
    r.section<ClusteringProblem>().maxIterations = 2;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    const Verification& v = res.variants.front().verification;
    QVERIFY2(v.passed, v.note.c_str());
    QVERIFY(near(v.tolerance, scoreTolerance(3, 100000), 1e-12));
    QVERIFY(v.maxError > kInertiaTolerance);  // the case the fixed tolerance refused
  }

  // ---- the seed's formulas and figure
  // --------------------------------------------------------------

  void speedupAndGainAsTheSeedDefinesThem() {
    // Thesis 5.1.2 at 512 threads per block: interleaved + global 2435.27 ms, coalesced + global
    // 328.09 ms: S = 7.42, gain 86.5 %.
    QVERIFY(near(speedup(2435.27, 328.09), 7.4226, 1e-4));
    QVERIFY(near(gainPercent(2435.27, 328.09), 86.5275, 1e-4));
    QCOMPARE(speedup(10, 0), 0.0);
    QCOMPARE(gainPercent(100, 150), -50.0);
    RunResult run;
    VariantResult a, b;
    a.variant = "global-coalesced";
    a.total.medianMs = 4;
    b.variant = "shared-coalesced";
    b.total.medianMs = 2;
    run.variants = {a, b};
    const auto c = compareVariants(run, "global-coalesced", "shared-coalesced");
    QVERIFY(c.has_value());
    QCOMPARE(c->speedup, 2.0);
    QCOMPARE(c->gainPercent, 50.0);
    QVERIFY(!compareVariants(run, "global-coalesced", "missing").has_value());
  }

  void publishedFigure19() {
    QCOMPARE(publishedTpb(), (std::vector<int>{64, 128, 256, 512, 1024}));
    const auto& series = clustering::publishedFigure19();
    QCOMPARE(series.size(), size_t(4));
    for (const auto& s : series) {
      QVERIFY(variantFromString(s.variant).has_value());
      QCOMPARE(s.ms.size(), size_t(5));
    }
    QCOMPARE(series[0].ms[0], 73.51);    // coalesced + shared at 64
    QCOMPARE(series[3].ms[4], 2707.95);  // interleaved + global at 1024
  }
};

QTEST_GUILESS_MAIN(TstClusteringCpu)
#include "tst_clustering_cpu.moc"
