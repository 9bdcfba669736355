// SPDX-License-Identifier: MIT
// Block-schedule model: the mapping is the kernels' own and a bijection, waves follow launch
// order, and on a GT200-like configuration diagonal order spreads the transpose's writes over
// the partitions where Cartesian order camps on few of them.
#include <QtTest>
#include <set>

#include "kernellab/errors.h"
#include "kernellab/occupancy.h"
#include "kernellab/schedule_model.h"
#include "kernellab/transpose.h"
#include "kernellab/transpose_phases.h"

using namespace kernellab;
using namespace kernellab::schedule;

class TstScheduleModel : public QObject {
  Q_OBJECT

  // GT200 as the seed's paper ran it: 30 SMs, 8 partitions of 256 B, resident blocks from the
  // occupancy model for the padded kernel (256 threads, 32x33 floats of shared memory).
  static Config gt200(int gx, int gy, Mapping m) {
    Config c;
    c.gridX = gx;
    c.gridY = gy;
    c.mapping = m;
    const auto arch = occupancy::archById("gt200");
    c.smCount = arch.smCount;
    c.blocksPerSM = occupancy::calculate(arch, {256, 16, 32 * 33 * 4}).activeBlocks;
    return c;
  }

 private slots:
  void residentBlocksComeFromTheOccupancyModel() {
    const Config c = gt200(64, 64, Mapping::Cartesian);
    QCOMPARE(c.blocksPerSM, 3);  // 4224 B -> 4608 B allocated: 3 in 16 KB
    const Model m = simulate(c);
    QCOMPARE(m.residentBlocks, 90);
    QCOMPARE(m.waves.size(), size_t((64 * 64 + 89) / 90));
    QCOMPARE(m.width, int64_t(2048));
  }

  void diagonalSpreadsWritesOverPartitions() {
    // The test: on GT200 the worst partition load per wave is lower for diagonal order
    // than for Cartesian order when writing the transpose. Over several matrix shapes.
    for (auto [gx, gy] : std::vector<std::pair<int, int>>{{64, 64}, {32, 32}, {128, 128}, {64, 32}, {32, 64}, {96, 48}}) {
      const Model cart = simulate(gt200(gx, gy, Mapping::Cartesian));
      const Model diag = simulate(gt200(gx, gy, Mapping::Diagonal));
      const QString what = QString("grid %1x%2: cartesian %3, diagonal %4")
                               .arg(gx).arg(gy).arg(cart.meanWorstWriteShare).arg(diag.meanWorstWriteShare);
      QVERIFY2(diag.meanWorstWriteShare < cart.meanWorstWriteShare, qPrintable(what));
      QVERIFY2(diag.maxWorstWriteShare < cart.maxWorstWriteShare, qPrintable(what));
      QVERIFY2(diag.meanPartitionsWritten > cart.meanPartitionsWritten, qPrintable(what));
    }
    // The paper's 2048x2048 case in numbers: Cartesian waves write to 1-2 partitions (the first
    // wave to exactly one); diagonal waves to all 8, each taking close to 1/8.
    const Model cart = simulate(gt200(64, 64, Mapping::Cartesian));
    const Model diag = simulate(gt200(64, 64, Mapping::Diagonal));
    QCOMPARE(cart.waves[0].partitionsWritten, 1);
    QCOMPARE(cart.waves[0].worstWriteShare, 1.0);
    QCOMPARE(diag.waves[0].partitionsWritten, 8);
    QVERIFY(diag.maxWorstWriteShare < 0.15);
    // Reads are spread either way: both orders read rows of tiles.
    QVERIFY(cart.meanWorstReadShare < 0.2);
    QVERIFY(diag.meanWorstReadShare < 0.2);
  }

  void partitionLoadsAddUpToTheBytesMoved() {
    const Model m = simulate(gt200(20, 12, Mapping::Diagonal));
    uint64_t read = 0, written = 0;
    for (const auto& w : m.waves)
      for (size_t p = 0; p < w.readBytes.size(); ++p) {
        read += w.readBytes[p];
        written += w.writeBytes[p];
      }
    const uint64_t bytes = uint64_t(m.width) * uint64_t(m.height) * 4;
    QCOMPARE(read, bytes);
    QCOMPARE(written, bytes);
  }

  void hashedPartitionsEvenOutCartesianWrites() {
    // Since cc 2.0 addresses are hashed over partitions: Cartesian order no longer camps.
    Config c = gt200(64, 64, Mapping::Cartesian);
    c.partitions.mapping = PartitionMapping::Hashed;
    const Model m = simulate(c);
    QVERIFY(m.meanWorstWriteShare < 0.2);
    QVERIFY(m.meanPartitionsWritten > 7.5);
  }

