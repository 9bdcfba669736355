// SPDX-License-Identifier: MIT
// Access-pattern model on the clustering and KNN kernels' own block programs: coalesced point
// reads are 4 sectors per 128-byte request, interleaved reads 32 sectors from D = 8 on (1/8 of
// each sector used), the staged centroid is a shared-memory broadcast, the global-scratch
// variants move their reductions to global memory, the centroid update reads only its cluster's
// points; KNN reads its window coalesced from global memory or once per block into shared memory,
// where a full row is a broadcast. Bad queries are InputErrors.
#include <QtTest>
#include <algorithm>
#include <map>
#include <set>

#include "kernellab/access_model.h"
#include "kernellab/clustering_request.h"
#include "kernellab/errors.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"

using namespace kernellab;
using namespace kernellab::access;

class TstAccessFamilies : public QObject {
  Q_OBJECT

  static AccessQuery clustering(Family f, const char* variant, const char* kernel, int d,
                                int block = 0, int warp = 0, int64_t n = 100000, int k = 16,
                                int tpb = 256) {
    AccessQuery q;
    q.request.family = f;
    q.request.section<ClusteringProblem>().n = n;
    q.request.section<ClusteringProblem>().k = k;
    q.request.section<ClusteringProblem>().d = d;
    q.request.launch.threadsPerBlock = tpb;
    q.variant = variant;
    q.kernel = kernel;
    q.block = {block, 0};
    q.warp = warp;
    return q;
  }
  static AccessQuery knnQuery(const char* variant, BlockCoord block, int warp = 0) {
    AccessQuery q;
    q.request.family = knn::kFamily;
    q.request.section<KnnProblem>().rows = 60;
    q.request.section<KnnProblem>().cols = 100;
    q.request.section<KnnProblem>().components = 2;
    q.request.section<KnnProblem>().window = 6;
    q.request.section<KnnProblem>().k = 8;
    q.request.section<KnnProblem>().blockX = 64;
    q.request.section<KnnProblem>().blockY = 2;
    q.request.launch.threadsPerBlock = 128;
    q.variant = variant;
    q.block = block;
    q.warp = warp;
    return q;
  }
  static std::vector<const Request*> pick(const WarpReport& r, const char* buffer,
                                          Kind kind = Kind::Load) {
    std::vector<const Request*> out;
    for (const auto& q : r.requests)
      if (q.bufferName == buffer && q.kind == kind) out.push_back(&q);
    return out;
  }
  static int imageSectors(const WarpReport& r) {
    int n = 0;
    for (const auto& q : r.requests)
      if (q.bufferName == "image") n += q.sectors;
    return n;
  }
  static int banksUsed(const Request& q) {
    int used = 0;
    for (int w : q.bankWords) used += w > 0;
    return used;
  }

 private slots:
  void coalescedPointReadsAreFourSectors() {
    // X[d*N+i]: a warp's 32 points are 32 consecutive floats of one dimension. N = 100000 keeps
    // every dimension's row 128-byte aligned: 4 sectors of one line, efficiency 1.
    const WarpReport r =
        analyze(clustering(clustering::kKMeans, "shared-coalesced", "assign", 16, 3, 2));
    QCOMPARE(r.kernel, std::string("assignToClustersKernel"));
    const auto points = pick(r, "points");
    QCOMPARE(int(points.size()), 16 * 16);  // K centroids x D dimensions
    for (const Request* q : points) {
      QCOMPARE(int(q->lanes.size()), 32);
      QCOMPARE(q->sectors, 4);
      QCOMPARE(q->idealSectors, 4);
      QCOMPARE(q->lines, 1);
      QCOMPARE(q->efficiency, 1.0);
      QCOMPARE(int64_t(q->lanes[1].address - q->lanes[0].address), int64_t(4));
    }
    // The first read is dimension 0 of the warp's first point: block 3, warp 2.
    QCOMPARE(points.front()->lanes.front().element, int64_t(3 * 256 + 64));
    const auto labels = pick(r, "labels", Kind::Store);
    QCOMPARE(int(labels.size()), 1);
    QCOMPARE(labels.front()->sectors, 4);
  }

