// SPDX-License-Identifier: MIT
// Requests and results survive a trip through JSON; bad files are refused with a clear reason.
#include <QtTest>

#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"
#include "test_support.h"

using namespace kernellab;
using nlohmann::json;

class TstJsonRoundtrip : public QObject {
  Q_OBJECT

  static RunResult smallRun() {
    RunRequest r;
    r.family = transpose::kFamily;
    r.section<TransposeProblem>().width = 70;
    r.section<TransposeProblem>().height = 33;
    r.backend = BackendChoice::Cpu;
    r.repetitions = 2;
    return runExperiment(r);
  }

  static QString errorOf(const std::string& text) {
    try {
      parseResultsFile(text);
    } catch (const InputError& e) {
      return e.what();
    }
    return {};
  }

 private slots:
  void requestRoundTrip() {
    RunRequest r;
    r.family = clustering::kKMeans;
    r.variants = {"shared-coalesced", "global-interleaved"};
    r.section<ClusteringProblem>().n = 12345;
    r.section<ClusteringProblem>().k = 7;
    r.section<ClusteringProblem>().d = 9;
    r.section<ClusteringProblem>().init = InitMethod::KMeansPlusPlus;
    r.section<ClusteringProblem>().shape = DatasetShape::Blobs;
    r.launch.threadsPerBlock = 512;
    r.seed = 99;
    r.backend = BackendChoice::Cuda;
    r.recordSchedule = true;
    const json j = r;
    const RunRequest back = j.get<RunRequest>();
    QCOMPARE(json(back), j);
    QCOMPARE(back.section<ClusteringProblem>().init, InitMethod::KMeansPlusPlus);
    QCOMPARE(back.variants.size(), size_t(2));
  }

  void resultRoundTripThroughAFile() {
    ResultsFile file;
    file.runs.push_back(smallRun());
    file.runs.front().variants.front().schedule.push_back({3, 17, 1000, 2500, 1, 2});
    QTemporaryDir dir;
    const std::string path = dir.filePath("r.json").toStdString();
    writeResultsFile(path, file);
    const ResultsFile back = readResultsFile(path);
    QCOMPARE(json(back), json(file));
    QCOMPARE(back.runs.front().variants.size(), size_t(6));
    QCOMPARE(back.runs.front().variants.front().schedule.front().smId, 17);
    QCOMPARE(back.schemaVersion, kSchemaVersion);
    // The best transpose's strategy (issue 18) and an approximate verification (issue 10).
    QCOMPARE(back.runs.front().variants.back().variant, std::string("best"));
    QCOMPARE(back.runs.front().variants.back().strategy, std::string("aligned-stripe"));
    VariantResult approx;
    approx.variant = "cublas";
    approx.verification.performed = approx.verification.passed = true;
    approx.verification.approximate = true;
    approx.verification.approximateMismatches = 4222;
    const VariantResult again = json(approx).get<VariantResult>();
    QVERIFY(again.verification.approximate);
    QCOMPARE(again.verification.approximateMismatches, uint64_t(4222));
    QVERIFY(!json(back.runs.front().variants.front()).contains("strategy"));  // seed variants
  }

