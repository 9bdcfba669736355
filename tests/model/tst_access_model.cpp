// SPDX-License-Identifier: MIT
// Access-pattern model on the transpose's own phase functions: sectors per request and
// coalescing efficiency (naive writes 32 sectors for 4 useful, copy 4 per 128-byte request),
// bank-conflict degrees (tiled 32-way on the column read, padded none), the cc 1.x half-warp
// banks of seed 000, and the trace itself against the executor's addresses.
#include <QtTest>
#include <set>

#include "kernellab/access_model.h"
#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/transpose.h"

using namespace kernellab;
using namespace kernellab::access;

class TstAccessModel : public QObject {
  Q_OBJECT

  static AccessQuery query(const char* variant, int tile = 32, int tpb = 256, int w = 2048,
                           int h = 2048, BlockCoord block = {0, 0}, int warp = 0, int cc = 9) {
    AccessQuery q;
    q.request.family = transpose::kFamily;
    q.request.section<TransposeProblem>().width = w;
    q.request.section<TransposeProblem>().height = h;
    q.request.section<TransposeProblem>().tile = tile;
    q.request.launch.threadsPerBlock = tpb;
    q.variant = variant;
    q.block = block;
    q.warp = warp;
    q.ccMajor = cc;
    return q;
  }
  static std::vector<const Request*> pick(const WarpReport& r, Space s, Kind k) {
    std::vector<const Request*> out;
    for (const auto& q : r.requests)
      if (q.space == s && q.kind == k) out.push_back(&q);
    return out;
  }

 private slots:
  void naiveWritesAreStrided() {
    // Each warp store writes one float in each of 32 rows of the output: 32 sectors (and lines)
    // for 128 useful bytes, efficiency 1/8. The reads are coalesced.
    const WarpReport r = analyze(query("naive"));
    const auto stores = pick(r, Space::Global, Kind::Store);
    const auto loads = pick(r, Space::Global, Kind::Load);
    QCOMPARE(stores.size(), size_t(4));  // 32 rows / 8 rows of threads
    for (const Request* q : stores) {
      QCOMPARE(int(q->lanes.size()), 32);
      QCOMPARE(q->sectors, 32);
      QCOMPARE(q->idealSectors, 4);
      QCOMPARE(q->lines, 32);
      QCOMPARE(q->efficiency, 0.125);
      QCOMPARE(int64_t(q->lanes[1].address - q->lanes[0].address), int64_t(2048 * 4));
    }
    for (const Request* q : loads) {
      QCOMPARE(q->sectors, 4);
      QCOMPARE(q->lines, 1);
      QCOMPARE(q->efficiency, 1.0);
    }
    QVERIFY(pick(r, Space::Shared, Kind::Load).empty());
  }

  void copyIsIdeal() {
    // 32 consecutive floats: 128 bytes in 4 sectors of one line, loads and stores alike.
    const WarpReport r = analyze(query("copy"));
    QCOMPARE(r.warpTotals.globalRequests, 8);
    for (const auto& q : r.requests) {
      QCOMPARE(q.sectors, 4);
      QCOMPARE(q.idealSectors, 4);
      QCOMPARE(q.lines, 1);
      QCOMPARE(q.usefulBytes, 128);
    }
    QCOMPARE(r.blockTotals.efficiency, 1.0);
  }

  void tiledColumnReadIs32WayConflict() {
    const WarpReport r = analyze(query("tiled"));
    const auto reads = pick(r, Space::Shared, Kind::Load);
    const auto writes = pick(r, Space::Shared, Kind::Store);
    QCOMPARE(reads.size(), size_t(4));
    for (const Request* q : reads) {
      QCOMPARE(q->conflictDegree, 32);
      QCOMPARE(q->wavefronts, 32);
      for (const auto& l : q->lanes) QCOMPARE(l.bank, q->lanes[0].bank);  // one bank
    }
    for (const Request* q : writes) QCOMPARE(q->conflictDegree, 1);  // row store: 32 banks
    // Both global sides are coalesced in the tiled kernel.
    for (const auto& q : r.requests)
      if (q.space == Space::Global) QCOMPARE(q.sectors, 4);
    QCOMPARE(r.warpTotals.maxConflict, 32);
  }

