// SPDX-License-Identifier: MIT
// Pruned k-means (issue 15) on the CPU: the labels of plain Lloyd (the double reference) at every
// iteration from the same start, on data where the bounds skip most points (the seed's generator)
// and where they skip little (one broad cloud), with ties (D = 1, repeated points); the bounds it
// keeps are bounds (checked against exact distances after every iteration); the work falls once
// the centers settle; the runner records the counts, the results file keeps and checks them.
#include <QtTest>
#include <cmath>
#include <limits>
#include <vector>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "pruned_requests.h"
#include "kernellab/json_io.h"
#include "kernellab/kmeans_pruning.h"
#include "kmeans_center_groups.h"
#include "kmeans_pruned_cpu.h"

using namespace kernellab;
using clustering::KMeansPrunedHost;

namespace {

clustering::PointSet points(int64_t n, int k, int d, DatasetShape shape, double noise, uint64_t seed) {
  ClusteringProblem p;
  p.n = n;
  p.k = k;
  p.d = d;
  p.shape = shape;
  p.noiseFraction = noise;
  return clustering::makePoints(p, seed);
}

std::string toText(const ResultsFile& file) {
  nlohmann::json j = file;
  return j.dump();
}

std::vector<float> firstK(const clustering::PointSet& s, int k) {
  return std::vector<float>(s.values.begin(), s.values.begin() + int64_t(k) * s.d);
}

double exactDistance(const clustering::PointSet& s, int64_t i, const float* c) {
  return std::sqrt(clustering::exactSquaredDistance(&s.values[size_t(i) * s.d], 1, c, s.d));
}

RunRequest pairRequest(int64_t n, int k, int d, DatasetShape shape, double noise) {
  RunRequest r = kltest::seedAndPrunedRequest(clustering::kKMeans, n, k, d, shape, noise);
  r.section<ClusteringProblem>().maxIterations = 40;
  return r;
}

}  // namespace

class TstKMeansPruned : public QObject {
  Q_OBJECT
 private slots:
  void labelsAreLloydsAndBoundsHold_data() {
    QTest::addColumn<int>("n");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("shape");
    QTest::addColumn<double>("noise");
    QTest::newRow("seed generator") << 6000 << 12 << 24 << int(DatasetShape::SeedGenerator) << 0.0;
    QTest::newRow("one broad cloud") << 3000 << 10 << 16 << int(DatasetShape::Blobs) << 0.99999;
    QTest::newRow("D = 1, ties") << 1001 << 9 << 1 << int(DatasetShape::SeedGenerator) << 0.0;
    // Four and three groups of centers: the group bounds, the skipped groups, the local filter.
    QTest::newRow("seed generator, 40 centers") << 4000 << 40 << 8 << int(DatasetShape::SeedGenerator) << 0.0;
    QTest::newRow("one broad cloud, 30 centers") << 3000 << 30 << 6 << int(DatasetShape::Blobs) << 0.99999;
  }
  // Every iteration's labels against the reference run for that many iterations, and every
  // point's bounds against its exact distances to the centers the iteration used.
  void labelsAreLloydsAndBoundsHold() {
    QFETCH(int, n);
    QFETCH(int, k);
    QFETCH(int, d);
    QFETCH(int, shape);
    QFETCH(double, noise);
    const clustering::PointSet s = points(n, k, d, static_cast<DatasetShape>(shape), noise, 7);
    const std::vector<float> start = firstK(s, k);
    KMeansPrunedHost host(s.values.data(), n, d, k);
    host.begin(start);
    constexpr int kIterations = 12;
    for (int it = 0; it < kIterations; ++it) {
      const clustering::KMeansPrunedIteration step = host.iterate(it);
      QCOMPARE(step.skipped + step.tightened + step.decided, int64_t(n));
      // A decided point measures its own center and the groups it cannot exclude.
      QVERIFY(step.distances >= step.tightened + step.decided);
      QVERIFY(step.distances <= step.tightened + int64_t(k) * step.decided);
      if (it == 0) QCOMPARE(step.decided, int64_t(n));
      if (it == 0) QCOMPARE(step.distances, int64_t(n) * k);
      const clustering::KMeansReference ref = clustering::referenceKMeans(s, start, k, it + 1, -1.0);
      int64_t differ = 0;
      for (int64_t i = 0; i < n; ++i) differ += host.labels()[size_t(i)] != ref.labels[size_t(i)];
      QVERIFY2(differ == 0, qPrintable(QStringLiteral("iteration %1: %2 labels differ from Lloyd's")
                                            .arg(it + 1).arg(differ)));
      int64_t count = 0;
      for (int c = 0; c < k; ++c) count += step.clusterCount[size_t(c)];
      QCOMPARE(count, int64_t(n));
      // The bounds are bounds, measured exactly against the centers this assignment used: the
      // upper one for the own center, a group's for every other center of the group.
      const std::vector<float>& c = host.centers();
      const clustering::CenterGroups& groups = host.groups();
      const int g = groups.count();
      for (int64_t i = 0; i < n; ++i) {
        const int a = host.labels()[size_t(i)];
        const double own = exactDistance(s, i, &c[size_t(a) * d]);
        QVERIFY2(double(host.upperBounds()[size_t(i)]) >= own,
                 qPrintable(QStringLiteral("iteration %1, point %2: upper bound %3 < %4")
                                .arg(it + 1).arg(i).arg(host.upperBounds()[size_t(i)]).arg(own)));
        for (int o = 0; o < k; ++o) {
          if (o == a) continue;
          const double other = exactDistance(s, i, &c[size_t(o) * d]);
          const float low = host.groupLowerBounds()[size_t(i) * g + groups.groupOf[size_t(o)]];
          QVERIFY2(double(low) <= other,
                   qPrintable(QStringLiteral("iteration %1, point %2: lower bound %3 > %4 (center %5)")
                                  .arg(it + 1).arg(i).arg(low).arg(other).arg(o)));
        }
      }
    }
  }

