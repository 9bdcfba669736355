// SPDX-License-Identifier: MIT
// The parallel reduction on the CPU executor: every variant's phase functions against the double
// reference (sums within the bound of their own depth, maxima and indices exactly) at awkward N
// and every block size; the passes; the access lens's divergent lanes and bank conflicts; the
// request, results file and verification around them.
#include <QtTest>
#include <cstdlib>

#include "kernellab/access_model.h"
#include "kernellab/experiment.h"
#include "kernellab/family.h"
#include "kernellab/json_io.h"
#include "kernellab/reduction.h"

using namespace kernellab;
using namespace kernellab::reduction;

namespace {

const std::vector<Variant> kExecutorVariants = {Variant::InterleavedDivergent,
                                                Variant::InterleavedStrided,
                                                Variant::Sequential,
                                                Variant::FirstAdd,
                                                Variant::WarpShuffle,
                                                Variant::Unrolled,
                                                Variant::GridStride};

RunRequest cpuRequest(int64_t n, Operation op, int tpb) {
  RunRequest r;
  r.family = kFamily;
  r.variants = {"all"};
  r.section<ReductionProblem>().n = n;
  r.section<ReductionProblem>().op = op;
  r.launch.threadsPerBlock = tpb;
  r.warmup = 0;
  r.repetitions = 1;
  r.backend = BackendChoice::Cpu;
  return r;
}

// The requests of one warp's shared accesses in a phase of a traced block.
std::vector<access::Request> sharedRequests(const std::string& variant, int phase, int tpb = 256) {
  access::AccessQuery q;
  q.request = cpuRequest(1 << 16, Operation::Sum, tpb);
  q.variant = variant;
  const access::BlockTrace t = access::traceBlock(q);
  std::vector<access::Request> out;
  for (const access::Request& r :
       access::warpRequests(t, 0, access::MemoryModel::forComputeCapability(9)))
    if (r.phase == phase && r.space == access::Space::Shared) out.push_back(r);
  return out;
}

}  // namespace

class TstReductionCpu : public QObject {
  Q_OBJECT
 private slots:
  void everyVariantMatchesTheReference_data() {
    QTest::addColumn<qlonglong>("n");
    QTest::addColumn<int>("tpb");
    for (qlonglong n : {1ll, 2ll, 31ll, 33ll, 1000ll, 4099ll, 100003ll})
      for (int tpb : {32, 64, 128, 256, 512, 1024})
        QTest::newRow(qPrintable(QString("N=%1 tpb %2").arg(n).arg(tpb))) << n << tpb;
  }
  void everyVariantMatchesTheReference() {
    QFETCH(qlonglong, n);
    QFETCH(int, tpb);
    const std::vector<float> in = makeInput(n, 7);
    const Reference ref = reference(in);
    for (Variant v : kExecutorVariants) {
      for (int blocks : {0, 3}) {
        ReductionProblem p;
        p.n = n;
        p.blocks = blocks;
        const std::vector<Geometry> passes = plan(p, v, tpb, 16);
        const float sum = executeSum(passes, in.data());
        const Verification s = verifySum(sum, ref, sumDepth(passes), n);
        QVERIFY2(s.passed, qPrintable(QString::fromLatin1(info(v).id) + ": " +
                                      QString::fromStdString(s.note)));
        const ValueIndex m = executeMax(passes, in.data());
        const Verification x = verifyMax(m.value, m.index, ref);
        QVERIFY2(x.passed, qPrintable(QString::fromLatin1(info(v).id) + ": " +
                                      QString::fromStdString(x.note)));
      }
    }
  }

