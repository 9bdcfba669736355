// SPDX-License-Identifier: MIT
// The CUDA transpose kernels against the CPU reference; skipped with CUDA's error text when no
// device works (the same checks run on GPU servers through `kernellab-cli verify`).
#include <QtTest>
#include <set>

#include "kernellab/experiment.h"
#include "kernellab/transpose.h"
#include "test_support.h"

using namespace kernellab;

class TstTransposeCuda : public QObject {
  Q_OBJECT
 private slots:
  void everyVariantVerifiesOnTheGpu_data() {
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("tile");
    QTest::addColumn<int>("tpb");
    QTest::newRow("1x1") << 1 << 1 << 32 << 256;
    QTest::newRow("1000x37") << 1000 << 37 << 32 << 256;
    QTest::newRow("37x1000 tile16") << 37 << 1000 << 16 << 128;
    QTest::newRow("2048x512") << 2048 << 512 << 32 << 1024;
  }
  void everyVariantVerifiesOnTheGpu() {
    KLTEST_REQUIRE_CUDA();
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, tile);
    QFETCH(int, tpb);
    RunRequest r;
    r.section<TransposeProblem>().width = w;
    r.section<TransposeProblem>().height = h;
    r.section<TransposeProblem>().tile = tile;
    r.launch.threadsPerBlock = tpb;
    r.backend = BackendChoice::Cuda;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    for (const auto& v : res.variants) {
      QVERIFY(v.verification.passed);
      QVERIFY(v.kernels.front().resources.has_value());
      QVERIFY(v.kernels.front().resources->maxActiveBlocksPerSM > 0);
      QCOMPARE(v.kernels.front().timing.clock, std::string("cuda-events"));
    }
    QCOMPARE(res.ceilings.front().name, std::string("cudaMemcpy D2D"));
  }

  void recordedScheduleCoversEveryTileOnce() {
    KLTEST_REQUIRE_CUDA();
    RunRequest r;
    r.section<TransposeProblem>().width = 1024;
    r.section<TransposeProblem>().height = 512;
    r.variants = {"padded", "diagonal"};
    r.recordSchedule = true;
    r.backend = BackendChoice::Cuda;
    const RunResult res = runExperiment(r);
    QVERIFY(res.ok);
    for (const auto& v : res.variants) {
      QCOMPARE(v.schedule.size(), size_t(32 * 16));
      std::set<std::pair<int, int>> tiles;
      for (const auto& b : v.schedule) {
        tiles.insert({b.tileX, b.tileY});
        QVERIFY(b.endNs >= b.startNs);
        QVERIFY(b.smId >= 0 && b.smId < res.device.smCount);
      }
      QCOMPARE(tiles.size(), size_t(32 * 16));
    }
  }
};

QTEST_GUILESS_MAIN(TstTransposeCuda)
#include "tst_transpose_cuda.moc"