  // The groups: every center in one, members ascending, about ten centers a group, the same
  // grouping every time, and centers in separate clumps grouped by clump.
  void centerGroupsPartitionTheCenters() {
    QCOMPARE(clustering::centerGroupCount(1), 1);
    QCOMPARE(clustering::centerGroupCount(9), 1);
    QCOMPARE(clustering::centerGroupCount(100), 10);
    QCOMPARE(clustering::centerGroupCount(100000), clustering::kMaxCenterGroups);
    // Three clumps of centers along a line (D = 2), 10 centers each, interleaved by index.
    std::vector<float> centers;
    for (int c = 0; c < 30; ++c) {
      centers.push_back(float(100 * (c % 3)) + 0.1f * float(c));
      centers.push_back(float(-50 * (c % 3)));
    }
    const clustering::CenterGroups groups = clustering::groupCenters(centers, 30, 2, 3);
    QCOMPARE(groups.count(), 3);
    QCOMPARE(groups.members.size(), size_t(30));
    std::vector<int> seen(30, 0);
    for (int j = 0; j < groups.count(); ++j) {
      for (int m = groups.start[size_t(j)]; m < groups.start[size_t(j) + 1]; ++m) {
        const int c = groups.members[size_t(m)];
        ++seen[size_t(c)];
        QCOMPARE(groups.groupOf[size_t(c)], j);
        if (m > groups.start[size_t(j)]) QVERIFY(groups.members[size_t(m) - 1] < c);
        QCOMPARE(c % 3, groups.members[size_t(groups.start[size_t(j)])] % 3);  // one clump
      }
    }
    for (int c = 0; c < 30; ++c) QCOMPARE(seen[size_t(c)], 1);
    const clustering::CenterGroups again = clustering::groupCenters(centers, 30, 2, 3);
    QCOMPARE(again.groupOf, groups.groupOf);
    // More groups wanted than centers, and a center with a NaN coordinate.
    std::vector<float> two = {0.f, std::numeric_limits<float>::quiet_NaN(), 1.f, 1.f};
    const clustering::CenterGroups few = clustering::groupCenters(two, 2, 2, 8);
    QVERIFY(few.count() >= 1 && few.count() <= 2);
    QCOMPARE(few.members.size(), size_t(2));
  }

  // The groups pay: once the labels settle, the points that fail the bounds measure a fraction
  // of the other centers (100 centers in 10 groups on the seed's clusters).
  void groupsMeasureAFractionOfTheCenters() {
    const clustering::PointSet s = points(20000, 100, 16, DatasetShape::SeedGenerator, 0.0, 5);
    KMeansPrunedHost host(s.values.data(), s.n, s.d, 100);
    host.begin(firstK(s, 100));
    QCOMPARE(host.groups().count(), 10);
    int64_t others = 0, all = 0;
    for (int it = 0; it < 30; ++it) {
      const clustering::KMeansPrunedIteration step = host.iterate(it);
      if (it == 0) continue;
      others += step.distances - step.tightened - step.decided;  // beyond the own center
      all += int64_t(99) * step.decided;
      if (step.changed == 0) break;
    }
    QVERIFY(all > 0);
    QVERIFY2(double(others) < 0.6 * double(all),
             qPrintable(QStringLiteral("the decided points measured %1 of %2 other centers")
                            .arg(others).arg(all)));
  }

