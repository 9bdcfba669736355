// SPDX-License-Identifier: MIT
// Occupancy calculator: the seed's worked examples (001), every limit reported, the next-block
// suggestions, the device check, and (where the CUDA toolkit is installed) agreement with
// NVIDIA's own header-only calculator, cuda_occupancy.h, for the cc 3.5+ presets.
#include <QtTest>

#include "kernellab/errors.h"
#include "kernellab/occupancy.h"

#ifdef KLTEST_HAVE_CUDA_OCCUPANCY_H
#include <cuda_occupancy.h>
#endif

using namespace kernellab;
using namespace kernellab::occupancy;

class TstOccupancy : public QObject {
  Q_OBJECT

  static Result calc(const char* arch, int tpb, int regs = 0, int smem = 0) {
    return calculate(archById(arch), Input{tpb, regs, smem});
  }
  static bool binds(const Result& r, Limit l) {
    return std::find(r.binding.begin(), r.binding.end(), l) != r.binding.end();
  }

 private slots:
  void seedThreadExamplesG80() {
    // Seed 001: on a G80 SM, blocks of 256, 512 and 128 threads give 3, 1 and 6 blocks.
    QCOMPARE(calc("g80", 256).activeBlocks, 3);
    QCOMPARE(calc("g80", 512).activeBlocks, 1);
    QCOMPARE(calc("g80", 128).activeBlocks, 6);
    QVERIFY(binds(calc("g80", 256), Limit::Threads));
  }

  void seedThreadExamplesGT200() {
    QCOMPARE(calc("gt200", 256).activeBlocks, 4);
    QCOMPARE(calc("gt200", 512).activeBlocks, 2);
    QCOMPARE(calc("gt200", 128).activeBlocks, 8);
  }

  void seedBlockSlotExample() {
    // Seed 001: 32-thread blocks on G80 would allow 24 blocks by threads, but 8 slots bind.
    const Result r = calc("g80", 32);
    QCOMPARE(r.limit(Limit::Threads).blocks, 24);
    QCOMPARE(r.activeBlocks, 8);
    QVERIFY(binds(r, Limit::BlockSlots));
    QCOMPARE(r.activeThreads, 256);
  }

  void seedRegisterExampleWithEveryLimit() {
    // Seed 001: 16x16 blocks on GT200 with 9 registers per thread: 9*256 = 2304 registers, "7
    // blocks"; with 11 registers 2816, "5 blocks". The plain division reproduces those figures;
    // the hardware allocates registers per block in 512-register units (2304 -> 2560), so 9
    // registers really allow 6. And the thread limit, which the seed's arithmetic leaves out,
    // binds first in both cases: 1024 threads per SM hold only 4 blocks of 256.
    const Result nine = calc("gt200", 256, 9);
    QCOMPARE(nine.limit(Limit::Registers).blocksWithoutGranularity, 7);
    QCOMPARE(nine.limit(Limit::Registers).blocks, 6);
    QCOMPARE(nine.registersPerBlock, 2560);
    QCOMPARE(nine.limit(Limit::Threads).blocks, 4);
    QCOMPARE(nine.limit(Limit::BlockSlots).blocks, 8);
    QVERIFY(!nine.limit(Limit::SharedMemory).bounded);
    QCOMPARE(nine.activeBlocks, 4);
    QCOMPARE(nine.binding, std::vector<Limit>{Limit::Threads});

    const Result eleven = calc("gt200", 256, 11);
    QCOMPARE(eleven.limit(Limit::Registers).blocksWithoutGranularity, 5);
    QCOMPARE(eleven.limit(Limit::Registers).blocks, 5);
    QCOMPARE(eleven.registersPerBlock, 3072);
    QCOMPARE(eleven.activeBlocks, 4);
    QVERIFY(binds(eleven, Limit::Threads));
    QCOMPARE(eleven.occupancy, 1.0);
  }

  void seedSharedMemoryExample() {
    // Seed 001: 2 KB per block: 8 blocks on G80 and GT200 (16 KB), and 8 on GF100 (block slots).
    QCOMPARE(calc("g80", 64, 0, 2048).limit(Limit::SharedMemory).blocks, 8);
    QCOMPARE(calc("gt200", 64, 0, 2048).limit(Limit::SharedMemory).blocks, 8);
    const Result fermi = calc("gf100", 64, 0, 2048);
    QCOMPARE(fermi.limit(Limit::SharedMemory).blocks, 24);
    QCOMPARE(fermi.activeBlocks, 8);
    QVERIFY(binds(fermi, Limit::BlockSlots));
  }

