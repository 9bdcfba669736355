// SPDX-License-Identifier: MIT
// The models against a real GPU: the occupancy calculator matches
// cudaOccupancyMaxActiveBlocksPerMultiprocessor for every transpose kernel and launch shape, and
// a recorded schedule covers every tile once, with the kernels' own blockIdx mapping and never
// more blocks at once on an SM than the occupancy API allows.
#include <QtTest>

#include "kernellab/experiment.h"
#include "kernellab/occupancy.h"
#include "kernellab/schedule_model.h"
#include "kernellab/transpose.h"
#include "kernellab/transpose_phases.h"
#include "test_support.h"

using namespace kernellab;

class TstModelsCuda : public QObject {
  Q_OBJECT

  static RunResult run(int tile, int tpb, bool record) {
    RunRequest r;
    r.family = transpose::kFamily;
    r.variants = {"all"};
    r.section<TransposeProblem>().width = 2048;
    r.section<TransposeProblem>().height = 1536;  // non-square grid: the general diagonal formula
    r.section<TransposeProblem>().tile = tile;
    r.launch.threadsPerBlock = tpb;
    r.warmup = 1;
    r.repetitions = 3;
    r.backend = BackendChoice::Cuda;
    r.recordSchedule = record;
    r.measureCeilings = false;
    return runExperiment(r);
  }

 private slots:
  void calculatorMatchesTheOccupancyApi_data() {
    QTest::addColumn<int>("tile");
    QTest::addColumn<int>("tpb");
    QTest::newRow("32x8") << 32 << 256;
    QTest::newRow("32x32") << 32 << 1024;
    QTest::newRow("32x1") << 32 << 32;
    QTest::newRow("16x16") << 16 << 256;
    QTest::newRow("16x4") << 16 << 64;
  }

  void calculatorMatchesTheOccupancyApi() {
    KLTEST_REQUIRE_CUDA();
    QFETCH(int, tile);
    QFETCH(int, tpb);
    const RunResult r = run(tile, tpb, false);
    QVERIFY2(r.ok, r.message.c_str());
    const auto checks = occupancy::checkRun(r);
    QCOMPARE(checks.size(), r.variants.size());
    for (const auto& c : checks)
      QVERIFY2(c.match, qPrintable(QString("%1: tpb %2 regs %3 smem %4: device %5, calculator %6")
                                       .arg(QString::fromStdString(c.kernel)).arg(c.input.threadsPerBlock)
                                       .arg(c.input.registersPerThread).arg(c.input.sharedBytesPerBlock)
                                       .arg(c.deviceBlocks).arg(c.calculatorBlocks)));
  }

  void recordedScheduleIsCompleteAndWithinOccupancy() {
    KLTEST_REQUIRE_CUDA();
    const RunResult r = run(32, 256, true);
    QVERIFY2(r.ok, r.message.c_str());
    for (const auto& v : r.variants) {
      QVERIFY2(!v.schedule.empty(), v.variant.c_str());
      const auto& k = v.kernels.front();
      const auto s = schedule::summarizeRecorded(v.schedule, k.gridX, k.gridY);
      QVERIFY2(s.tilesComplete, v.variant.c_str());
      QVERIFY(s.smsUsed <= r.device.smCount);
      QVERIFY(s.maxSmId < r.device.smCount);
      QVERIFY2(s.maxConcurrentPerSM <= k.resources->maxActiveBlocksPerSM,
               qPrintable(QString("%1: %2 blocks at once on one SM, occupancy API allows %3")
                              .arg(QString::fromStdString(v.variant)).arg(s.maxConcurrentPerSM)
                              .arg(k.resources->maxActiveBlocksPerSM)));
      // Each record's tile is the kernels' own mapping of its blockIdx.
      const auto variant = v.variant == "diagonal" ? transpose::Variant::Diagonal : transpose::Variant::Padded;
      for (const auto& b : v.schedule) {
        const BlockCoord t = transpose::tileFor(variant, b.blockId % k.gridX, b.blockId / k.gridX, k.gridX, k.gridY);
        QCOMPARE(b.tileX, t.x);
        QCOMPARE(b.tileY, t.y);
        QVERIFY(b.endNs >= b.startNs);
      }
      QVERIFY(v.scheduleOverheadPct > -50 && v.scheduleOverheadPct < 1000);
    }
  }
};

QTEST_GUILESS_MAIN(TstModelsCuda)
#include "tst_models_cuda.moc"