  void interleavedReadsAreThirtyTwoSectors_data() {
    QTest::addColumn<int>("d");
    QTest::addColumn<int>("sectors");
    QTest::newRow("D=8") << 8 << 32;
    QTest::newRow("D=16") << 16 << 32;
    QTest::newRow("D=3") << 3 << 12;  // 12-byte stride: 384 bytes, 12 sectors
  }
  void interleavedReadsAreThirtyTwoSectors() {
    // X[i*D+d]: the warp's 32 floats are D * 4 bytes apart, one per sector from D = 8 on.
    QFETCH(int, d);
    QFETCH(int, sectors);
    const WarpReport r =
        analyze(clustering(clustering::kKMeans, "shared-interleaved", "assign", d, 1));
    const auto points = pick(r, "points");
    QCOMPARE(int(points.size()), 16 * d);
    for (const Request* q : points) {
      QCOMPARE(int(q->lanes.size()), 32);
      QCOMPARE(q->sectors, sectors);
      QCOMPARE(q->idealSectors, 4);
      QCOMPARE(q->usefulBytes, 128);
      QCOMPARE(q->efficiency, 128.0 / (32.0 * sectors));
      QCOMPARE(int64_t(q->lanes[1].address - q->lanes[0].address), int64_t(4 * d));
    }
    if (d >= 8) QCOMPARE(r.warpTotals.efficiency < 0.2, true);
  }

  void stagedCentroidIsABroadcast() {
    // The shared variants stage each centroid: every lane reads the same word of the stage, one
    // bank, one pass (a broadcast, no conflict); the first D threads write it once.
    const WarpReport r = analyze(clustering(clustering::kKMeans, "shared-coalesced", "assign", 16));
    const auto reads = pick(r, "stage");
    QCOMPARE(int(reads.size()), 16 * 16);
    for (const Request* q : reads) {
      QCOMPARE(q->space, Space::Shared);
      QCOMPARE(int(q->lanes.size()), 32);
      QCOMPARE(banksUsed(*q), 1);
      QCOMPARE(q->conflictDegree, 1);
      QCOMPARE(q->wavefronts, 1);
      for (const auto& l : q->lanes) QCOMPARE(l.element, q->lanes[0].element);
    }
    const auto writes = pick(r, "stage", Kind::Store);
    QCOMPARE(int(writes.size()), 16);  // one per centroid
    for (const Request* q : writes) {
      QCOMPARE(int(q->lanes.size()), 16);  // t < D
      QCOMPARE(q->conflictDegree, 1);
    }
    // The centroid itself comes from global memory once per block (16 floats of a row).
    for (const Request* q : pick(r, "centroids")) QCOMPARE(int(q->lanes.size()), 16);
    QCOMPARE(r.blockTotals.maxConflict, 1);
  }

  void globalVariantReadsTheCentroidFromGlobal() {
    // No stage: every lane reads centroid[c][q] itself, the same address: one sector per request.
    const WarpReport r = analyze(clustering(clustering::kKMeans, "global-coalesced", "assign", 16));
    QVERIFY(pick(r, "stage").empty());
    QCOMPARE(r.warpTotals.sharedRequests, 0);
    const auto centroids = pick(r, "centroids");
    QCOMPARE(int(centroids.size()), 16 * 16);
    for (const Request* q : centroids) {
      QCOMPARE(int(q->lanes.size()), 32);
      QCOMPARE(q->sectors, 1);
      QCOMPARE(q->usefulBytes, 4);
    }
  }

