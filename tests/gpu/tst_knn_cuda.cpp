// SPDX-License-Identifier: MIT
// The CUDA KNN kernels against the CPU reference, their resources from the CUDA API, the shared
// memory opt-in above 48 KiB and the refusal beyond the device's limit; skipped with CUDA's error
// text when no device works (the same checks run on GPU servers through `kernellab-cli verify`).
#include <QtTest>

#include "kernellab/experiment.h"
#include "kernellab/knn.h"
#include "test_support.h"

using namespace kernellab;

namespace {

RunRequest request(int rows, int cols, int comps, int window, int k, int bx, int by) {
  RunRequest r;
  r.family = knn::kFamily;
  r.section<KnnProblem>().rows = rows;
  r.section<KnnProblem>().cols = cols;
  r.section<KnnProblem>().components = comps;
  r.section<KnnProblem>().window = window;
  r.section<KnnProblem>().k = k;
  r.section<KnnProblem>().blockX = bx;
  r.section<KnnProblem>().blockY = by;
  r.launch.threadsPerBlock = bx * by;
  r.backend = BackendChoice::Cuda;
  r.warmup = 1;
  r.repetitions = 3;
  return r;
}

}  // namespace

class TstKnnCuda : public QObject {
  Q_OBJECT
 private slots:
  void everyVariantVerifiesOnTheGpu_data() {
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("cols");
    QTest::addColumn<int>("comps");
    QTest::addColumn<int>("window");
    QTest::addColumn<int>("k");
    QTest::addColumn<int>("bx");
    QTest::addColumn<int>("by");
    QTest::newRow("seed 377x329 W14 k8") << 377 << 329 << 1 << 14 << 8 << 256 << 1;
    QTest::newRow("seed launch: a block per row") << 377 << 329 << 1 << 14 << 8 << 329 << 1;
    QTest::newRow("37x41 C3 32x8") << 37 << 41 << 3 << 14 << 8 << 32 << 8;
    QTest::newRow("6x9 window > image") << 6 << 9 << 2 << 14 << 8 << 16 << 4;
    QTest::newRow("29x31 C32 k32") << 29 << 31 << 32 << 3 << 32 << 16 << 16;
    QTest::newRow("1x2 k1") << 1 << 2 << 1 << 1 << 1 << 32 << 1;
  }
  void everyVariantVerifiesOnTheGpu() {
    KLTEST_REQUIRE_CUDA();
    QFETCH(int, rows);
    QFETCH(int, cols);
    QFETCH(int, comps);
    QFETCH(int, window);
    QFETCH(int, k);
    QFETCH(int, bx);
    QFETCH(int, by);
    const RunResult res = runExperiment(request(rows, cols, comps, window, k, bx, by));
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.backend, std::string("cuda"));
    for (const auto& v : res.variants) {
      QVERIFY2(v.verification.passed, v.verification.note.c_str());
      const KernelResult& kr = v.kernels.front();
      QVERIFY(kr.resources.has_value());
      QVERIFY(kr.resources->registersPerThread > 0);
      QVERIFY(kr.resources->maxActiveBlocksPerSM > 0);
      QCOMPARE(uint64_t(kr.resources->dynamicSharedBytes),
               v.detail<KnnDetails>()->sharedBytesPerBlock);
      QCOMPARE(kr.timing.clock, std::string("cuda-events"));
      QCOMPARE(kr.timing.samples, 3);
    }
  }

  void sharedWindowAbove48KiBOptsIn() {
    KLTEST_REQUIRE_CUDA();
    // 14 rows of 1000 pixels plus a 1024-wide block: ~60 KB of shared memory per block.
    RunRequest r = request(128, 1000, 1, 14, 8, 1024, 1);
    r.variants = {"shared-window"};
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    const VariantResult& v = res.variants.front();
    QVERIFY(v.detail<KnnDetails>()->sharedOptIn);
    QVERIFY(v.detail<KnnDetails>()->sharedBytesPerBlock > 49152);
    QVERIFY(v.verification.passed);
  }

  void sharedWindowBeyondTheDeviceIsRefusedNotTimed() {
    KLTEST_REQUIRE_CUDA();
    RunRequest r = request(64, 4096, 8, 14, 8, 256, 1);
    r.variants = {"shared-window", "shared-row"};
    const RunResult res = runExperiment(r);
    const VariantResult& w = res.variants[0];
    QVERIFY(!w.ok);
    QVERIFY(w.refused);
    QVERIFY2(QString::fromStdString(w.error).contains("B of shared memory per block"), w.error.c_str());
    QVERIFY(QString::fromStdString(w.error).contains(QString::number(res.device.sharedPerBlockOptin)));
    QVERIFY(w.kernels.empty() || w.kernels.front().timing.samples == 0);
    QVERIFY(res.variants[1].ok);  // one row of 4096 x 8 floats (128 KiB) still fits with opt-in
    QVERIFY(res.variants[1].verification.passed);
  }
};

QTEST_GUILESS_MAIN(TstKnnCuda)
#include "tst_knn_cuda.moc"
