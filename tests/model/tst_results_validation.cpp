// SPDX-License-Identifier: MIT
// A results file is data: every index and size in it is range-checked against its own request
// before anything uses it, and a bad file is refused with the path of the field (issue 16). Runs
// of every family, as the CLI and the window write them, pass.
#include <QtTest>
#include <cmath>

#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/results_validation.h"
#include "kernellab/transpose.h"

using namespace kernellab;
using nlohmann::json;

namespace {

QString errorOf(const std::string& text) {
  try {
    parseResultsFile(text);
  } catch (const InputError& e) {
    return QString::fromStdString(e.what());
  } catch (const std::exception& e) {
    return QStringLiteral("not an InputError: ") + e.what();
  }
  return {};
}

RunRequest small(Family f) {
  RunRequest r;
  r.family = f;
  r.backend = BackendChoice::Cpu;
  r.repetitions = 1;
  r.warmup = 0;
  r.section<TransposeProblem>().width = 40;
  r.section<TransposeProblem>().height = 24;
  r.section<ClusteringProblem>().n = 300;
  r.section<ClusteringProblem>().k = 4;
  r.section<ClusteringProblem>().d = 3;
  r.section<ClusteringProblem>().maxIterations = 3;
  r.section<KnnProblem>().rows = 12;
  r.section<KnnProblem>().cols = 10;
  r.section<KnnProblem>().window = 3;
  r.section<KnnProblem>().k = 4;
  r.section<KnnProblem>().keepNeighbours = true;
  if (f != transpose::kFamily) r.launch.threadsPerBlock = 64;
  return r;
}

// A clustering run as JSON, to be broken one field at a time.
json kmeansRun() {
  ResultsFile f;
  RunRequest r = small(clustering::kKMeans);
  r.variants = {"shared-coalesced"};
  f.runs.push_back(runExperiment(r));
  return json(f);
}

}  // namespace

class TstResultsValidation : public QObject {
  Q_OBJECT
 private slots:
  void runsOfEveryFamilyPass() {
    for (Family f :
         {transpose::kFamily, clustering::kKMeans, clustering::kKCenters, knn::kFamily}) {
      ResultsFile file;
      file.runs.push_back(runExperiment(small(f)));
      QVERIFY2(file.runs.back().ok, file.runs.back().message.c_str());
      const QString e = errorOf(json(file).dump());
      QVERIFY2(e.isEmpty(), qPrintable(QString(toString(f)) + ": " + e));
    }
    // A sweep with a skipped point (its request records a value the validators refused).
    RunRequest base = small(clustering::kKMeans);
    base.variants = {"global-interleaved"};
    const ResultsFile sweep = runSweep(base, {{"tpb", {"64", "4096"}}});
    QCOMPARE(sweep.runs.size(), size_t(2));
    QVERIFY(!sweep.runs[1].ok);
    const QString e = errorOf(json(sweep).dump());
    QVERIFY2(e.isEmpty(), qPrintable(e));
  }

  void theCrashingEmptySweepAxisIsRefused() {
    // The 125-byte file of issue 16: a modulo by an empty sweep axis crashed the window.
    const std::string file =
        R"({"schema_version":1,"kind":"kernellab-results","sweep":[{"axis":"tpb","values":[]}],"runs":[{"request":{"family":"kmeans"}}]})";
    QCOMPARE(file.size(), size_t(125));
    QCOMPARE(errorOf(file), QString("sweep[0].values is empty (axis 'tpb' has no values)"));
    QVERIFY(
        errorOf(
            R"({"schema_version":1,"kind":"kernellab-results","sweep":[{"axis":"tpb","values":["1"]}],"runs":[{"request":{"family":"kmeans"}},{"request":{"family":"kmeans"}}]})")
            .contains("runs has 2 runs; the sweep's axes make 1"));
  }

  void labelsOutsideKAreRefused() {
    json j = kmeansRun();
    j["runs"][0]["variants"][0]["clustering"]["labels"][5] = 2147483646;
    QCOMPARE(
        errorOf(j.dump()),
        QString("runs[0].variants[0].clustering.labels[5] = 2147483646 is outside -1..3 (K = 4)"));
    j["runs"][0]["variants"][0]["clustering"]["labels"][5] = -2;
    QVERIFY(errorOf(j.dump()).contains("labels[5] = -2 is outside -1..3"));
  }

  void arraySizesMustMatchTheRequest() {
    json j = kmeansRun();
    j["runs"][0]["variants"][0]["clustering"]["labels"].erase(0);
    QCOMPARE(errorOf(j.dump()),
             QString("runs[0].variants[0].clustering.labels has 299 entries; N needs 300"));
    j = kmeansRun();
    j["runs"][0]["variants"][0]["clustering"]["centers"].push_back(1.0);
    QVERIFY(errorOf(j.dump()).contains("clustering.centers has 13 values; K x D is 4 x 3"));
    j = kmeansRun();
    j["runs"][0]["variants"][0]["clustering"]["cluster_sizes"].push_back(0);
    QVERIFY(errorOf(j.dump()).contains("cluster_sizes has 5 entries; K needs 4"));
    j = kmeansRun();
    j["runs"][0]["variants"][0]["clustering"]["cluster_sizes"][1] = -3;
    QVERIFY(errorOf(j.dump()).contains("cluster_sizes[1] = -3 is outside 0..300"));
    j = kmeansRun();
    j["runs"][0]["variants"][0]["iterations"][0]["kernel_ms"].push_back(1.0);
    QVERIFY(errorOf(j.dump()).contains(
        "iterations[0].kernel_ms has 4 times; the variant has 3 kernels"));
    j = kmeansRun();
    j["runs"][0]["request"]["clustering"]["k"] = 0;
    QVERIFY(
        errorOf(j.dump()).contains("runs[0].request.clustering.k = 0 is outside 1..2147483647"));
  }