  void paddedHasNoConflicts() {
    const WarpReport r = analyze(query("padded"));
    for (const auto& q : r.requests)
      if (q.space == Space::Shared) {
        QCOMPARE(q.conflictDegree, 1);
        std::set<int> banks;
        for (const auto& l : q.lanes) banks.insert(l.bank);
        QCOMPARE(banks.size(), size_t(32));
      }
    QCOMPARE(r.blockTotals.wavefronts, r.blockTotals.idealWavefronts);
    // The diagonal kernel is the padded one with another tile: same per-warp costs.
    const WarpReport d = analyze(query("diagonal", 32, 256, 2048, 2048, {3, 1}));
    QCOMPARE(d.blockTotals.maxConflict, 1);
    QCOMPARE(d.blockTotals.sectors, r.blockTotals.sectors);
  }

  void computeCapability1HasHalfWarpBanks() {
    // Seed 000: 16 banks per half-warp. A 16x16 tile read by column: each half-warp's 16 lanes
    // hit one bank (16-way); the 16x17 padded tile is conflict-free.
    const WarpReport t = analyze(query("tiled", 16, 256, 1024, 1024, {0, 0}, 0, 1));
    QCOMPARE(t.memory.banks, 16);
    for (const Request* q : pick(t, Space::Shared, Kind::Load)) {
      QCOMPARE(q->conflictDegree, 16);
      QCOMPARE(q->wavefronts, 32);  // two half-warps of 16 passes
    }
    const WarpReport p = analyze(query("padded", 16, 256, 1024, 1024, {0, 0}, 0, 1));
    for (const Request* q : pick(p, Space::Shared, Kind::Load)) {
      QCOMPARE(q->conflictDegree, 1);
      QCOMPARE(q->wavefronts, 2);
    }
    // On 32 banks the same 16x16 tile is an 8-way conflict (two rows of 16 lanes per warp).
    const WarpReport t32 = analyze(query("tiled", 16, 256, 1024, 1024));
    QCOMPARE(pick(t32, Space::Shared, Kind::Load).front()->conflictDegree, 8);
  }

  void traceMatchesTheExecutor() {
    // The trace is the phase functions' own addresses: over a whole block, every element of the
    // input tile is loaded once and every element of its output tile stored once.
    for (const char* v : {"naive", "tiled", "padded", "diagonal", "copy"}) {
      const AccessQuery q = query(v, 32, 128, 100, 70, {2, 1});
      const BlockTrace t = traceBlock(q);
      std::set<int64_t> loads, stores;
      for (const auto& a : t.recorder.accesses()) {
        if (a.space != Space::Global) continue;
        (a.kind == Kind::Load ? loads : stores).insert(a.element);
      }
      const auto g = transpose::makeGeometry(q.request, *transpose::variantFromString(v));
      const BlockCoord tile = transpose::tileFor(*transpose::variantFromString(v), 2, 1, g.gridX, g.gridY);
      std::set<int64_t> expectIn, expectOut;
      for (int64_t y = tile.y * 32; y < std::min<int64_t>(70, tile.y * 32 + 32); ++y)
        for (int64_t x = tile.x * 32; x < std::min<int64_t>(100, tile.x * 32 + 32); ++x) {
          expectIn.insert(y * 100 + x);
          expectOut.insert(std::string(v) == "copy" ? y * 100 + x : x * 70 + y);
        }
      QVERIFY2(loads == expectIn, v);
      QVERIFY2(stores == expectOut, v);
    }
  }

  void partialTilesLeaveLanesInactive() {
    // A 40x40 matrix: block (1,1) holds an 8x8 corner; its warp 0 has 8 active lanes.
    const WarpReport r = analyze(query("copy", 32, 256, 40, 40, {1, 1}));
    QVERIFY(!r.requests.empty());
    for (const auto& q : r.requests) QCOMPARE(int(q.lanes.size()), 8);
    QCOMPARE(r.requests.front().lanes.front().element, int64_t(32 * 40 + 32));
  }

