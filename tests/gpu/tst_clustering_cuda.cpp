// SPDX-License-Identifier: MIT
// The CUDA clustering kernels against the CPU reference; skipped with CUDA's error text when no
// device works (the same checks run on GPU servers through `kernellab-cli verify`).
#include <QtTest>
#include <cmath>

#include "kernellab/clustering.h"
#include "kernellab/experiment.h"
#include "sklearn_reference.h"
#include "test_support.h"

using namespace kernellab;

class TstClusteringCuda : public QObject {
  Q_OBJECT

  static RunRequest request(Family f, int64_t n, int k, int d, int tpb) {
    RunRequest r;
    r.family = f;
    r.variants = {"all"};
    r.section<ClusteringProblem>().n = n;
    r.section<ClusteringProblem>().k = k;
    r.section<ClusteringProblem>().d = d;
    r.section<ClusteringProblem>().maxIterations = 10;
    r.launch.threadsPerBlock = tpb;
    r.backend = BackendChoice::Cuda;
    r.warmup = 1;
    r.repetitions = 2;
    return r;
  }

 private slots:
  // The stop rule holds on every k-means path on the GPU: the seed's four, the best engine and
  // the cuBLAS peer reach scikit-learn's converged answer after scikit-learn's iteration count,
  // and say so (tests/common/sklearn_reference.h; the CPU executor in tst_kmeans_real_data).
  void realDataConvergesLikeScikitLearnOnEveryEngine() {
    KLTEST_REQUIRE_CUDA();
    for (const kltest::RealCase* c : {&kltest::kIris, &kltest::kBreastCancer}) {
      const RunResult res = runExperiment(kltest::realDataRequest(*c, BackendChoice::Cuda));
      QVERIFY2(res.ok, res.message.c_str());
      QCOMPARE(res.request.section<ClusteringProblem>().n, c->n);
      QCOMPARE(res.variants.size(), size_t(8));  // the seed's four, best, both peers, pruned
      for (const auto& v : res.variants) {
        QVERIFY2(v.ok && v.verification.passed,
                 (v.variant + ": " + v.error + v.verification.note).c_str());
        const ClusteringOutput& out = *v.detail<ClusteringOutput>();
        QVERIFY2(kltest::labelText(out.labels) == c->sklearnLabels, v.variant.c_str());
        QCOMPARE(out.iterations, c->sklearnIterations);
        QCOMPARE(out.stopReason, StopReason::Converged);
        QVERIFY2(
            std::fabs(out.inertia - c->sklearnInertia) <= kltest::kInertiaRel * c->sklearnInertia,
            v.variant.c_str());
        QCOMPARE(v.iterations.back().labelsChanged, int64_t(0));
      }
      // Campaign's rule on the same engines stops where the seed's rule stops.
      RunRequest score = kltest::realDataRequest(*c, BackendChoice::Cuda);
      score.section<ClusteringProblem>().stopRule = StopRule::ScoreChange;
      score.section<ClusteringProblem>().epsilon = 1e-4;
      for (const auto& v : runExperiment(score).variants) {
        QCOMPARE(v.detail<ClusteringOutput>()->iterations, c->scoreRuleIterations);
        QCOMPARE(v.detail<ClusteringOutput>()->stopReason, StopReason::ScoreRule);
      }
    }
  }