  void kcentersIndicesStayInsideThePoints() {
    ResultsFile f;
    RunRequest r = small(clustering::kKCenters);
    r.variants = {"shared-coalesced"};
    f.runs.push_back(runExperiment(r));
    json j = f;
    j["runs"][0]["variants"][0]["clustering"]["center_indices"][1] = 300;
    QVERIFY(
        errorOf(j.dump()).contains("center_indices[1] = 300 is outside 0..299 (a point index)"));
    j = f;
    j["runs"][0]["variants"][0]["iterations"][2]["chosen_point"] = 1000000;
    QVERIFY(errorOf(j.dump()).contains("iterations[2].chosen_point = 1000000 is outside -1..299"));
  }

  // Issue 15: a pruned k-centers center reads at most the N points of its request.
  void prunedVisitedCountsStayWithinN() {
    ResultsFile f;
    RunRequest r = small(clustering::kKCenters);
    r.variants = {"pruned"};
    f.runs.push_back(runExperiment(r));
    json j = f;
    QVERIFY2(errorOf(j.dump()).isEmpty(), qPrintable(errorOf(j.dump())));
    QCOMPARE(j["runs"][0]["variants"][0]["iterations"][0]["visited"].get<int64_t>(), int64_t(300));
    j["runs"][0]["variants"][0]["iterations"][1]["visited"] = 301;
    QVERIFY(errorOf(j.dump()).contains("iterations[1].visited = 301 is outside -1..300"));
    j = f;
    j["runs"][0]["variants"][0]["iterations"][1]["visited"] = -2;
    QVERIFY(errorOf(j.dump()).contains("iterations[1].visited = -2 is outside -1.."));
    // A center ran a pass or did not: 0 or 1 (-1, or absent: not counted).
    j = f;
    j["runs"][0]["variants"][0]["iterations"][1]["pass"] = 1;
    QVERIFY2(errorOf(j.dump()).isEmpty(), qPrintable(errorOf(j.dump())));
    j["runs"][0]["variants"][0]["iterations"][1]["pass"] = 2147483648LL;
    QVERIFY2(errorOf(j.dump()).contains("'pass': 2147483648 is above the limit 2147483647"),
             qPrintable(errorOf(j.dump())));
    j["runs"][0]["variants"][0]["iterations"][1]["pass"] = 2;
    QVERIFY(errorOf(j.dump()).contains("iterations[1].pass = 2 is outside -1..1"));
  }

  void knnIndicesStayInsideTheImage() {
    ResultsFile f;
    f.runs.push_back(runExperiment(small(knn::kFamily)));
    json j = f;
    json& knn = j["runs"][0]["variants"][0]["knn"];
    QVERIFY(knn["indices"].size() == 12u * 10u * 4u);
    knn["indices"][7] = 120;
    QVERIFY(errorOf(j.dump()).contains("knn.indices[7] = 120 is outside -1..119 (a pixel index)"));
    knn["indices"][7] = 0;
    knn["squared_distances"].erase(0);
    QVERIFY(errorOf(j.dump()).contains("knn.squared_distances has 479 entries; indices has 480"));
  }

  void schedulesAreBounded() {
    ResultsFile f;
    RunRequest r = small(transpose::kFamily);
    f.runs.push_back(runExperiment(r));
    f.runs[0].variants[0].schedule.push_back({0, 1000000, 10, 20, 0, 0});
    QVERIFY(errorOf(json(f).dump()).contains("schedule[0] sm = 1000000 is outside 0..65535"));
    f.runs[0].variants[0].schedule[0] = {0, 3, 50, 20, 0, 0};
    QVERIFY(errorOf(json(f).dump()).contains("schedule[0] ends (20 ns) before it starts (50 ns)"));
  }

  void poisonedOutputsSurviveTheRoundTrip() {
    // A variant that left an output element unwritten carries the NaN poison, which JSON writes
    // as null: the file must read back (it used to be refused as "type must be number").
    json j = kmeansRun();
    j["runs"][0]["variants"][0]["clustering"]["centers"][0] = nullptr;
    const ResultsFile f = parseResultsFile(j.dump());
    QVERIFY(std::isnan(f.runs[0].variants[0].detail<ClusteringOutput>()->centers[0]));
    j["runs"][0]["variants"][0]["clustering"]["labels"][0] = nullptr;  // not for integers
    QVERIFY(errorOf(j.dump()).contains("field 'labels' element 0 must be a number, not null"));
  }

  void validateIsCallableOnItsOwn() {
    ResultsFile f;
    f.sweep.push_back({"n", {}});
    QVERIFY_THROWS_EXCEPTION(InputError, validateResultsFile(f));
    f.sweep.clear();
    validateResultsFile(f);  // no runs: nothing to refuse
  }
};

QTEST_APPLESS_MAIN(TstResultsValidation)
#include "tst_results_validation.moc"