  void presetsCarryTheSeedTable() {
    // Seed 001's table: registers 8K/16K/32K, block slots 8, thread slots 768/1024/1536,
    // shared memory 16 KB/16 KB/48 KB.
    const ArchSpec g80 = archById("g80"), gt200 = archById("gt200"), gf100 = archById("gf100");
    QCOMPARE(g80.regsPerSM, 8192);
    QCOMPARE(gt200.regsPerSM, 16384);
    QCOMPARE(gf100.regsPerSM, 32768);
    for (const auto* a : {&g80, &gt200, &gf100}) QCOMPARE(a->maxBlocksPerSM, 8);
    QCOMPARE(g80.maxThreadsPerSM, 768);
    QCOMPARE(gt200.maxThreadsPerSM, 1024);
    QCOMPARE(gf100.maxThreadsPerSM, 1536);
    QCOMPARE(g80.sharedPerSM, 16384);
    QCOMPARE(gt200.sharedPerSM, 16384);
    QCOMPARE(gf100.sharedPerSM, 49152);
    QCOMPARE(g80.sharedBanks, 16);
    QVERIFY(g80.banksPerHalfWarp);
    // Hopper (H200): 64K registers, 2048 threads, 32 blocks, 228 KB per SM, 227 KB per block,
    // 1 KB reserved per block.
    const ArchSpec h = archById("h200");
    QCOMPARE(h.id, std::string("hopper"));
    QCOMPARE(h.regsPerSM, 65536);
    QCOMPARE(h.maxThreadsPerSM, 2048);
    QCOMPARE(h.maxBlocksPerSM, 32);
    QCOMPARE(h.sharedPerSM, 228 * 1024);
    QCOMPARE(h.maxSharedPerBlock, 227 * 1024);
    QCOMPARE(h.reservedSharedPerBlock, 1024);
    QCOMPARE(presets().size(), size_t(7));
  }

  void hopperSharedMemoryIncludesTheReservation() {
    // The padded 32x32 tile: 32*33*4 = 4224 B + 1 KB reserved = 5248 B (a multiple of 128).
    const Result r = calc("hopper", 256, 32, 4224);
    QCOMPARE(r.sharedPerBlock, 5248);
    QCOMPARE(r.limit(Limit::SharedMemory).blocks, 233472 / 5248);
    QCOMPARE(r.activeBlocks, 8);
    // Blocks that need the whole opt-in maximum fit once.
    QCOMPARE(calc("hopper", 128, 0, 227 * 1024).activeBlocks, 1);
  }

  void warpGranularityRoundsRegisterWarpsDown() {
    // Hopper, 17 registers, 512 threads: 544 -> 768 registers per warp; 85 warps fit, rounded
    // down to 84 (groups of 4); 84 / 16 warps = 5 blocks. The plain division says 7.
    const Result r = calc("hopper", 512, 17);
    QCOMPARE(r.limit(Limit::Registers).blocks, 5);
    QCOMPARE(r.limit(Limit::Registers).blocksWithoutGranularity, 7);
    QCOMPARE(r.activeBlocks, 4);  // threads bind first
  }

  void tooManyRegistersPerBlockCannotLaunch() {
    // 1024 threads x 255 registers far exceed the 64K registers a block may have.
    const Result r = calc("hopper", 1024, 255);
    QCOMPARE(r.activeBlocks, 0);
    QCOMPARE(r.occupancy, 0.0);
    QVERIFY(r.cannotLaunch.find("registers") != std::string::npos);
    // And the suggestion says how to fit one block.
    QVERIFY(!r.nextBlock.empty());
    QCOMPARE(r.nextBlock.front().parameter, std::string("registers"));
    QCOMPARE(r.nextBlock.front().to, 64);
  }