  void linearPartitionArithmetic() {
    PartitionLayout p;  // 8 x 256 B
    QCOMPARE(partitionOf(0, p), 0);
    QCOMPARE(partitionOf(255, p), 0);
    QCOMPARE(partitionOf(256, p), 1);
    QCOMPARE(partitionOf(2048, p), 0);
    QCOMPARE(partitionOf(8 * 256 * 5 + 3 * 256 + 17, p), 3);
  }

  void mappingIsABijectionAndTheKernelsOwn() {
    // The diagonal mapping visits every tile once for many grid shapes, and the model's
    // mapping is the function the kernels call.
    for (int gx = 1; gx <= 40; ++gx)
      for (int gy = 1; gy <= 40; ++gy) {
        Config c;
        c.gridX = gx;
        c.gridY = gy;
        c.tile = 2;
        c.mapping = Mapping::Diagonal;
        const Model m = simulate(c);
        std::set<std::pair<int, int>> tiles;
        for (const auto& b : m.blocks) {
          QVERIFY(b.tile.x >= 0 && b.tile.x < gx && b.tile.y >= 0 && b.tile.y < gy);
          tiles.insert({b.tile.x, b.tile.y});
          QVERIFY(b.tile == transpose::tileFor(transpose::Variant::Diagonal, b.blockIdx.x,
                                               b.blockIdx.y, gx, gy));
        }
        QVERIFY2(tiles.size() == size_t(gx) * size_t(gy), qPrintable(QString("%1x%2").arg(gx).arg(gy)));
      }
  }

  void dispatchFollowsLaunchOrder() {
    Config c;
    c.gridX = 7;
    c.gridY = 5;
    c.smCount = 4;
    c.blocksPerSM = 2;
    const Model m = simulate(c);
    QCOMPARE(m.blocks.size(), size_t(35));
    for (size_t i = 0; i < m.blocks.size(); ++i) {
      const auto& b = m.blocks[i];
      QCOMPARE(b.blockId, int(i));
      QCOMPARE(b.blockIdx.x + 7 * b.blockIdx.y, int(i));
      QCOMPARE(b.wave, int(i) / 8);
      QVERIFY(b.sm >= 0 && b.sm < 4);
    }
    QCOMPARE(m.waves.back().blockCount, 35 - 4 * 8);
  }

  void recordedSummaryReadsConcurrency() {
    // A simulated recording has exactly the model's residency.
    Config c = gt200(16, 16, Mapping::Diagonal);
    const Model m = simulate(c);
    const auto rec = simulatedRecords(m, 500);
    const RecordedSummary s = summarizeRecorded(rec, 16, 16);
    QCOMPARE(s.blocks, 256);
    QCOMPARE(s.maxConcurrent, 90);
    QCOMPARE(s.maxConcurrentPerSM, 3);
    QCOMPARE(s.smsUsed, 30);
    QVERIFY(s.tilesComplete);
    QCOMPARE(s.spanUs, 1.5);  // 3 waves of 0.5 us
    auto broken = rec;
    broken.pop_back();
    QVERIFY(!summarizeRecorded(broken, 16, 16).tilesComplete);
  }

  void transposeRequestGivesTheConfiguration() {
    RunRequest r;
    r.section<TransposeProblem>().width = 2048;
    r.section<TransposeProblem>().height = 1000;  // a partial edge tile counts as a tile
    r.section<TransposeProblem>().tile = 32;
    r.launch.threadsPerBlock = 256;
    const Config c = transposeConfig(r, occupancy::archById("gt200"));
    QCOMPARE(c.gridX, 64);
    QCOMPARE(c.gridY, 32);
    QCOMPARE(c.smCount, 30);
    QCOMPARE(c.blocksPerSM, 3);
    QCOMPARE(transposeConfig(r, occupancy::archById("hopper")).blocksPerSM, 8);
    r.launch.threadsPerBlock = 1024;  // G80 blocks hold at most 512 threads
    QVERIFY_THROWS_EXCEPTION(InputError, transposeConfig(r, occupancy::archById("g80")));
  }

  void badConfigurationsAreInputErrors() {
    Config c;
    c.gridX = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(c));
    c.gridX = 4;
    c.blocksPerSM = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(c));
    c.blocksPerSM = 1;
    c.partitions.count = 0;
    QVERIFY_THROWS_EXCEPTION(InputError, simulate(c));
    QVERIFY_THROWS_EXCEPTION(InputError, mappingFromString("spiral"));
  }
};

QTEST_APPLESS_MAIN(TstScheduleModel)
#include "tst_schedule_model.moc"
