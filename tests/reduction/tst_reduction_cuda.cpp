// SPDX-License-Identifier: MIT
// The reduction kernels and cub::DeviceReduce on the GPU against the double reference; skipped
// with CUDA's error text when no device works (the same checks run on GPU servers through
// `kernellab-cli verify --family reduction`).
#include <QtTest>

#include "kernellab/experiment.h"
#include "kernellab/reduction.h"
#include "test_support.h"

using namespace kernellab;

class TstReductionCuda : public QObject {
  Q_OBJECT
 private slots:
  void everyVariantVerifiesOnTheGpu_data() {
    QTest::addColumn<qlonglong>("n");
    QTest::addColumn<int>("tpb");
    QTest::addColumn<QString>("op");
    for (const char* op : {"sum", "max"}) {
      QTest::newRow(qPrintable(QString("%1 N=1 tpb 32").arg(op))) << 1ll << 32 << QString(op);
      QTest::newRow(qPrintable(QString("%1 N=31 tpb 64").arg(op))) << 31ll << 64 << QString(op);
      QTest::newRow(qPrintable(QString("%1 N=1000003 tpb 256").arg(op)))
          << 1000003ll << 256 << QString(op);
      QTest::newRow(qPrintable(QString("%1 N=16777217 tpb 1024").arg(op)))
          << 16777217ll << 1024 << QString(op);
    }
  }
  void everyVariantVerifiesOnTheGpu() {
    KLTEST_REQUIRE_CUDA();
    QFETCH(qlonglong, n);
    QFETCH(int, tpb);
    QFETCH(QString, op);
    RunRequest r;
    r.family = reduction::kFamily;
    r.variants = {"all"};
    r.section<ReductionProblem>().n = n;
    r.section<ReductionProblem>().op = *reduction::operationFromString(op.toStdString());
    r.launch.threadsPerBlock = tpb;
    r.warmup = 1;
    r.repetitions = 2;
    r.backend = BackendChoice::Cuda;
    const RunResult res = runExperiment(r);
    QVERIFY2(res.ok, res.message.c_str());
    QCOMPARE(res.backend, std::string("cuda"));
    QCOMPARE(res.ceilings.front().name, std::string("cudaMemcpy D2D"));
    QCOMPARE(res.variants.size(), size_t(8));  // the seven steps and cub
    for (const VariantResult& v : res.variants) {
      QVERIFY2(v.ok, v.error.c_str());
      QVERIFY2(v.verification.passed, (v.variant + ": " + v.verification.note).c_str());
      QVERIFY(v.fractionOfMemcpy > 0);
      if (v.variant != "cub") QVERIFY(v.kernels.front().resources.has_value());  // occupancy
    }
  }
};

QTEST_MAIN(TstReductionCuda)
#include "tst_reduction_cuda.moc"