  // Issue 18's lens: an odd size puts every plain-tile row piece off the sector grid (5 sectors for
  // 128 bytes); the aligned stripe's body stores are whole sectors; the narrow strategy's 16-byte
  // stores cover 512 contiguous bytes per warp.
  void oddSizesAndNarrowStrategiesInSectors() {
    // Warp 1 writes output rows 33, 41, ... (warp 0's rows 32, 40, ... happen to start on a
    // sector).
    const WarpReport tile = analyze(query("padded", 32, 256, 8191, 8193, {1, 1}, 1));
    int offGrid = 0;
    for (const Request* q : pick(tile, Space::Global, Kind::Store)) offGrid += q->sectors == 5;
    QVERIFY(offGrid > 0);
    // Block (2, 1) of the stripe's launch order (one column of blocks at a time) is tile (1, 1):
    // a body tile, below the first stripe row's peeled head.
    const WarpReport aligned = analyze(query("best", 32, 256, 8191, 8193, {2, 1}, 1));
    QVERIFY(aligned.description.find("aligned-stripe") != std::string::npos);
    for (const Request* q : pick(aligned, Space::Global, Kind::Store)) {
      QCOMPARE(q->sectors, q->idealSectors);  // whole sectors in the body
      QCOMPARE(q->efficiency, 1.0);
    }
    const WarpReport narrow = analyze(query("best", 32, 256, 3, 100000));
    const auto stores = pick(narrow, Space::Global, Kind::Store);
    QCOMPARE(stores.size(), size_t(3));  // one 16-byte store per dimension
    for (const Request* q : stores) {
      QCOMPARE(q->sectors, 16);  // 32 lanes x 16 bytes
      QCOMPARE(q->efficiency, 1.0);
    }
  }

  // Bulk rows (200 x 1000, block 15: the partial last group of 40 rows): the trace moves exactly
  // the group's rows, the writer warps store whole 128-byte output pieces from an 8-way conflicted
  // stage column; a cc 8.0 device has no bulk copy and gets the 40-wide tile.
  void bulkRowsIsTraced() {
    qputenv("KERNELLAB_TRANSPOSE_STRATEGY", "bulk-rows");  // the rule's too: forced to be sure
    const AccessQuery q = query("best", 32, 256, 200, 1000, {15, 0});
    const BlockTrace t = traceBlock(q);
    QVERIFY(t.description.find("bulk-rows") != std::string::npos);
    QCOMPARE(t.kernel, std::string("transposeBulkRowsKernel"));  // the strategy's own kernel
    QCOMPARE(t.blockDim.x * t.blockDim.y, 288);
    std::set<int64_t> loads, stores;
    for (const auto& a : t.recorder.accesses()) {
      if (a.space != Space::Global) continue;
      (a.kind == Kind::Load ? loads : stores).insert(a.element);
    }
    std::set<int64_t> expectIn, expectOut;
    for (int64_t y = 960; y < 1000; ++y)
      for (int64_t x = 0; x < 200; ++x) {
        expectIn.insert(y * 200 + x);
        expectOut.insert(x * 1000 + y);
      }
    QVERIFY(loads == expectIn);
    QVERIFY(stores == expectOut);

    const WarpReport full = analyze(query("best", 32, 256, 200, 1024, {3, 0}, 2));
    const auto warpStores = pick(full, Space::Global, Kind::Store);
    QCOMPARE(warpStores.size(), size_t(50));  // 400 tasks over 8 warps
    for (const Request* r : warpStores) {
      QCOMPARE(int(r->lanes.size()), 32);
      QCOMPARE(r->sectors, 4);
      QCOMPARE(r->efficiency, 1.0);
    }
    for (const Request* r : pick(full, Space::Shared, Kind::Load)) QCOMPARE(r->conflictDegree, 8);
    const WarpReport copier = analyze(query("best", 32, 256, 200, 1024, {3, 0}, 8));
    QVERIFY(pick(copier, Space::Global, Kind::Store).empty());  // warp 8 only issues the copy

    QVERIFY_THROWS_EXCEPTION(InputError, analyze(query("best", 32, 256, 200, 1000, {0, 0}, 0, 8)));
    qunsetenv("KERNELLAB_TRANSPOSE_STRATEGY");
    // Unforced, every device gets the 40-wide tile at this shape.
    const WarpReport older = analyze(query("best", 32, 256, 200, 1000, {0, 0}, 0, 8));
    QVERIFY(older.description.find("tile-40") != std::string::npos);
  }

  void badQueriesAreInputErrors() {
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(query("naive", 32, 256, 2048, 2048, {0, 0}, 8)));
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(query("naive", 32, 256, 2048, 2048, {64, 0})));
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(query("fastest")));
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(query("naive", 8)));
    AccessQuery k = query("best");  // the GPU-only engine has no tracer
    k.request.family = clustering::kKMeans;
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(k));
    AccessQuery kernel = query("naive");
    kernel.kernel = "assign";  // transpose variants are one kernel each
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(kernel));
  }
};

QTEST_APPLESS_MAIN(TstAccessModel)
#include "tst_access_model.moc"