  void centroidUpdateReadsOnlyItsCluster() {
    // calcCentroidsKernel, block c: each loop iteration reads 32 consecutive labels (coalesced)
    // and then the points of the lanes whose label is c: a partly active request of the same
    // iteration. Blobs are shuffled, so labels are mixed within a warp.
    AccessQuery q =
        clustering(clustering::kKMeans, "shared-coalesced", "centroids", 4, 2, 1, 20000, 5);
    q.request.section<ClusteringProblem>().shape = DatasetShape::Blobs;
    const WarpReport r = analyze(q);
    QCOMPARE(r.gridDim.x, 5);
    const auto labels = pick(r, "labels");
    // Warp 1 is threads 32..63: points t + n * 256 < 20000 for n < 78, per dimension.
    QCOMPARE(int(labels.size()), 4 * 78);
    for (const Request* l : labels) QCOMPARE(l->sectors, 4);
    const auto points = pick(r, "points");
    QVERIFY(!points.empty());
    int partial = 0;
    for (const Request* p : points) {
      QVERIFY(p->lanes.size() <= 32);
      partial += p->lanes.size() < 32 ? 1 : 0;
      // Every lane of a request is at one loop iteration: point i = warp's first + lane + n*256.
      const int64_t n = 20000;
      const int64_t base = p->lanes[0].element % n - p->lanes[0].lane;
      for (const auto& l : p->lanes) {
        QCOMPARE(l.element % n - l.lane, base);
        QVERIFY(l.element / n < 4);
      }
    }
    QVERIFY(partial > 0);
    // The sum reduction: double scratch in shared memory, 2 passes for 32 doubles, no conflict.
    const auto sums = pick(r, "scratchD", Kind::Store);
    QVERIFY(!sums.empty());
    QCOMPARE(sums.front()->space, Space::Shared);
    QCOMPARE(int(sums.front()->lanes.size()), 32);
    QCOMPARE(sums.front()->wavefronts, 2);
    QCOMPARE(sums.front()->idealWavefronts, 2);
    QCOMPARE(sums.front()->conflictDegree, 1);
  }

  void globalScratchIsGlobalMemory() {
    // The global-scratch variant keeps the same reduction in the block's slice of global memory:
    // 32 consecutive doubles are 256 bytes, 8 sectors.
    const WarpReport r =
        analyze(clustering(clustering::kKMeans, "global-coalesced", "score", 3, 4, 0, 20000, 5));
    const auto sums = pick(r, "scratchD", Kind::Store);
    QVERIFY(!sums.empty());
    QCOMPARE(sums.front()->space, Space::Global);
    QCOMPARE(sums.front()->sectors, 8);
    QCOMPARE(sums.front()->lanes.front().element, int64_t(4 * 256));  // block 4's slice
    QCOMPARE(r.warpTotals.sharedRequests, 0);
    for (const auto& q : r.requests) QCOMPARE(q.space, Space::Global);
  }

  void kcentersDistanceAndSelect() {
    // The second center's distance launch: the center (one point) staged in shared memory and
    // read by every lane at once, then each point's distance compared with the stored one.
    const WarpReport r = analyze(
        clustering(clustering::kKCenters, "shared-interleaved", "distance", 16, 2, 3, 5000, 4));
    QCOMPARE(r.kernel, std::string("kcentersDistanceKernel"));
    for (const Request* q : pick(r, "stage")) {
      QCOMPARE(banksUsed(*q), 1);
      QCOMPARE(q->conflictDegree, 1);
    }
    for (const Request* q : pick(r, "points"))
      if (q->lanes.size() == 32) QCOMPARE(q->sectors, 32);
    // Every lane reads the center's index (block-uniform code: the same word for all).
    const auto index = pick(r, "centerIndex");
    QCOMPARE(int(index.size()), 1);
    QCOMPARE(int(index.front()->lanes.size()), 32);
    QCOMPARE(index.front()->lanes.front().element, int64_t(1));
    QVERIFY(!pick(r, "distances").empty());
    QCOMPARE(pick(r, "distances").front()->sectors, 4);
    // The max-reduction in shared memory: the first step reads slots t + 128, conflict-free.
    const auto fold = pick(r, "scratchF");
    QVERIFY(!fold.empty());
    QCOMPARE(fold.front()->conflictDegree, 1);

    const WarpReport s =
        analyze(clustering(clustering::kKCenters, "global-coalesced", "select", 16, 0, 0, 5000, 4));
    QCOMPARE(s.gridDim.x, 1);
    const auto cands = pick(s, "candidateValue");
    QVERIFY(!cands.empty());
    QCOMPARE(int(cands.front()->lanes.size()), 20);  // ceil(5000 / 256) = 20 distance blocks
  }