  void everyVariantVerifiesOnTheGpu_data() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("tpb");
    for (Family f : {clustering::kKCenters, clustering::kKMeans}) {
      const char* name = toString(f);
      QTest::newRow(qPrintable(QString("%1 gold tpb 64").arg(name)))
          << QString(toString(f)) << 10 << 2 << 2 << 64;
      QTest::newRow(qPrintable(QString("%1 1003x7x3 tpb 96").arg(name)))
          << QString(toString(f)) << 1003 << 7 << 3 << 96;
      QTest::newRow(qPrintable(QString("%1 5000x5x300 tpb 128").arg(name)))
          << QString(toString(f)) << 5000 << 5 << 300 << 128;
      QTest::newRow(qPrintable(QString("%1 100003x16x20 tpb 1000").arg(name)))
          << QString(toString(f)) << 100003 << 16 << 20 << 1000;
      QTest::newRow(qPrintable(QString("%1 4099x10x17 tpb 1024").arg(name)))
          << QString(toString(f)) << 4099 << 10 << 17 << 1024;
      QTest::newRow(qPrintable(QString("%1 777x1x1 tpb 1").arg(name)))
          << QString(toString(f)) << 777 << 1 << 1 << 1;
    }
  }
  void everyVariantVerifiesOnTheGpu() {
    KLTEST_REQUIRE_CUDA();
    QFETCH(QString, family);
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, d);
    QFETCH(int, tpb);
    const RunResult res =
        runExperiment(request(*familyFromString(family.toStdString()), n, k, d, tpb));
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.backend, std::string("cuda"));
    QCOMPARE(res.ceilings.front().name, std::string("cudaMemcpy D2D"));
    // The seed's four plus the engines: best and pruned (both), cublas and cublas-tf32 (k-means).
    QCOMPARE(res.variants.size(),
             size_t(*familyFromString(family.toStdString()) == clustering::kKMeans ? 8 : 6));
    for (const auto& v : res.variants) {
      QVERIFY2(v.ok, (v.variant + ": " + v.error).c_str());
      QVERIFY2(v.verification.passed, (v.variant + ": " + v.verification.note).c_str());
      // The cuBLAS peers' approximate labels are checked iteration by iteration.
      if (v.verification.approximate)
        QCOMPARE(v.verification.compared,
                 uint64_t(n) * uint64_t(v.detail<ClusteringOutput>()->iterations));
      else
        QCOMPARE(v.verification.compared, uint64_t(n));
      for (const auto& kr : v.kernels) {
        if (kr.name.rfind("cublas", 0) == 0) continue;  // cuBLAS picks its own kernel
        QVERIFY(kr.resources.has_value());
        QVERIFY(kr.resources->maxActiveBlocksPerSM > 0);
        QCOMPARE(kr.timing.clock, std::string("cuda-events"));
      }
      bool upload = false;
      for (const auto& p : v.phases) upload = upload || (p.name == "host to device" && p.ms > 0);
      QVERIFY(upload);
    }
  }

  void enginesAgreeWithTheSeedVariants() {
    KLTEST_REQUIRE_CUDA();
    // The engines pick the same k-centers centers and the same k-means inertia as the seed's
    // kernels on data with well-separated clusters (no near ties).
    RunRequest kc = request(clustering::kKCenters, 200000, 50, 64, 256);
    kc.variants = {"shared-coalesced", "best"};
    const RunResult a = runExperiment(kc);
    QVERIFY2(a.ok, a.message.c_str());
    QCOMPARE(a.variants[1].detail<ClusteringOutput>()->centerIndices,
             a.variants[0].detail<ClusteringOutput>()->centerIndices);
    RunRequest km = request(clustering::kKMeans, 200000, 100, 200, 256);
    km.variants = {"shared-coalesced", "best", "cublas"};
    const RunResult b = runExperiment(km);
    QVERIFY2(b.ok, b.message.c_str());
    for (size_t i = 1; i < b.variants.size(); ++i)
      QVERIFY(std::fabs(b.variants[i].detail<ClusteringOutput>()->inertia -
                        b.variants[0].detail<ClusteringOutput>()->inertia) <=
              1e-5 * b.variants[0].detail<ClusteringOutput>()->inertia);
  }

  // Issue 15: the pruned engine is the best engine's computation bit for bit (the runner compares
  // centers, radii, labels and distances, and fails the variant otherwise), on data where it
  // skips most points and on one broad cloud where it skips hardly any.
  void prunedIsBestBitForBit_data() {
    QTest::addColumn<int>("shape");
    QTest::addColumn<double>("noise");
    QTest::addColumn<bool>("prunes");
    QTest::newRow("seed generator") << int(DatasetShape::SeedGenerator) << 0.0 << true;
    QTest::newRow("one broad cloud") << int(DatasetShape::Blobs) << 0.99999 << false;
  }
  void prunedIsBestBitForBit() {
    KLTEST_REQUIRE_CUDA();
    QFETCH(int, shape);
    QFETCH(double, noise);
    QFETCH(bool, prunes);
    RunRequest r = request(clustering::kKCenters, 200003, 50, 64, 256);
    r.variants = {"best", "pruned"};
    r.section<ClusteringProblem>().shape = static_cast<DatasetShape>(shape);
    r.section<ClusteringProblem>().noiseFraction = noise;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.variants.size(), size_t(2));
    const VariantResult& best = res.variants[0];
    const VariantResult& pruned = res.variants[1];
    QVERIFY2(pruned.ok, pruned.error.c_str());
    QVERIFY2(pruned.verification.passed, pruned.verification.note.c_str());
    QVERIFY2(pruned.verification.note.find("as best bit for bit") != std::string::npos,
             pruned.verification.note.c_str());
    QCOMPARE(pruned.detail<ClusteringOutput>()->centerIndices,
             best.detail<ClusteringOutput>()->centerIndices);
    QCOMPARE(pruned.detail<ClusteringOutput>()->labels, best.detail<ClusteringOutput>()->labels);
    QCOMPARE(pruned.kernels.front().name, std::string("kcentersPrunedKernel"));
    QVERIFY(pruned.kernels.front().resources.has_value());
    QCOMPARE(pruned.iterations.front().visited, int64_t(200003));
    QCOMPARE(pruned.iterations.front().screened, int64_t(0));
    QCOMPARE(pruned.iterations.front().pass, 1);  // the first center's pass codes the sketch
    QCOMPARE(pruned.iterations.back().pass, 1);   // the last brings every point up to date
    double sum = 0, sketched = 0;
    int passes = 0;
    for (size_t j = 0; j < pruned.iterations.size(); ++j) {
      const IterationRecord& it = pruned.iterations[j];
      QVERIFY(it.visited >= 0 && it.visited <= 200003);
      QVERIFY(it.screened >= 0 && it.screened <= 200003);
      QVERIFY(it.pass == 0 || it.pass == 1);
      passes += it.pass;
      sum += double(it.visited);
      sketched += double(it.screened);
    }
    // Float reads only past the sketch: within a pass a point's reads count for the first center
    // that needed them, so the sums compare (center 1 reads no sketch: every point in float).
    QVERIFY(sum - 200003.0 <= sketched);
    QVERIFY(passes >= 2 && passes <= 50);
    const double share = sum / (200003.0 * 50), sketchShare = sketched / (200003.0 * 50);
    qInfo("float coordinates read: %.1f %% of N x K, sketch %.1f %%; pruned %.3f ms, best %.3f ms",
          100.0 * share, 100.0 * sketchShare, pruned.total.medianMs, best.total.medianMs);
    QVERIFY(prunes ? sketchShare < 0.75 && share < 0.5 * sketchShare : sketchShare > 0.9);
  }

  void recordedScheduleCoversEveryBlockOnce() {
    KLTEST_REQUIRE_CUDA();
    for (Family f : {clustering::kKMeans, clustering::kKCenters}) {
      RunRequest r = request(f, 10000, 4, 8, 128);
      r.variants = {"shared-coalesced", "global-coalesced", "shared-interleaved", "global-interleaved"};
      r.recordSchedule = true;
      const RunResult res = runExperiment(r);
      QVERIFY2(res.ok, res.message.c_str());
      for (const auto& v : res.variants) {
        QCOMPARE(v.schedule.size(), size_t((10000 + 127) / 128));
        std::vector<int> seen(v.schedule.size(), 0);
        for (const auto& b : v.schedule) {
          QVERIFY(b.tileX >= 0 && b.tileX < int(seen.size()));
          ++seen[b.tileX];
          QVERIFY(b.endNs >= b.startNs);
          QVERIFY(b.smId >= 0 && b.smId < res.device.smCount);
        }
        for (int c : seen) QCOMPARE(c, 1);
        QVERIFY(v.verification.passed);
      }
    }
  }

  void coalescedBeatsInterleavedOnALargeSet() {
    // Not a timing assertion on the GPU's speed, a sanity check on the setup: at D = 64 the
    // interleaved layout moves several times the sectors, so it must not be faster.
    KLTEST_REQUIRE_CUDA();
    RunRequest r = request(clustering::kKCenters, 200000, 16, 64, 256);
    r.variants = {"global-coalesced", "global-interleaved"};
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    QVERIFY(res.variants[0].total.medianMs <= res.variants[1].total.medianMs * 1.05);
  }
};

QTEST_GUILESS_MAIN(TstClusteringCuda)
#include "tst_clustering_cuda.moc"
