// SPDX-License-Identifier: MIT
// The CPU reference and the CPU executor: every transpose variant's shared index functions
// produce the exact transpose for awkward sizes and every launch shape, without a GPU.
#include <QtTest>
#include <cmath>
#include <limits>

#include "kernellab/ceilings.h"
#include "kernellab/errors.h"
#include "kernellab/experiment.h"
#include "kernellab/transpose.h"

using namespace kernellab;
using namespace kernellab::transpose;

class TstTransposeCpu : public QObject {
  Q_OBJECT

  static RunRequest request(int64_t w, int64_t h, int tile, int tpb) {
    RunRequest r;
    r.family = transpose::kFamily;
    r.section<TransposeProblem>().width = w;
    r.section<TransposeProblem>().height = h;
    r.section<TransposeProblem>().tile = tile;
    r.launch.threadsPerBlock = tpb;
    r.backend = BackendChoice::Cpu;
    r.warmup = 0;
    r.repetitions = 1;
    return r;
  }

 private slots:
  void referenceOnAHandMadeMatrix() {
    // 3 columns x 2 rows:  [1 2 3; 4 5 6]  ->  3 rows x 2 columns: [1 4; 2 5; 3 6]
    const float in[] = {1, 2, 3, 4, 5, 6};
    float out[6] = {};
    referenceTranspose(in, 3, 2, out);
    const float expected[] = {1, 4, 2, 5, 3, 6};
    for (int i = 0; i < 6; ++i) QCOMPARE(out[i], expected[i]);
  }

  void inputIsSeededAndHasNoZeros() {
    const auto a = makeInput(37, 41, 7), b = makeInput(37, 41, 7), c = makeInput(37, 41, 8);
    QVERIFY(a == b);
    QVERIFY(a != c);
    for (float v : a) {
      QVERIFY(v != 0.0f);
      QVERIFY(v > -1.0f && v < 1.0f);
    }
  }