  void olderFilesWithoutOptionalFieldsLoad() {
    const std::string text = R"({"schema_version":1,"kind":"kernellab-results","runs":[
      {"request":{"family":"transpose"},"variants":[{"variant":"naive","gbps":12.5}]}]})";
    const ResultsFile f = parseResultsFile(text);
    QCOMPARE(f.runs.front().variants.front().gbps, 12.5);
    QCOMPARE(f.runs.front().request.launch.threadsPerBlock, 256);
  }

  void badFilesAreRefusedWithTheReason() {
    QVERIFY(errorOf("{ not json").contains("not valid JSON"));
    QVERIFY(errorOf("[1,2]").contains("top level is not an object"));
    QVERIFY(errorOf(R"({"kind":"kernellab-results","runs":[]})").contains("'schema_version' is missing"));
    QVERIFY(errorOf(R"({"schema_version":99,"kind":"kernellab-results","runs":[]})")
                .contains("schema_version 99, newer than this build understands (2)"));
    QVERIFY(errorOf(R"({"schema_version":1,"kind":"something","runs":[]})").contains("'kind'"));
    QVERIFY(errorOf(R"({"schema_version":1,"kind":"kernellab-results","runs":[{"request":{"family":"transpose"},"variants":[{"gbps":"fast"}]}]})")
                .contains("'gbps'"));
    QVERIFY(errorOf(R"({"schema_version":1,"kind":"kernellab-results","runs":[{"request":{"family":"teleport"}}]})")
                .contains("unknown value 'teleport'"));
  }

  void requestCarriesOnlyItsFamily() {
    RunRequest t;
    t.family = transpose::kFamily;
    const json jt = t;
    QVERIFY(jt.contains("transpose") && !jt.contains("clustering") && !jt.contains("knn"));
    QVERIFY(jt["launch"].contains("tile") && !jt["launch"].contains("block_x"));

    RunRequest km;
    km.family = clustering::kKMeans;
    km.section<ClusteringProblem>().inputPath = "points.csv";
    const json jk = km;
    QVERIFY(!jk.contains("transpose") && !jk.contains("knn"));
    QVERIFY(!jk["launch"].contains("tile") && !jk["launch"].contains("block_x"));
    const json& c = jk["clustering"];
    QCOMPARE(c["input_path"].get<std::string>(), std::string("points.csv"));
    QCOMPARE(c["stop_rule"].get<std::string>(), std::string("fixed-point"));
    QCOMPARE(c["max_iterations"].get<int>(), 300);
    // A file has no generator, the fixed point no epsilon, first-K init no centers file.
    for (const char* absent : {"shape", "radius", "noise_fraction", "epsilon", "centers_path"})
      QVERIFY2(!c.contains(absent), absent);
    km.section<ClusteringProblem>().stopRule = StopRule::ScoreChange;
    km.section<ClusteringProblem>().init = InitMethod::Given;
    km.section<ClusteringProblem>().centersPath = "c.csv";
    QCOMPARE(json(km)["clustering"]["epsilon"].get<double>(), 1e-4);
    QCOMPARE(json(km)["clustering"]["centers_path"].get<std::string>(), std::string("c.csv"));

    RunRequest kc;
    kc.family = clustering::kKCenters;
    kc.section<ClusteringProblem>().shape = DatasetShape::Blobs;
    const json jc = json(kc)["clustering"];
    QVERIFY(jc.contains("shape") && jc.contains("radius") && jc.contains("noise_fraction"));
    QVERIFY(!jc.contains("max_iterations") && !jc.contains("stop_rule") && !jc.contains("epsilon"));

    RunRequest kn;
    kn.family = knn::kFamily;
    const json jn = kn;
    QVERIFY(jn.contains("knn") && !jn.contains("clustering") && !jn.contains("transpose"));
    QVERIFY(jn["launch"].contains("block_x") && !jn["launch"].contains("tile"));
  }

  void savedSettingsKeepEveryFamily() {
    RunRequest r;
    r.family = clustering::kKMeans;
    r.section<TransposeProblem>().width = 4096;
    r.section<KnnProblem>().window = 21;
    r.section<TransposeProblem>().tile = 16;
    r.section<ClusteringProblem>().stopRule = StopRule::ScoreChange;
    r.section<ClusteringProblem>().epsilon = 0.01;
    const RunRequest back = parseRequest(requestWithAllSections(r).dump());
    QCOMPARE(requestWithAllSections(back), requestWithAllSections(r));
    QCOMPARE(back.section<TransposeProblem>().width, int64_t(4096));
    QCOMPARE(back.section<KnnProblem>().window, 21);
    QCOMPARE(back.section<TransposeProblem>().tile, 16);
  }

  void stopFieldsRoundTrip() {
    ClusteringOutput c;
    c.iterations = 17;
    c.stopReason = StopReason::Converged;
    IterationRecord it;
    it.iteration = 17;
    it.labelsChanged = 0;
    QCOMPARE(json(c)["stop_reason"].get<std::string>(), std::string("converged"));
    QCOMPARE(json(c).get<ClusteringOutput>().stopReason, StopReason::Converged);
    QCOMPARE(json(it)["labels_changed"].get<int64_t>(), int64_t(0));
    QCOMPARE(json(it).get<IterationRecord>().labelsChanged, int64_t(0));
    QVERIFY(!json(IterationRecord{}).contains("labels_changed"));  // -1: not counted
    // Pruned k-centers (issue 15): the points read for a center, absent when not counted.
    it.visited = 0;
    QCOMPARE(json(it)["visited"].get<int64_t>(), int64_t(0));
    it.visited = 123456789012;
    QCOMPARE(json(it).get<IterationRecord>().visited, int64_t(123456789012));
    QVERIFY(!json(IterationRecord{}).contains("visited"));
    QCOMPARE(json(IterationRecord{}).get<IterationRecord>().visited, int64_t(-1));
    // Whether the center's launch ran a pass (the CUDA engine's several centers a pass).
    it.pass = 0;
    QCOMPARE(json(it)["pass"].get<int>(), 0);
    QCOMPARE(json(it).get<IterationRecord>().pass, 0);
    QVERIFY(!json(IterationRecord{}).contains("pass"));
    QCOMPARE(json(IterationRecord{}).get<IterationRecord>().pass, -1);
    QVERIFY(!json(ClusteringOutput{}).contains("stop_reason"));    // k-centers
  }

  void version1FilesSayTheyRanTheScoreRule() {
    // Schema 1 had Campaign's score rule only: its k-means runs are read as such, with the stop
    // reason worked out from the iteration count and the last two scores.
    const std::string text = R"({"schema_version":1,"kind":"kernellab-results","runs":[
      {"schema_version":1,"request":{"family":"kmeans","clustering":{"max_iterations":50,"epsilon":1e-4}},
       "variants":[{"variant":"a","clustering":{"iterations":13},
                    "iterations":[{"iteration":12,"score":100.0},{"iteration":13,"score":99.999}]},
                   {"variant":"b","clustering":{"iterations":50},
                    "iterations":[{"iteration":49,"score":100.0},{"iteration":50,"score":90.0}]},
                   {"variant":"c","clustering":{"iterations":50},
                    "iterations":[{"iteration":49,"score":100.0},{"iteration":50,"score":100.0}]}]}]})";
    const ResultsFile f = parseResultsFile(text);
    const RunResult& run = f.runs.front();
    QCOMPARE(run.request.section<ClusteringProblem>().stopRule, StopRule::ScoreChange);
    QCOMPARE(run.variants[0].detail<ClusteringOutput>()->stopReason, StopReason::ScoreRule);
    QCOMPARE(run.variants[1].detail<ClusteringOutput>()->stopReason, StopReason::IterationLimit);
    QCOMPARE(run.variants[2].detail<ClusteringOutput>()->stopReason, StopReason::ScoreRule);
    // Written again, it is a schema-2 file that says the same.
    const ResultsFile again = parseResultsFile(json(f).dump());
    QCOMPARE(json(again), json(f));
    QCOMPARE(json(f)["runs"][0]["request"]["clustering"]["stop_rule"].get<std::string>(),
             std::string("score"));
    // Requests: version 1 ran the score rule; a bare request or a version-2 one gets the default.
    QCOMPARE(parseRequest(R"({"schema_version":1,"request":{"family":"kmeans"}})")
                 .section<ClusteringProblem>()
                 .stopRule,
             StopRule::ScoreChange);
    QCOMPARE(parseRequest(R"({"schema_version":2,"request":{"family":"kmeans"}})")
                 .section<ClusteringProblem>()
                 .stopRule,
             StopRule::FixedPoint);
    QCOMPARE(parseRequest(R"({"family":"kmeans"})").section<ClusteringProblem>().stopRule,
             StopRule::FixedPoint);
  }

  void aResultsFileIsARequest() {
    ResultsFile file;
    file.runs.push_back(smallRun());
    const RunRequest r = parseRequest(json(file).dump());
    QCOMPARE(json(r), json(file.runs.front().request));
    file.runs.push_back(file.runs.front());
    try {
      parseRequest(json(file).dump());
      QFAIL("a results file of two runs is not one request");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("holds 2 runs"), e.what());
    }
  }

  void requestFileForms() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("req.json").toStdString();
    RunRequest r;
    r.family = transpose::kFamily;
    r.section<TransposeProblem>().width = 333;
    writeRequestFile(path, r);
    QCOMPARE(readRequestFile(path).section<TransposeProblem>().width, int64_t(333));
    QCOMPARE(parseRequest(R"({"family":"knn","knn":{"window":9}})").section<KnnProblem>().window,
             9);
  }
};

QTEST_APPLESS_MAIN(TstJsonRoundtrip)
#include "tst_json_roundtrip.moc"