  void suggestionsFitTheNextBlock() {
    // Ampere, 1024 threads x 64 registers: 1 block (registers). Registers down to 32 or half
    // the threads let a second block in.
    const Result r = calc("ampere", 1024, 64);
    QCOMPARE(r.activeBlocks, 1);
    QVERIFY(binds(r, Limit::Registers));
    QCOMPARE(r.nextBlock.size(), size_t(2));
    for (const auto& s : r.nextBlock) {
      QCOMPARE(s.blocks, 2);
      Input in{1024, 64, 0};
      if (s.parameter == "registers") in.registersPerThread = s.to;
      if (s.parameter == "threads") in.threadsPerBlock = s.to;
      QCOMPARE(calculate(archById("ampere"), in).activeBlocks, 2);  // the suggestion is true
      // ... and the largest such value: one more register (or warp) does not fit.
      if (s.parameter == "registers") QCOMPARE(calculate(archById("ampere"), Input{1024, s.to + 1, 0}).activeBlocks, 1);
    }
    // Shared memory: G80 with 6000 B per block fits 2 blocks (6144 allocated); 5120 fits 3.
    const Result g = calc("g80", 64, 0, 6000);
    QCOMPARE(g.activeBlocks, 2);
    QCOMPARE(g.nextBlock.size(), size_t(1));
    QCOMPARE(g.nextBlock.front().parameter, std::string("shared"));
    QCOMPARE(g.nextBlock.front().to, 5120);
    QVERIFY(g.nextBlockText.find("5120") != std::string::npos);
  }

  void fullOccupancyAndFullSlotsSayWhy() {
    QVERIFY(calc("gt200", 256, 9).nextBlockText.find("Full occupancy") != std::string::npos);
    // 32-thread blocks on G80: 8 slots used, 8 of 24 warps.
    const Result r = calc("g80", 32);
    QVERIFY(r.nextBlock.empty());
    QVERIFY(r.nextBlockText.find("block slots") != std::string::npos);
  }

  void badInputNamesValueAndLimit() {
    try {
      calc("g80", 1024);
      QFAIL("expected InputError");
    } catch (const InputError& e) {
      QVERIFY(std::string(e.what()).find("1024") != std::string::npos);
      QVERIFY(std::string(e.what()).find("512") != std::string::npos);
    }
    QVERIFY_THROWS_EXCEPTION(InputError, calc("gf100", 256, 64));       // 63 max on Fermi
    QVERIFY_THROWS_EXCEPTION(InputError, calc("gt200", 256, 0, 20000));  // 16 KB
    QVERIFY_THROWS_EXCEPTION(InputError, calc("hopper", 0));
    QVERIFY_THROWS_EXCEPTION(InputError, archById("pascal"));
  }

  void chartsFollowTheCalculator() {
    const Charts c = charts(archById("gt200"), Input{256, 9, 0});
    QCOMPARE(c.byThreads.size(), size_t(512 / 32));
    QCOMPARE(c.byRegisters.size(), size_t(125));
    QCOMPARE(c.bySharedMemory.size(), size_t(16384 / 512 + 1));
    for (const auto& p : c.byThreads)
      QCOMPARE(p.occupancy, calculate(archById("gt200"), Input{p.x, 9, 0}).occupancy);
    // 9 registers: 100 % (threads bind); 124 registers x 256 threads exceed the 16K registers a
    // block may have on GT200: no block at all.
    QCOMPARE(c.byRegisters[9].occupancy, 1.0);
    QCOMPARE(c.byRegisters[124].activeBlocks, 0);
  }