  void executorMatchesReference_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("tile");
    QTest::addColumn<int>("tpb");
    const int sizes[][2] = {{1, 1}, {1000, 37}, {37, 1000}, {33, 65}, {64, 64}, {96, 32}, {1, 77}, {77, 1}, {129, 257}};
    const int shapes[][2] = {{32, 256}, {32, 1024}, {32, 32}, {16, 256}, {16, 16}, {16, 64}};
    for (auto& s : sizes)
      for (auto& sh : shapes)
        QTest::newRow(qPrintable(QString("%1x%2 tile%3 tpb%4").arg(s[0]).arg(s[1]).arg(sh[0]).arg(sh[1])))
            << s[0] << s[1] << sh[0] << sh[1];
  }

  void executorMatchesReference() {
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, tile);
    QFETCH(int, tpb);
    const auto in = makeInput(w, h, 3);
    std::vector<float> expected(in.size()), out(in.size());
    referenceTranspose(in.data(), w, h, expected.data());
    for (const auto& vi : variants()) {
      const Geometry g = makeGeometry(request(w, h, tile, tpb), vi.variant);
      std::fill(out.begin(), out.end(), std::numeric_limits<float>::quiet_NaN());
      executeOnCpu(vi.variant, g, in.data(), out.data());
      const Verification v = vi.variant == Variant::Copy
                                 ? verifyTranspose(in.data(), out.data(), w * int64_t(h))
                                 : verifyTranspose(expected.data(), out.data(), w * int64_t(h));
      QVERIFY2(v.passed, qPrintable(QString(vi.id) + ": " + QString::fromStdString(v.note)));
    }
  }

  // Every strategy of the best variant (issue 18), forced where it applies, moves every element
  // through the shared phase functions: tails of 1-3 points, partial staged blocks, the aligned
  // tile's heads at odd heights, bulk rows' partial last row group (heights not a multiple of 64).
  void everyBestStrategyMatchesReference_data() {
    QTest::addColumn<QString>("strategy");
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    const int sizes[][2] = {{3, 1001},  {16, 999}, {1, 50},  {1001, 3},   {999, 16}, {200, 777},
                            {777, 200}, {33, 65},  {64, 64}, {1001, 999}, {17, 300}, {300, 17},
                            {120, 130}, {65, 137},  {40, 1000}, {600, 129}, {200, 64},
                            {4, 63}};
    for (const char* st :
         {"tile", "aligned-tile", "aligned-stripe", "tile-40", "bulk-rows", "narrow-width",
          "narrow-height", "staged-rows", "staged-cols"})
      for (auto& sz : sizes)
        if (strategyApplies(*strategyFromString(st), sz[0], sz[1]))
          QTest::newRow(qPrintable(QString("%1 %2x%3").arg(st).arg(sz[0]).arg(sz[1])))
              << QString(st) << sz[0] << sz[1];
  }

  void everyBestStrategyMatchesReference() {
    QFETCH(QString, strategy);
    QFETCH(int, w);
    QFETCH(int, h);
    qputenv("KERNELLAB_TRANSPOSE_STRATEGY", strategy.toUtf8());
    const Geometry g = makeGeometry(request(w, h, 32, 256), Variant::Best);
    qunsetenv("KERNELLAB_TRANSPOSE_STRATEGY");
    QCOMPARE(QString(toString(g.strategy)), strategy);
    const auto in = makeInput(w, h, 5);
    std::vector<float> expected(in.size()), out(in.size(), std::numeric_limits<float>::quiet_NaN());
    referenceTranspose(in.data(), w, h, expected.data());
    executeOnCpu(Variant::Best, g, in.data(), out.data());
    const Verification v = verifyTranspose(expected.data(), out.data(), w * int64_t(h));
    QVERIFY2(v.passed, qPrintable(strategy + ": " + QString::fromStdString(v.note)));
  }

  void bestChoosesItsStrategyByShape() {
    // The rule measured on the H200 (docs/BENCHMARKS.md, issue 18).
    QCOMPARE(chooseStrategy(3, 1000000), Strategy::NarrowWidth);
    QCOMPARE(chooseStrategy(1000000, 3), Strategy::NarrowHeight);
    QCOMPARE(chooseStrategy(16, 1000000), Strategy::StagedRows);
    QCOMPARE(chooseStrategy(1000000, 16), Strategy::StagedCols);
    // Bulk rows from 120 to 200 floats (measured better than tile-40 there, worse at 80 and 280).
    QCOMPARE(chooseStrategy(200, 1000000), Strategy::BulkRows);
    QCOMPARE(chooseStrategy(120, 1000000), Strategy::BulkRows);
    QCOMPARE(chooseStrategy(80, 1000000), Strategy::Tile40);
    QCOMPARE(chooseStrategy(40, 1000000), Strategy::Tile40);
    QCOMPARE(chooseStrategy(280, 1000000), Strategy::Tile40);
    QCOMPARE(chooseStrategy(600, 1000000), Strategy::Tile40);
    // A height below one 64-row group is one partial group.
    QCOMPARE(chooseStrategy(200, 40), Strategy::BulkRows);
    // A device without the bulk copy keeps the 40-wide tile.
    QCOMPARE(chooseStrategy(200, 1000000, false), Strategy::Tile40);
    QCOMPARE(chooseStrategy(192, 1000000), Strategy::Tile);
    QCOMPARE(chooseStrategy(680, 1000000), Strategy::Tile);  // 17 tiles of 40: past one stripe
    QCOMPARE(chooseStrategy(1000000, 200), Strategy::Tile);
    QCOMPARE(chooseStrategy(8192, 8192), Strategy::Tile);
    QCOMPARE(chooseStrategy(8191, 8193), Strategy::AlignedStripe);
    QCOMPARE(chooseStrategy(8193, 8191), Strategy::AlignedStripe);
    // The run says which strategy moved the shape; the seed variants say nothing.
    RunRequest r = request(3, 1000, 32, 256);
    r.variants = {"padded", "best"};
    const RunResult res = runExperiment(r);
    QVERIFY(res.ok);
    QCOMPARE(res.variants[0].strategy, std::string());
    QCOMPARE(res.variants[1].strategy, std::string("narrow-width"));
    QVERIFY(res.variants[1].kernels.front().name.find("NarrowWidth") != std::string::npos ||
            res.variants[1].kernels.front().name == "transposeBestKernel");
  }

  // Bulk rows: the bulk copy needs compute capability 9.0, its stage the per-block shared memory,
  // and a width that is a multiple of 4 (16-byte aligned chunks of 16-byte multiples).
  void bulkRowsRunsOnlyWhereTheDeviceCan() {
    QVERIFY(bulkRowsRunsOn(9, 227 * 1024, 200));
    QVERIFY(bulkRowsRunsOn(10, 227 * 1024, 600));
    QVERIFY(!bulkRowsRunsOn(8, 163 * 1024, 200));      // A100: no bulk copy
    QVERIFY(bulkRowsRunsOn(12, 99 * 1024, 200));       // 51 KB stage in 99 KiB
    QVERIFY(!bulkRowsRunsOn(12, 99 * 1024, 400));      // 100 KiB stage does not fit
    QVERIFY(!strategyApplies(Strategy::BulkRows, 202, 1000));
    QVERIFY(!strategyApplies(Strategy::BulkRows, 908, 1000));  // 227 KiB stage: no room left
    QVERIFY(strategyApplies(Strategy::BulkRows, 904, 1000));
    qputenv("KERNELLAB_TRANSPOSE_STRATEGY", "bulk-rows");  // forced: chosen by no shape
    const Geometry g = makeGeometry(request(200, 1000, 32, 256), Variant::Best);
    qunsetenv("KERNELLAB_TRANSPOSE_STRATEGY");
    QCOMPARE(g.strategy, Strategy::BulkRows);
    QCOMPARE(g.gridX, 16);  // 15 groups of 64 rows and one of 40
    QCOMPARE(g.gridY, 1);
    QCOMPARE(g.tile * g.blockRows, 288);
    QCOMPARE(sharedFloats(g), 64 * 200);
    // (The fallback on a device without it: tst_access_model traces a cc 8.0 device.)
  }

  void forcedStrategyThatCannotMoveTheShapeIsRefused() {
    qputenv("KERNELLAB_TRANSPOSE_STRATEGY", "narrow-width");
    try {
      makeGeometry(request(200, 1000, 32, 256), Variant::Best);
      QFAIL("a 200-wide matrix was accepted for registers of at most 16");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("cannot move a 200x1000 matrix"));
    }
    qputenv("KERNELLAB_TRANSPOSE_STRATEGY", "sideways");
    QVERIFY_THROWS_EXCEPTION(InputError, makeGeometry(request(64, 64, 32, 256), Variant::Best));
    qunsetenv("KERNELLAB_TRANSPOSE_STRATEGY");
  }

  void verificationCatchesUnwrittenAndWrongElements() {
    const auto in = makeInput(40, 30, 1);
    std::vector<float> expected(in.size());
    referenceTranspose(in.data(), 40, 30, expected.data());
    std::vector<float> poisoned(in.size(), std::numeric_limits<float>::quiet_NaN());
    Verification v = verifyTranspose(expected.data(), poisoned.data(), 1200);
    QVERIFY(!v.passed);
    QCOMPARE(v.mismatches, uint64_t(1200));
    QVERIFY(QString::fromStdString(v.note).contains("never written"));
    std::vector<float> almost = expected;
    almost[555] = -almost[555];
    v = verifyTranspose(expected.data(), almost.data(), 1200);
    QCOMPARE(v.mismatches, uint64_t(1));
    QVERIFY(QString::fromStdString(v.note).contains("555"));
  }

  void geometryFollowsTheLaunchConfiguration() {
    const Geometry g = makeGeometry(request(1000, 37, 32, 256), Variant::Padded);
    QCOMPARE(g.blockRows, 8);
    QCOMPARE(g.gridX, 32);
    QCOMPARE(g.gridY, 2);
    QCOMPARE(g.pitch, 33);
    QCOMPARE(makeGeometry(request(1000, 37, 32, 256), Variant::Tiled).pitch, 32);
  }

  void badLaunchesNameTheValueAndTheLimit_data() {
    QTest::addColumn<int>("tile");
    QTest::addColumn<int>("tpb");
    QTest::addColumn<int>("w");
    QTest::addColumn<QString>("expected");
    QTest::newRow("tile 8") << 8 << 64 << 10 << "--tile 8 is not supported (16 or 32)";
    QTest::newRow("tpb 0") << 32 << 0 << 10 << "--tpb 0 is outside 1..1024";
    QTest::newRow("tpb 2048") << 32 << 2048 << 10 << "--tpb 2048 is outside 1..1024";
    QTest::newRow("tpb 100") << 32 << 100 << 10 << "multiple of the tile width 32";
    QTest::newRow("tpb 512 tile 16") << 16 << 512 << 10 << "at most tile x tile = 256";
    QTest::newRow("width 0") << 32 << 256 << 0 << "width and height must be at least 1";
  }

  void badLaunchesNameTheValueAndTheLimit() {
    QFETCH(int, tile);
    QFETCH(int, tpb);
    QFETCH(int, w);
    QFETCH(QString, expected);
    try {
      makeGeometry(request(w, 10, tile, tpb), Variant::Padded);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(expected), e.what());
    }
  }

  void deviceLimitIsEnforcedOnEveryBackend() {
    try {
      makeGeometry(request(64, 64, 32, 1024), Variant::Padded, 512);
      QFAIL("no error");
    } catch (const InputError& e) {
      QVERIFY(QString(e.what()).contains("above this device's limit of 512"));
    }
  }

  void runOnTheCpuBackendFillsTheResult() {
    RunRequest r = request(1000, 37, 32, 256);
    r.variants = {"all"};
    r.repetitions = 3;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.backend, std::string("cpu"));
    QVERIFY(!res.backendNote.empty());
    QCOMPARE(res.variants.size(), size_t(6));
    QCOMPARE(res.ceilings.size(), size_t(1));
    for (const auto& v : res.variants) {
      QVERIFY(v.ok);
      QVERIFY(v.verification.performed && v.verification.passed);
      QCOMPARE(v.verification.compared, uint64_t(37000));
      QCOMPARE(v.bytes, 2.0 * 4.0 * 37000);
      QCOMPARE(v.total.samples, 3);
      QVERIFY(v.total.minMs <= v.total.medianMs && v.total.medianMs <= v.total.maxMs);
      QVERIFY(std::fabs(v.gbps - v.bytes / (v.total.medianMs * 1e-3) / 1e9) < 1e-9 * v.gbps + 1e-12);
      QCOMPARE(v.kernels.front().timing.clock, std::string("cpu-steady-clock"));
    }
    QCOMPARE(res.request.section<TransposeProblem>().rowsPerThread, 4);
  }

  void faultInjectionFailsVerification() {
    qputenv("KERNELLAB_FAULT_INJECT", "padded");
    RunRequest r = request(64, 48, 32, 256);
    r.variants = {"padded", "naive"};
    const RunResult res = runExperiment(r);
    qunsetenv("KERNELLAB_FAULT_INJECT");
    QVERIFY(!res.ok);
    QCOMPARE(res.variants[0].verification.mismatches, uint64_t(1));
    QVERIFY(res.variants[1].verification.passed);
  }

  void cancelStopsBetweenLaunches() {
    std::atomic<bool> cancel{true};
    RunHooks hooks;
    hooks.cancel = &cancel;
    QVERIFY_THROWS_EXCEPTION(Cancelled, runExperiment(request(64, 64, 32, 256), hooks));
  }

  void copyCeilingCopiesAndCountsReadPlusWrite() {
    std::vector<float> from(1 << 16), to(from.size());
    for (size_t i = 0; i < from.size(); ++i) from[i] = float(i);
    const Ceiling c = hostCopyCeiling(to.data(), from.data(), from.size() * sizeof(float), 2, 5, {});
    QVERIFY(to == from);
    QCOMPARE(c.name, std::string("memcpy (host)"));
    QCOMPARE(c.bytes, 2.0 * 4.0 * double(from.size()));
    QCOMPARE(c.timing.samples, 5);  // warm-up copies are not samples
    QCOMPARE(c.timing.clock, std::string("cpu-steady-clock"));
    QVERIFY(c.gbps > 0);
  }

  void copyCeilingStopsOnCancelBetweenCopies() {
    // The ceiling of a large matrix takes several copies: Cancel must not wait for all of them.
    std::atomic<bool> cancel{false};
    RunHooks hooks;
    hooks.cancel = &cancel;
    int copies = 0;
    QVERIFY_THROWS_EXCEPTION(Cancelled, measureCopyCeiling("test", 8, "test-clock", 1, 10, hooks, [&] {
                               if (++copies == 3) cancel = true;
                               return 1.0;
                             }));
    QCOMPARE(copies, 3);
  }
};

QTEST_APPLESS_MAIN(TstTransposeCpu)
#include "tst_transpose_cpu.moc"
