// SPDX-License-Identifier: MIT
// Requests and results survive a trip through JSON; bad files are refused with a clear reason.
#include <QtTest>

#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/json_io.h"
#include "test_support.h"

using namespace kernellab;
using nlohmann::json;

class TstJsonRoundtrip : public QObject {
  Q_OBJECT

  static RunResult smallRun() {
    RunRequest r;
    r.family = Family::Transpose;
    r.transpose.width = 70;
    r.transpose.height = 33;
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
    r.family = Family::KMeans;
    r.variants = {"shared-coalesced", "global-interleaved"};
    r.clustering.n = 12345;
    r.clustering.k = 7;
    r.clustering.d = 9;
    r.clustering.init = InitMethod::KMeansPlusPlus;
    r.clustering.shape = DatasetShape::Blobs;
    r.launch.threadsPerBlock = 512;
    r.seed = 99;
    r.backend = BackendChoice::Cuda;
    r.recordSchedule = true;
    const json j = r;
    const RunRequest back = j.get<RunRequest>();
    QCOMPARE(json(back), j);
    QCOMPARE(back.clustering.init, InitMethod::KMeansPlusPlus);
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
    QCOMPARE(back.runs.front().variants.back().strategy, std::string("aligned-tile"));
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
                .contains("schema_version 99, newer than this build understands (1)"));
    QVERIFY(errorOf(R"({"schema_version":1,"kind":"something","runs":[]})").contains("'kind'"));
    QVERIFY(errorOf(R"({"schema_version":1,"kind":"kernellab-results","runs":[{"request":{"family":"transpose"},"variants":[{"gbps":"fast"}]}]})")
                .contains("'gbps'"));
    QVERIFY(errorOf(R"({"schema_version":1,"kind":"kernellab-results","runs":[{"request":{"family":"teleport"}}]})")
                .contains("unknown value 'teleport'"));
  }

  void requestFileForms() {
    QTemporaryDir dir;
    const std::string path = dir.filePath("req.json").toStdString();
    RunRequest r;
    r.transpose.width = 333;
    writeRequestFile(path, r);
    QCOMPARE(readRequestFile(path).transpose.width, int64_t(333));
    QCOMPARE(parseRequest(R"({"family":"knn","knn":{"window":9}})").knn.window, 9);
  }
};

QTEST_APPLESS_MAIN(TstJsonRoundtrip)
#include "tst_json_roundtrip.moc"