  void knnGlobalReadsAreCoalescedWindows() {
    // knnGlobalKernel, interior block: at each step lane i reads candidate lo_i + n, and the
    // windows of neighbouring pixels start at neighbouring pixels: 32 consecutive floats. The
    // step where each lane would read its own pixel is skipped by every lane.
    const WarpReport r = analyze(knnQuery("global", {0, 10}));
    const auto reads = pick(r, "image");
    QVERIFY(reads.size() > 1000);
    int fullCandidates = 0;
    for (const Request* q : reads) {
      if (q->lanes.size() != 32) continue;
      ++fullCandidates;
      QCOMPARE(int64_t(q->lanes[31].address - q->lanes[0].address), int64_t(31 * 4));
      QVERIFY(q->sectors <= 5);
      QVERIFY(q->lines <= 2);
    }
    // 2 features + (6 * 100) candidates x 2 components, all 32 lanes.
    QCOMPARE(int(reads.size()), 2 + 600 * 2);
    QCOMPARE(fullCandidates, int(reads.size()));
    // The output lists are pixel-major: k = 8 slots per pixel, so a warp's store is strided by
    // 32 bytes, one sector per lane (efficiency 1/8).
    for (const Request* q : pick(r, "neighbourIndex", Kind::Store)) {
      QCOMPARE(q->sectors, 32);
      QCOMPARE(q->efficiency, 0.125);
    }
  }

  void knnClampedWindowsBroadcast() {
    // Top rows: every pixel of the row has the same (slid) window, so the lanes read the same
    // candidate at each step; the lane whose own pixel it is sits that step out.
    const WarpReport r = analyze(knnQuery("global", {0, 0}));
    int partial = 0;
    for (const Request* q : pick(r, "image")) {
      std::set<int64_t> elements;
      for (const auto& l : q->lanes) elements.insert(l.element);
      if (q->seq >> 56 != 2) continue;  // candidates only
      QCOMPARE(int(elements.size()), 1);
      QCOMPARE(q->sectors, 1);
      if (q->lanes.size() == 31) {
        ++partial;
        const int64_t pixel = q->lanes.front().element % 6000;
        for (const auto& l : q->lanes) QVERIFY(l.thread != pixel);  // block (0,0): thread = pixel
      }
    }
    QCOMPARE(partial, 2 * 32);  // each lane's own pixel, both components
  }

  void knnSharedRowStagesOnceAndBroadcasts() {
    // knnSharedRowKernel: global memory is read only to stage rows (coalesced, each pixel once
    // per block), shared stores hit consecutive banks, and a row that lies wholly in every
    // lane's window is read by all lanes at once (a broadcast); partial rows at the window's
    // ends read consecutive words. No shared request has a bank conflict.
    const WarpReport row = analyze(knnQuery("shared-row", {0, 10}));
    const WarpReport global = analyze(knnQuery("global", {0, 10}));
    int broadcasts = 0;
    for (const auto& q : row.requests) {
      if (q.space == Space::Shared) {
        QCOMPARE(q.conflictDegree, 1);
        broadcasts += q.kind == Kind::Load && banksUsed(q) == 1 && q.lanes.size() == 32;
      } else if (q.bufferName == "image" && q.lanes.size() == 32) {
        QVERIFY(q.sectors <= 5);
      }
    }
    QVERIFY(broadcasts > 0);
    // Image sectors of the warp: the global variant re-reads every pixel's window, the shared-row
    // variant reads each staged pixel once per block.
    QVERIFY(imageSectors(global) > 20 * imageSectors(row));
    QCOMPARE(row.blockTotals.maxConflict, 1);
  }

  void knnSharedWindowStagesTheUnion() {
    const WarpReport r = analyze(knnQuery("shared-window", {1, 5}, 2));
    QCOMPARE(r.kernel, std::string("knnSharedWindowKernel"));
    for (const auto& q : r.requests)
      if (q.space == Space::Shared) QCOMPARE(q.conflictDegree, 1);
    QVERIFY(!pick(r, "shared", Kind::Store).empty());
    QCOMPARE(r.blockTotals.maxConflict, 1);
  }

  void bigBlocksAreTracedWarpByWarp() {
    // K = 50, D = 200: one block of assign makes 5 million accesses, more than one trace holds;
    // the block's program runs once per warp, each run recording one warp.
    const WarpReport r =
        analyze(clustering(clustering::kKMeans, "shared-coalesced", "assign", 200, 0, 3, 1000, 50));
    QVERIFY(r.perWarpTraces);
    const auto points = pick(r, "points");
    QCOMPARE(int(points.size()), 50 * 200);
    for (const Request* q : points) QCOMPARE(q->sectors, 4);
    // Every warp reads K x D point rows and stores its labels; threads 0..199 (warps 0..6) also
    // stage each centroid.
    QCOMPARE(r.blockTotals.globalRequests, 8 * (50 * 200 + 1) + 7 * 50);
    QCOMPARE(r.blockTotals.sharedRequests, 8 * 50 * 200 + 7 * 50);
  }