  void passesChainToOneBlock() {
    ReductionProblem p;
    p.n = 1000003;
    const std::vector<Geometry> passes = plan(p, Variant::Sequential, 256, 0);
    QCOMPARE(passes.front().count, int64_t(1000003));
    QCOMPARE(passes.front().grid, 3907);  // ceil(N / 256)
    for (size_t i = 1; i < passes.size(); ++i)
      QCOMPARE(passes[i].count, int64_t(passes[i - 1].grid));
    QCOMPARE(passes.back().grid, 1);
    // Two elements per thread: half the blocks.
    QCOMPARE(plan(p, Variant::FirstAdd, 256, 0).front().grid, 1954);
    // The grid-stride variant takes the blocks it is given, and the device's wave otherwise.
    p.blocks = 3;
    QCOMPARE(plan(p, Variant::GridStride, 256, 100).front().grid, 3);
    p.blocks = 0;
    QCOMPARE(plan(p, Variant::GridStride, 256, 100).front().grid, 100);
    // One element is one pass of one block.
    p.n = 1;
    QCOMPARE(plan(p, Variant::Unrolled, 1024, 0).size(), size_t(1));
  }

  void theSumBoundFollowsTheDepth() {
    const std::vector<float> in = makeInput(1 << 20, 3);
    const Reference ref = reference(in);
    ReductionProblem p;
    p.n = 1 << 20;
    // Sequential at 256 threads: 8 tree levels in each of 3 passes (2^20 -> 4096 -> 16 -> 1).
    const auto seq = plan(p, Variant::Sequential, 256, 0);
    QCOMPARE(sumDepth(seq), int64_t(24));
    // The grid-stride loop adds its steps: 2^20 / (4 x 512) = 512 steps, then the pair.
    p.blocks = 4;
    const auto stride = plan(p, Variant::GridStride, 256, 0);
    QCOMPARE(reduction::sumDepth(stride.front()), int64_t(512 + 1 + 8));
    const float sum = executeSum(stride, in.data());
    const Verification v = verifySum(sum, ref, sumDepth(stride), p.n);
    QVERIFY(v.passed);
    QVERIFY(v.maxError <= v.tolerance);
    // The bound is tight enough to catch a wrong element: a thousandth of sum |x|.
    QVERIFY(v.tolerance < 1e-3 * ref.absSum);
    QVERIFY(!verifySum(sum + 2 * v.tolerance + 1, ref, sumDepth(stride), p.n).passed);
  }