  // Two centers on the same point and points on it: the exact tie goes to the lower index, as in
  // the reference, through the double re-decision.
  void exactTiesGoToTheLowerIndex() {
    clustering::PointSet s;
    s.n = 6;
    s.d = 2;
    s.values = {0, 0, 0, 0, 1, 1, 5, 5, 5, 5, 6, 6};
    const std::vector<float> start = {5, 5, 0, 0, 5, 5};  // centers 0 and 2 coincide
    KMeansPrunedHost host(s.values.data(), s.n, s.d, 3);
    host.begin(start);
    host.iterate(0);
    const clustering::KMeansReference ref = clustering::referenceKMeans(s, start, 3, 1, -1.0);
    for (int64_t i = 0; i < s.n; ++i) QCOMPARE(host.labels()[size_t(i)], ref.labels[size_t(i)]);
    QCOMPARE(host.labels()[3], 0);
  }

  // The work falls: on the seed's clusters the later iterations read a small share of the points.
  void workFallsOnceTheCentersSettle() {
    const clustering::PointSet s = points(20000, 16, 32, DatasetShape::SeedGenerator, 0.0, 11);
    KMeansPrunedHost host(s.values.data(), s.n, s.d, 16);
    host.begin(firstK(s, 16));
    int64_t lastRead = -1;
    for (int it = 0; it < 25; ++it) {
      const clustering::KMeansPrunedIteration step = host.iterate(it);
      lastRead = step.tightened + step.decided;
      if (it > 0 && step.changed == 0) break;
    }
    QVERIFY2(lastRead >= 0 && lastRead < s.n / 10,
             qPrintable(QStringLiteral("the last iteration read %1 of %2 points").arg(lastRead).arg(s.n)));
  }

  // Through the runner on the CPU backend: verified against the reference, the same iterations
  // and labels as the seed variant's run, the counts recorded per iteration and kept by the file.
  void runnerRecordsTheWork() {
    const RunResult res = runExperiment(pairRequest(8000, 12, 24, DatasetShape::SeedGenerator, 0.0));
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.variants.size(), size_t(2));
    const VariantResult& seed = res.variants[0];
    const VariantResult& pruned = res.variants[1];
    QCOMPARE(pruned.variant, std::string("pruned"));
    QVERIFY2(pruned.ok, pruned.error.c_str());
    QVERIFY2(pruned.verification.passed, pruned.verification.note.c_str());
    QCOMPARE(pruned.kernels.size(), size_t(5));
    QCOMPARE(pruned.kernels[2].name, std::string("prunedDecideKernel"));
    QVERIFY(!pruned.iterations.empty());
    QCOMPARE(pruned.iterations.front().visited, int64_t(8000));
    QCOMPARE(pruned.iterations.front().distances, int64_t(8000) * 12);
    for (const IterationRecord& it : pruned.iterations) {
      QVERIFY(it.visited >= 0 && it.visited <= 8000);
      QVERIFY(it.distances >= it.visited && it.distances <= int64_t(8000) * 12);
    }
    for (const IterationRecord& it : seed.iterations) QCOMPARE(it.distances, int64_t(-1));
    const ClusteringOutput& a = *seed.detail<ClusteringOutput>();
    const ClusteringOutput& b = *pruned.detail<ClusteringOutput>();
    QCOMPARE(b.iterations, a.iterations);
    QCOMPARE(b.stopReason, a.stopReason);
    // The file keeps the counts and reads them back.
    ResultsFile file;
    file.runs.push_back(res);
    const std::string text = toText(file);
    QVERIFY(text.find("\"distances\"") != std::string::npos);
    const ResultsFile back = parseResultsFile(text);
    QCOMPARE(back.runs.front().variants[1].iterations.front().distances, int64_t(8000) * 12);
  }

  // A file whose distance count exceeds N K is refused, naming the field and the limit.
  void impossibleDistanceCountIsRefused() {
    const RunResult res = runExperiment(pairRequest(500, 4, 3, DatasetShape::SeedGenerator, 0.0));
    QVERIFY2(res.ok, res.message.c_str());
    ResultsFile file;
    file.runs.push_back(res);
    file.runs.front().variants[1].iterations.front().distances = 500 * 4 + 1;
    try {
      parseResultsFile(toText(file));
      QFAIL("a count above N K was accepted");
    } catch (const InputError& e) {
      const std::string what = e.what();
      QVERIFY2(what.find("distances") != std::string::npos, e.what());
      QVERIFY2(what.find("N K") != std::string::npos, e.what());
    }
  }
};

QTEST_GUILESS_MAIN(TstKMeansPruned)
#include "tst_kmeans_pruned.moc"
