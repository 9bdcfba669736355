// SPDX-License-Identifier: MIT
// The CPU executor's workers start with clean AVX upper state even when the thread that starts
// them has it dirty (as a GUI thread can: the window ran the KNN executor 25 times slower than
// the CLI until forEachBlock cleared it). Read from XINUSE (xgetbv 1), not from timings.
#include <QtTest>
#include <atomic>

#include "kernellab/block_executor.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define KLTEST_X86 1
#endif

namespace {

#ifdef KLTEST_X86
// XGETBV with ECX = 1 reports which state components are in use (bit 2: the AVX upper halves).
bool haveXinuse() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__builtin_cpu_supports("avx")) return false;
  if (!__get_cpuid_count(0xD, 1, &a, &b, &c, &d)) return false;
  return (a & (1u << 2)) != 0;
}

bool avxUpperInUse() {
  unsigned lo = 0, hi = 0;
  asm volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
  return (lo & 4u) != 0;
}

// Plain inline assembly: in an AVX-target function the compiler would add its own vzeroupper.
void dirtyUpperState() {
  asm volatile("vpcmpeqd %%ymm15, %%ymm15, %%ymm15" ::: "xmm15");
}
#endif

}  // namespace

class TstBlockExecutor : public QObject {
  Q_OBJECT
 private slots:
  void everyBlockRunsOnce() {
    std::atomic<int> sum{0};
    kernellab::forEachBlock({7, 5}, [&](int bx, int by) { sum += 1 + bx + 7 * by; }, 3);
    QCOMPARE(sum.load(), 35 * 36 / 2);
  }

  void workersStartWithCleanVectorState() {
#ifdef KLTEST_X86
    if (!haveXinuse()) QSKIP("this CPU does not report XINUSE (xgetbv 1)");
    dirtyUpperState();
    QVERIFY(avxUpperInUse());  // the starting thread is dirty, as a GUI thread can be
    std::atomic<int> dirty{0}, blocks{0};
    kernellab::forEachBlock({16, 1}, [&](int, int) {
      if (avxUpperInUse()) ++dirty;
      ++blocks;
    }, 4);
    QCOMPARE(blocks.load(), 16);
    QCOMPARE(dirty.load(), 0);
    dirtyUpperState();
    kernellab::clearUpperVectorState();
    QVERIFY(!avxUpperInUse());
#else
    QSKIP("x86-64 only");
#endif
  }
};

QTEST_MAIN(TstBlockExecutor)
#include "tst_block_executor.moc"
