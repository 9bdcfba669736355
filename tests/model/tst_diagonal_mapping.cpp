// SPDX-License-Identifier: MIT
// The diagonal blockIdx mapping visits every tile exactly once, for square and non-square grids.
#include <QtTest>
#include <set>
#include <vector>

#include "kernellab/transpose_phases.h"

using namespace kernellab;
using namespace kernellab::transpose;

class TstDiagonalMapping : public QObject {
  Q_OBJECT

  // Returns how many tiles are hit != 1 times (0 means a bijection) and whether any fell outside.
  template <class Map>
  static std::pair<int, bool> coverage(int gx, int gy, Map map) {
    std::vector<int> hits(static_cast<size_t>(gx) * gy, 0);
    bool outside = false;
    for (int by = 0; by < gy; ++by)
      for (int bx = 0; bx < gx; ++bx) {
        const BlockCoord t = map(bx, by, gx, gy);
        if (t.x < 0 || t.x >= gx || t.y < 0 || t.y >= gy) {
          outside = true;
          continue;
        }
        ++hits[static_cast<size_t>(t.y) * gx + t.x];
      }
    int wrong = 0;
    for (int h : hits) wrong += (h != 1);
    return {wrong, outside};
  }

 private slots:
  void generalFormulaIsABijectionForEveryShape() {
    for (int gx = 1; gx <= 48; ++gx)
      for (int gy = 1; gy <= 48; ++gy) {
        const auto [wrong, outside] = coverage(gx, gy, diagonalTileGeneral);
        QVERIFY2(!outside && wrong == 0, qPrintable(QString("grid %1x%2").arg(gx).arg(gy)));
      }
    for (auto [gx, gy] : std::vector<std::pair<int, int>>{{512, 3}, {3, 512}, {257, 129}, {1, 65535}}) {
      const auto [wrong, outside] = coverage(gx, gy, diagonalTileGeneral);
      QVERIFY2(!outside && wrong == 0, qPrintable(QString("grid %1x%2").arg(gx).arg(gy)));
    }
  }

  void squareFormulaIsABijectionOnSquareGrids() {
    for (int g = 1; g <= 64; ++g) {
      const auto [wrong, outside] = coverage(g, g, diagonalTileSquare);
      QVERIFY2(!outside && wrong == 0, qPrintable(QString("grid %1x%1").arg(g)));
    }
  }

  void dispatchingMappingPicksTheRightFormula() {
    // diagonalTile is what the kernel and the executor call: it must be a bijection everywhere.
    for (int gx = 1; gx <= 33; ++gx)
      for (int gy = 1; gy <= 33; ++gy) QCOMPARE(coverage(gx, gy, diagonalTile).first, 0);
  }

  void squareFormulaMatchesTheSeed() {
    // Seed 000: blockIdx_y = blockIdx.x; blockIdx_x = (blockIdx.x + blockIdx.y) % gridDim.x.
    QCOMPARE(diagonalTileSquare(0, 1, 4, 4), (BlockCoord{1, 0}));
    QCOMPARE(diagonalTileSquare(3, 2, 4, 4), (BlockCoord{1, 3}));
    // Consecutive launched blocks (bx = 0..3 of row by = 0) walk down a diagonal: distinct
    // output tile rows, hence different memory partitions on GT200.
    std::set<int> rows;
    for (int bx = 0; bx < 4; ++bx) rows.insert(diagonalTileSquare(bx, 0, 4, 4).y);
    QCOMPARE(rows.size(), size_t(4));
  }

  void seedTextsNonSquareBranchLeavesTheGrid() {
    // The seed writes blockIdx_y = blockIdx.x in the non-square branch: with more columns than
    // rows of blocks it asks for tiles that do not exist. Recorded here so nobody "restores" it.
    auto seedText = [](int bx, int by, int gx, int gy) {
      const int bid = bx + gx * by;
      const int y = bx;
      return BlockCoord{((bid / gy) + y) % gx, y};
    };
    QVERIFY(coverage(4, 2, seedText).second);
    QVERIFY(!coverage(4, 2, diagonalTileGeneral).second);
  }

  void groupedOrderIsABijectionForEveryShapeAndGroup() {
    for (int group : {1, 2, 3, 4, 8, 32})
      for (int gx = 1; gx <= 40; ++gx)
        for (int gy = 1; gy <= 40; gy += 3) {
          const auto [wrong, outside] = coverage(gx, gy, [group](int bx, int by, int x, int y) {
            return groupedTile(bx, by, x, y, group);
          });
          QVERIFY2(!outside && wrong == 0, qPrintable(QString("grid %1x%2 group %3").arg(gx).arg(gy).arg(group)));
        }
    // Consecutive blocks walk down a stripe: blocks 0..3 of a 4-wide stripe form one tile row.
    QCOMPARE(groupedTile(0, 0, 16, 8, 4), (BlockCoord{0, 0}));
    QCOMPARE(groupedTile(3, 0, 16, 8, 4), (BlockCoord{3, 0}));
    QCOMPARE(groupedTile(4, 0, 16, 8, 4), (BlockCoord{0, 1}));
    QCOMPARE(groupedTile(0, 2, 16, 8, 4), (BlockCoord{4, 0}));  // block 32 starts the next stripe
  }

  void cartesianIsTheIdentity() {
    QCOMPARE(cartesianTile(5, 7, 9, 9), (BlockCoord{5, 7}));
    QCOMPARE(tileFor(Variant::Padded, 2, 3, 4, 4), (BlockCoord{2, 3}));
    QCOMPARE(tileFor(Variant::Diagonal, 2, 3, 4, 4), diagonalTileSquare(2, 3, 4, 4));
  }
};

QTEST_APPLESS_MAIN(TstDiagonalMapping)
#include "tst_diagonal_mapping.moc"