  void runsOnTheCpuBackendAndSaysWhereCubIsNot() {
    const RunResult run = runExperiment(cpuRequest(65537, Operation::Sum, 128));
    QVERIFY2(run.ok, run.message.c_str());
    QCOMPARE(run.variants.size(), kExecutorVariants.size());  // "all" leaves out cub on the CPU
    for (const VariantResult& v : run.variants) {
      QVERIFY2(v.verification.performed && v.verification.passed, v.verification.note.c_str());
      const ReductionOutput* out = v.detail<ReductionOutput>();
      QVERIFY(out);
      QCOMPARE(out->passes.front(), int64_t(65537));
      QCOMPARE(out->index, int64_t(-1));
    }
    RunRequest cub = cpuRequest(100, Operation::Sum, 128);
    cub.variants = {"cub"};
    try {
      validateRequest(cub);
      QFAIL("cub ran on the CPU");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains("runs only on the CUDA backend"), e.what());
    }
  }

  void verificationCatchesAWrongResult() {
    for (const char* op : {"sum", "max"}) {
      qputenv("KERNELLAB_FAULT_INJECT", "first-add");
      RunRequest r = cpuRequest(4099, *operationFromString(op), 64);
      const RunResult run = runExperiment(r);
      qunsetenv("KERNELLAB_FAULT_INJECT");
      QVERIFY(!run.ok);
      for (const VariantResult& v : run.variants)
        QCOMPARE(v.verification.passed, v.variant != "first-add");
    }
  }

  void badRequestsNameTheValueAndTheLimit() {
    auto errorOf = [](const RunRequest& r) {
      try {
        validateRequest(r);
      } catch (const InputError& e) {
        return QString(e.what());
      }
      return QString();
    };
    QVERIFY(errorOf(cpuRequest(1000, Operation::Sum, 96))
                .contains("--tpb 96: the reduction's tree halves the block"));
    QVERIFY(errorOf(cpuRequest(0, Operation::Sum, 256)).contains("--n 0 is outside 1..2147483647"));
    RunRequest schedule = cpuRequest(1000, Operation::Sum, 256);
    schedule.recordSchedule = true;
    QVERIFY(errorOf(schedule).contains("records no block schedules"));
  }

  void theLensShowsDivergenceAndBankConflicts() {
    // Kernel 1, level 0 (phase 1): the even lanes combine: 16 of 32 active, conflict-free pairs.
    for (const access::Request& r : sharedRequests("interleaved-divergent", 1))
      QCOMPARE(int(r.lanes.size()), 16);
    // Level 3 (s = 8): one lane in 16.
    for (const access::Request& r : sharedRequests("interleaved-divergent", 4))
      QCOMPARE(int(r.lanes.size()), 2);
    // Kernel 2: every lane of warp 0 active at level 0, slots 2 t: 2-way bank conflicts; at
    // level 4 (s = 16) lanes 0..7 reach slots 0, 32, ... 224: all in bank 0, 8-way.
    for (const access::Request& r : sharedRequests("interleaved-strided", 1)) {
      QCOMPARE(int(r.lanes.size()), 32);
      QCOMPARE(r.conflictDegree, 2);
    }
    int worst = 0;
    for (const access::Request& r : sharedRequests("interleaved-strided", 5))
      worst = std::max(worst, r.conflictDegree);
    QCOMPARE(worst, 8);
    // Kernel 3: the lower half, consecutive slots: 32 lanes, conflict-free.
    for (const access::Request& r : sharedRequests("sequential", 1)) {
      QCOMPARE(int(r.lanes.size()), 32);
      QCOMPARE(r.conflictDegree, 1);
    }
    // The library's kernels have no tracer.
    QVERIFY(!access::canTrace(kFamily, "cub"));
    QVERIFY(access::canTrace(kFamily, "grid-stride"));
  }

  void resultsFilesKeepTheSectionsAndAreChecked() {
    RunRequest r = cpuRequest(1000, Operation::MaxIndex, 64);
    r.variants = {"sequential"};
    r.section<ReductionProblem>().blocks = 5;
    ResultsFile file;
    file.runs.push_back(runExperiment(r));
    const ResultsFile back = parseResultsFile(nlohmann::json(file).dump());
    const RunRequest& br = back.runs.front().request;
    QCOMPARE(br.section<ReductionProblem>().n, int64_t(1000));
    QCOMPARE(br.section<ReductionProblem>().op, Operation::MaxIndex);
    QCOMPARE(br.section<ReductionProblem>().blocks, 5);
    const ReductionOutput* out = back.runs.front().variants.front().detail<ReductionOutput>();
    QVERIFY(out);
    QCOMPARE(out->index, file.runs.front().variants.front().detail<ReductionOutput>()->index);
    // An index beyond N is refused with its path.
    ResultsFile bad = file;
    bad.runs.front().variants.front().detail<ReductionOutput>()->index = 5000;
    try {
      parseResultsFile(nlohmann::json(bad).dump());
      QFAIL("accepted");
    } catch (const InputError& e) {
      QVERIFY2(QString(e.what()).contains(
                   "runs[0].variants[0].reduction.index = 5000 is outside -1..999"),
               e.what());
    }
  }

  // The family comes in through the registry: the CLI's words build its request.
  void theSharedRequestBuilderTakesItsParameters() {
    RunRequest base;
    base.family = kFamily;
    const RunRequest r = buildRequest(base, {{"n", "12345"}, {"op", "max"}, {"tpb", "512"}});
    QCOMPARE(r.section<ReductionProblem>().n, int64_t(12345));
    QCOMPARE(r.section<ReductionProblem>().op, Operation::MaxIndex);
    QCOMPARE(r.launch.threadsPerBlock, 512);
    QCOMPARE(applySweepValue(r, "blocks", "7").section<ReductionProblem>().blocks, 7);
    QVERIFY(familyFromString("reduction").has_value());
    QCOMPARE(describeVariants(kFamily).size(), size_t(8));
  }
};

QTEST_APPLESS_MAIN(TstReductionCpu)
#include "tst_reduction_cpu.moc"