  void deviceArchFromDeviceInfo() {
    DeviceInfo d;
    d.backend = "cuda";
    d.name = "NVIDIA H200";
    d.ccMajor = 9;
    d.smCount = 132;
    d.maxThreadsPerBlock = 1024;
    d.maxThreadsPerSM = 2048;
    d.maxBlocksPerSM = 32;
    d.regsPerSM = 65536;
    d.regsPerBlock = 65536;
    d.sharedPerBlock = 49152;
    d.sharedPerBlockOptin = 232448;
    d.sharedPerSM = 233472;
    d.reservedSharedPerBlock = 1024;
    const ArchSpec a = archFromDevice(d);
    const ArchSpec h = archById("hopper");
    QCOMPARE(a.smCount, 132);
    QCOMPARE(a.regAllocUnit, h.regAllocUnit);
    QCOMPARE(a.sharedAllocUnit, h.sharedAllocUnit);
    QCOMPARE(a.maxSharedPerBlock, h.maxSharedPerBlock);
    for (int tpb : {32, 96, 256, 1000, 1024})
      for (int regs : {0, 16, 40, 64, 128, 255})
        for (int smem : {0, 4224, 50000, 232448})
          QCOMPARE(calculate(a, Input{tpb, regs, smem}).activeBlocks,
                   calculate(h, Input{tpb, regs, smem}).activeBlocks);

    // The device check: a kernel record against the calculator.
    KernelResult k;
    k.name = "transposePaddedKernel";
    ResourceUsage u;
    u.registersPerThread = 30;
    u.staticSharedBytes = 4224;
    u.threadsPerBlock = 256;
    u.maxActiveBlocksPerSM = 8;
    k.resources = u;
    auto c = checkAgainstDevice(k, d);
    QVERIFY(c.has_value());
    QVERIFY(c->match);
    k.resources->maxActiveBlocksPerSM = 7;
    QVERIFY(!checkAgainstDevice(k, d)->match);
    DeviceInfo cpu;
    cpu.backend = "cpu";
    QVERIFY(!checkAgainstDevice(k, cpu).has_value());
    QVERIFY_THROWS_EXCEPTION(InputError, archFromDevice(cpu));
  }

  void agreesWithNvidiaHeaderCalculator() {
#ifndef KLTEST_HAVE_CUDA_OCCUPANCY_H
    QSKIP("cuda_occupancy.h not available (no CUDA toolkit in this build)");
#else
    // NVIDIA's cuda_occupancy.h computes the same limits on the host. For every cc >= 3 preset
    // and a grid of inputs the two calculators must agree block for block.
    int compared = 0;
    for (const ArchSpec& a : presets()) {
      if (a.ccMajor < 3) continue;  // cuda_occupancy.h no longer knows Tesla and Fermi
      cudaOccDeviceProp p;
      p.computeMajor = a.ccMajor;
      p.computeMinor = a.ccMinor;
      p.maxThreadsPerBlock = a.maxThreadsPerBlock;
      p.maxThreadsPerMultiprocessor = a.maxThreadsPerSM;
      p.regsPerBlock = a.maxRegsPerBlock;
      p.regsPerMultiprocessor = a.regsPerSM;
      p.warpSize = a.warpSize;
      p.sharedMemPerBlock = 49152;
      p.sharedMemPerMultiprocessor = size_t(a.sharedPerSM);
      p.numSms = a.smCount;
      p.sharedMemPerBlockOptin = size_t(a.maxSharedPerBlock);
      p.reservedSharedMemPerBlock = size_t(a.reservedSharedPerBlock);
      cudaOccDeviceState state;
      for (int tpb = 1; tpb <= a.maxThreadsPerBlock; tpb += (tpb < 64 ? 13 : 83)) {
        for (int regs = 0; regs <= a.maxRegsPerThread; regs += 9) {
          for (int smem = 0; smem <= a.maxSharedPerBlock; smem += 7937) {
            cudaOccFuncAttributes f;
            f.maxThreadsPerBlock = 1024;
            f.numRegs = regs;
            f.sharedSizeBytes = 0;
            f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
            f.maxDynamicSharedSizeBytes = size_t(a.maxSharedPerBlock);
            f.numBlockBarriers = 1;  // __syncthreads
            cudaOccResult res;
            QCOMPARE(int(cudaOccMaxActiveBlocksPerMultiprocessor(&res, &p, &f, &state, tpb, size_t(smem))),
                     int(CUDA_OCC_SUCCESS));
            const Result mine = calculate(a, Input{tpb, regs, smem});
            if (mine.activeBlocks != res.activeBlocksPerMultiprocessor)
              QFAIL(qPrintable(QString("%1 tpb %2 regs %3 smem %4: calculator %5, cuda_occupancy.h %6")
                                   .arg(QString::fromStdString(a.id)).arg(tpb).arg(regs).arg(smem)
                                   .arg(mine.activeBlocks).arg(res.activeBlocksPerMultiprocessor)));
            ++compared;
          }
        }
      }
    }
    QVERIFY(compared > 5000);
#endif
  }
};

QTEST_APPLESS_MAIN(TstOccupancy)
#include "tst_occupancy.moc"