  void oneWarpTraceMatchesTheWholeBlock() {
    // Recording one warp's threads gives that warp the same requests as recording them all.
    std::vector<AccessQuery> queries = {
        clustering(clustering::kKMeans, "global-interleaved", "centroids", 3, 1, 1, 3000, 3),
        clustering(clustering::kKMeans, "shared-coalesced", "score", 5, 2, 1, 3000, 3),
        clustering(clustering::kKCenters, "shared-coalesced", "distance", 4, 5, 1, 3000, 3),
        clustering(clustering::kKCenters, "global-coalesced", "select", 4, 0, 1, 3000, 3),
        knnQuery("shared-row-rect", {1, 3}, 1),
        knnQuery("global", {0, 0}, 1)};
    AccessQuery transpose;
    transpose.request.family = transpose::kFamily;
    transpose.request.section<TransposeProblem>().width = 100;
    transpose.request.section<TransposeProblem>().height = 70;
    transpose.variant = "tiled";
    transpose.block = {1, 1};
    queries.push_back(transpose);
    const MemoryModel mm;
    for (const AccessQuery& q : queries) {
      const auto whole = warpRequests(traceBlock(q), 1, mm);
      const auto one = warpRequests(traceBlock(q, {32, 32}), 1, mm);
      QVERIFY2(!whole.empty(), q.variant.c_str());
      QCOMPARE(one.size(), whole.size());
      for (size_t i = 0; i < one.size(); ++i) {
        QCOMPARE(one[i].seq, whole[i].seq);
        QCOMPARE(one[i].lanes.size(), whole[i].lanes.size());
        for (size_t l = 0; l < one[i].lanes.size(); ++l)
          QCOMPARE(one[i].lanes[l].address, whole[i].lanes[l].address);
      }
    }
  }

  void tracedKernelsAndVariants() {
    QCOMPARE(int(tracedKernels(clustering::kKMeans).size()), 3);
    QCOMPARE(tracedKernels(clustering::kKMeans).front().id, std::string("assign"));
    QCOMPARE(int(tracedKernels(clustering::kKCenters).size()), 2);
    QVERIFY(tracedKernels(knn::kFamily).empty());
    QVERIFY(canTrace(clustering::kKMeans, "global-interleaved"));
    QVERIFY(!canTrace(clustering::kKMeans, "best"));
    QVERIFY(!canTrace(clustering::kKMeans, "cublas"));
    QVERIFY(canTrace(knn::kFamily, "shared-row-rect"));
    QVERIFY(canTrace(transpose::kFamily, "padded"));
  }

  void badQueriesAreInputErrors() {
    QVERIFY_THROWS_EXCEPTION(InputError,
                             analyze(clustering(clustering::kKMeans, "best", "assign", 3)));
    QVERIFY_THROWS_EXCEPTION(
        InputError, analyze(clustering(clustering::kKMeans, "shared-coalesced", "select", 3)));
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(clustering(clustering::kKMeans, "shared-coalesced",
                                                            "centroids", 3, 16)));
    QVERIFY_THROWS_EXCEPTION(
        InputError,
        analyze(clustering(clustering::kKCenters, "shared-coalesced", "distance", 3, 0, 8)));
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(clustering(clustering::kKMeans, "shared-coalesced",
                                                            "assign", 3, 0, 0, 100000, 16, 2000)));
    // One block of the centroid update reads all N labels per dimension: too long to trace.
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(clustering(clustering::kKMeans, "shared-coalesced",
                                                            "centroids", 200, 0, 0, 1000000, 100)));
    AccessQuery k = knnQuery("global", {2, 0});
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(k));  // 100 columns / 64 = 2 blocks across
    k = knnQuery("nearest", {0, 0});
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(k));
    k = knnQuery("global", {0, 0});
    k.kernel = "assign";
    QVERIFY_THROWS_EXCEPTION(InputError, analyze(k));
  }
};

QTEST_APPLESS_MAIN(TstAccessFamilies)
#include "tst_access_families.moc"
