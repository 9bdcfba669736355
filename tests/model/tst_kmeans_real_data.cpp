// SPDX-License-Identifier: MIT
// k-means on real data no generator made (scikit-learn's iris and breast-cancer
// sets, see tests/data/README.md) from fixed initial centers: the default stop
// rule must land exactly on scikit-learn's converged answer (labels, inertia,
// iterations), Campaign's score rule must stop where the seed's rule stops, and
// every run must say why and after how many iterations it stopped. The
// reference values were computed once with scikit-learn 1.2.1
// (tests/data/sklearn_reference.py); scikit-learn is not needed here.
#include <QtTest>
#include <cmath>
#include <string>

#include "kernellab/clustering_request.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "sklearn_reference.h"

using namespace kernellab;
using kltest::kBreastCancer;
using kltest::kInertiaRel;
using kltest::kIris;
using kltest::labelText;
using kltest::RealCase;

namespace {

RunRequest requestFor(const RealCase &c) { return kltest::realDataRequest(c, BackendChoice::Cpu); }

bool near(double a, double b, double rel) { return std::fabs(a - b) <= rel * std::fabs(b); }

}  // namespace

class TstKMeansRealData : public QObject {
  Q_OBJECT

  void checkConvergedLikeScikitLearn(const RealCase &c) {
    const RunResult res = runExperiment(requestFor(c));
    QVERIFY2(res.ok, res.message.c_str());
    // The request that ran records the file's size, not the generator's
    // defaults.
    QCOMPARE(res.request.section<ClusteringProblem>().n, c.n);
    QCOMPARE(res.request.section<ClusteringProblem>().d, c.d);
    QCOMPARE(res.request.section<ClusteringProblem>().stopRule, StopRule::FixedPoint);
    // The seed's four and the pruned variant (Hamerly's bounds): the same answer.
    QCOMPARE(res.variants.size(), size_t(5));
    QCOMPARE(res.variants.back().variant, std::string("pruned"));
    for (const VariantResult &v : res.variants) {
      QVERIFY2(v.verification.passed, v.verification.note.c_str());
      const ClusteringOutput &out = *v.detail<ClusteringOutput>();
      QCOMPARE(labelText(out.labels), std::string(c.sklearnLabels));
      QCOMPARE(out.iterations, c.sklearnIterations);
      QCOMPARE(out.stopReason, StopReason::Converged);
      QVERIFY2(near(out.inertia, c.sklearnInertia, kInertiaRel),
               qPrintable(QString("%1: inertia %2, scikit-learn %3")
                              .arg(v.variant.c_str())
                              .arg(out.inertia, 0, 'g', 17)
                              .arg(c.sklearnInertia, 0, 'g', 17)));
      // Every iteration after the first says how many points moved; the last
      // moved none.
      QCOMPARE(v.iterations.size(), size_t(c.sklearnIterations));
      QCOMPARE(v.iterations.front().labelsChanged, int64_t(-1));
      for (size_t i = 1; i + 1 < v.iterations.size(); ++i)
        QVERIFY(v.iterations[i].labelsChanged > 0);
      QCOMPARE(v.iterations.back().labelsChanged, int64_t(0));
      // The time spent reading labels back for the decision is its own phase.
      bool checkPhase = false;
      for (const auto &p : v.phases) checkPhase = checkPhase || p.name.rfind("stop check", 0) == 0;
      QVERIFY(checkPhase);
    }
  }

  void checkScoreRule(const RealCase &c) {
    RunRequest r = requestFor(c);
    r.section<ClusteringProblem>().stopRule = StopRule::ScoreChange;
    r.section<ClusteringProblem>().epsilon = 1e-4;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    for (const VariantResult &v : res.variants) {
      const ClusteringOutput &out = *v.detail<ClusteringOutput>();
      QCOMPARE(out.iterations, c.scoreRuleIterations);
      QCOMPARE(out.stopReason, StopReason::ScoreRule);
      QVERIFY(near(out.inertia, c.scoreRuleScore, kInertiaRel));
      for (const auto &it : v.iterations) QCOMPARE(it.labelsChanged, int64_t(-1));  // not counted
    }
  }

 private slots:
  void irisConvergesToScikitLearnsAnswer() { checkConvergedLikeScikitLearn(kIris); }
  void breastCancerConvergesToScikitLearnsAnswer() { checkConvergedLikeScikitLearn(kBreastCancer); }

  void scoreRuleStopsWhereTheSeedStops() {
    // Iris: the score stops changing one iteration after the fixed point (the
    // same answer).
    checkScoreRule(kIris);
    // Breast cancer: the score changes by 8.7e-5 < 1e-4 of itself at iteration
    // 8, one iteration before the fixed point: the score rule stops early at a
    // higher inertia than scikit-learn's.
    checkScoreRule(kBreastCancer);
    QVERIFY(kBreastCancer.scoreRuleScore > kBreastCancer.sklearnInertia * (1 + 1e-5));
  }

  void iterationLimitIsReported() {
    RunRequest r = requestFor(kBreastCancer);
    r.variants = {"shared-coalesced"};
    r.section<ClusteringProblem>().maxIterations = 5;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    const ClusteringOutput &out = *res.variants.front().detail<ClusteringOutput>();
    QCOMPARE(out.iterations, 5);
    QCOMPARE(out.stopReason, StopReason::IterationLimit);
    QVERIFY(res.variants.front().iterations.back().labelsChanged > 0);
    // The limit met at the fixed point itself counts as converged.
    r.section<ClusteringProblem>().maxIterations = kBreastCancer.sklearnIterations;
    QCOMPARE(runExperiment(r).variants.front().detail<ClusteringOutput>()->stopReason,
             StopReason::Converged);
  }

  void theStoredRequestRunsTheSameExperimentAgain() {
    const RunResult first = runExperiment(requestFor(kIris));
    ResultsFile file;
    file.runs.push_back(first);
    const ResultsFile read = parseResultsFile(nlohmann::json(file).dump());
    const RunRequest again = read.runs.front().request;
    QCOMPARE(nlohmann::json(again), nlohmann::json(first.request));
    const RunResult second = runExperiment(again);
    QCOMPARE(second.variants.size(), first.variants.size());
    for (size_t i = 0; i < first.variants.size(); ++i) {
      QCOMPARE(second.variants[i].detail<ClusteringOutput>()->labels,
               first.variants[i].detail<ClusteringOutput>()->labels);
      QCOMPARE(second.variants[i].detail<ClusteringOutput>()->iterations,
               first.variants[i].detail<ClusteringOutput>()->iterations);
      QCOMPARE(second.variants[i].detail<ClusteringOutput>()->inertia,
               first.variants[i].detail<ClusteringOutput>()->inertia);
    }
  }
};

QTEST_GUILESS_MAIN(TstKMeansRealData)
#include "tst_kmeans_real_data.moc"
