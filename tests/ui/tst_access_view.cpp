// SPDX-License-Identifier: MIT
// AccessView: its table and diagram show the model's sectors and banks for the chosen variant,
// block and warp; a bad selection is refused with a message and the last report stays. The
// clustering and KNN families come with their kernels and traced variants only.
#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

#include "access_diagram.h"
#include "access_view.h"
#include "kernellab/clustering_request.h"
#include "kernellab/knn.h"
#include "kernellab/transpose.h"

using namespace kernellab;
using namespace kernellab::widgets;

class TstAccessView : public QObject {
  Q_OBJECT

  static RunRequest transpose2048() {
    RunRequest r;
    r.family = transpose::kFamily;
    r.section<TransposeProblem>().width = 2048;
    r.section<TransposeProblem>().height = 2048;
    r.section<TransposeProblem>().tile = 32;
    r.launch.threadsPerBlock = 256;
    return r;
  }
  static RunRequest kmeans16() {
    RunRequest r;
    r.family = clustering::kKMeans;
    r.section<ClusteringProblem>().n = 100000;
    r.section<ClusteringProblem>().k = 16;
    r.section<ClusteringProblem>().d = 16;
    r.launch.threadsPerBlock = 256;
    return r;
  }
  static int rowOf(const AccessView& v, const char* buffer, access::Kind k) {
    for (int i = 0; i < int(v.report().requests.size()); ++i)
      if (v.report().requests[size_t(i)].bufferName == buffer &&
          v.report().requests[size_t(i)].kind == k)
        return i;
    return -1;
  }
  static QStringList variantIds(const AccessView& v) {
    for (auto* box : v.findChildren<QComboBox*>()) {
      QStringList ids;
      for (int i = 0; i < box->count(); ++i) ids << box->itemData(i).toString();
      if (ids.contains("shared-coalesced") || ids.contains("naive") || ids.contains("global"))
        return ids;
    }
    return {};
  }
  static int firstRow(const AccessView& v, access::Space s, access::Kind k) {
    for (int i = 0; i < int(v.report().requests.size()); ++i)
      if (v.report().requests[size_t(i)].space == s && v.report().requests[size_t(i)].kind == k) return i;
    return -1;
  }

 private slots:
  void naiveStoresShowStridedSectors() {
    AccessView v;
    v.resize(1100, 800);
    v.setRequest(transpose2048());
    QVERIFY(v.waitForReport());
    v.setSelection("naive", {0, 0}, 0);
    QVERIFY(v.waitForReport());
    QCOMPARE(v.variant(), QString("naive"));
    QCOMPARE(v.requestTable()->rowCount(), 8);
    const int store = firstRow(v, access::Space::Global, access::Kind::Store);
    QCOMPARE(v.requestTable()->item(store, 5)->text(), QString("32 (4)"));
    QCOMPARE(v.requestTable()->item(store, 7)->text(), QString("12.5 %"));
    v.selectRequest(store);
    QCOMPARE(v.diagram()->lineCount(), 32);
    const QVector<int> used = v.diagram()->sectorUsedBytes();
    QCOMPARE(used.size(), 32);
    for (int b : used) QCOMPARE(b, 4);
    QVERIFY(v.summaryText().contains("sectors"));
  }

  void tiledColumnReadFillsOneBank() {
    AccessView v;
    v.setRequest(transpose2048());
    QVERIFY(v.waitForReport());
    v.setSelection("tiled", {1, 1}, 2);
    QVERIFY(v.waitForReport());
    const int read = firstRow(v, access::Space::Shared, access::Kind::Load);
    QVERIFY(read >= 0);
    QVERIFY(v.requestTable()->item(read, 8)->text().contains("32-way"));
    v.selectRequest(read);
    const QVector<int> h = v.diagram()->bankHeights();
    QCOMPARE(h.size(), 32);
    int full = 0;
    for (int x : h) {
      QVERIFY(x == 0 || x == 32);
      full += x == 32;
    }
    QCOMPARE(full, 1);
    v.setSelection("padded", {1, 1}, 2);
    QVERIFY(v.waitForReport());
    v.selectRequest(firstRow(v, access::Space::Shared, access::Kind::Load));
    for (int x : v.diagram()->bankHeights()) QCOMPARE(x, 1);
  }

  void halfWarpBankModel() {
    AccessView v;
    RunRequest r = transpose2048();
    r.section<TransposeProblem>().tile = 16;
    v.setRequest(r);
    QVERIFY(v.waitForReport());
    v.setSelection("tiled", {0, 0}, 0);
    QVERIFY(v.waitForReport());
    v.setComputeCapability(1);
    QVERIFY(v.waitForReport());
    QCOMPARE(v.report().memory.banks, 16);
    v.selectRequest(firstRow(v, access::Space::Shared, access::Kind::Load));
    QCOMPARE(v.diagram()->bankHeights().size(), 16);
    QVERIFY(v.requestTable()->item(firstRow(v, access::Space::Shared, access::Kind::Load), 8)->text().contains("16-way"));
  }

  void clusteringLayoutsAndStagedCentroid() {
    // k-means assign, D = 16: interleaved point reads take 32 sectors for 4 useful ones, the
    // coalesced layout 4; the staged centroid is one shared word read by all lanes.
    AccessView v;
    v.resize(1100, 800);
    v.setRequest(kmeans16());
    QVERIFY(v.waitForReport());
    QCOMPARE(v.kernel(), QString("assign"));
    v.setSelection("shared-interleaved", {2, 0}, 1);
    QVERIFY(v.waitForReport());
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.report().kernel, std::string("assignToClustersKernel"));
    const int points = rowOf(v, "points", access::Kind::Load);
    QVERIFY(points >= 0);
    QCOMPARE(v.requestTable()->item(points, 5)->text(), QString("32 (4)"));
    QCOMPARE(v.requestTable()->item(points, 7)->text(), QString("12.5 %"));
    v.selectRequest(points);
    QCOMPARE(v.diagram()->lineCount(), 16);  // 64-byte stride: two points per line
    QCOMPARE(v.diagram()->sectorUsedBytes().size(), 32);
    for (int b : v.diagram()->sectorUsedBytes()) QCOMPARE(b, 4);
    const int stage = rowOf(v, "stage", access::Kind::Load);
    QVERIFY(stage >= 0);
    QVERIFY(v.requestTable()->item(stage, 8)->text().contains("conflict-free"));
    v.selectRequest(stage);
    int used = 0;
    for (int h : v.diagram()->bankHeights()) {
      QVERIFY(h <= 1);
      used += h;
    }
    QCOMPARE(used, 1);  // a broadcast: one word of one bank
    v.setSelection("shared-coalesced", {2, 0}, 1);
    QVERIFY(v.waitForReport());
    const int coalesced = rowOf(v, "points", access::Kind::Load);
    QCOMPARE(v.requestTable()->item(coalesced, 5)->text(), QString("4 (4)"));
    QCOMPARE(v.requestTable()->item(coalesced, 7)->text(), QString("100.0 %"));
    QVERIFY(v.summaryText().contains("sectors"));
  }

  void familyAndKernelChoosers() {
    AccessView v;
    v.setRequest(transpose2048());
    QVERIFY(v.waitForReport());
    v.setSelection("padded", {1, 1}, 2);
    QVERIFY(v.waitForReport());
    QVERIFY(v.kernel().isEmpty());  // a transpose variant is one kernel
    QSignalSpy family(&v, &AccessView::familyChanged);
    QSignalSpy kernel(&v, &AccessView::kernelChanged);
    RunRequest small = transpose2048();  // k-centers takes its sizes from the same request
    small.section<ClusteringProblem>().n = 5000;
    small.section<ClusteringProblem>().k = 4;
    v.setRequest(small);
    QVERIFY(v.waitForReport());
    v.setFamily(clustering::kKCenters);
    QVERIFY(v.waitForReport());
    QCOMPARE(family.count(), 1);
    QCOMPARE(family.front().front().toString(), QString("kcenters"));
    QCOMPARE(v.block(), QPoint(0, 0));  // another grid: its first block
    // The GPU-only engine has no tracer, so it is not offered.
    const QStringList ids = variantIds(v);
    QVERIFY(ids.contains("global-interleaved"));
    QVERIFY(!ids.contains("best"));
    QCOMPARE(v.kernel(), QString("distance"));
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.report().kernel, std::string("kcentersDistanceKernel"));
    QCOMPARE(v.report().gridDim.x, 20);  // ceil(5000 / 256)
    v.setKernel("select");
    QVERIFY(v.waitForReport());
    QCOMPARE(kernel.count(), 1);
    QCOMPARE(v.report().kernel, std::string("kcentersSelectKernel"));
    QCOMPARE(v.report().gridDim.x, 1);
    // KNN: one kernel per variant, no kernel chooser.
    RunRequest knn;
    knn.family = knn::kFamily;
    knn.section<KnnProblem>().rows = 40;
    knn.section<KnnProblem>().cols = 64;
    knn.section<KnnProblem>().window = 4;
    knn.launch.threadsPerBlock = 64;
    v.setRequest(knn);
    QVERIFY(v.waitForReport());
    QVERIFY(v.kernel().isEmpty());
    v.setSelection("shared-row", {0, 12}, 1);
    QVERIFY(v.waitForReport());
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.report().kernel, std::string("knnSharedRowKernel"));
    QCOMPARE(v.report().blockTotals.maxConflict, 1);
  }

  void badSelectionKeepsTheLastReport() {
    AccessView v;
    v.setRequest(transpose2048());
    QVERIFY(v.waitForReport());
    v.setSelection("copy", {0, 0}, 1);
    QVERIFY(v.waitForReport());
    QVERIFY(v.errorText().isEmpty());
    const int rows = v.requestTable()->rowCount();
    v.setSelection("copy", {0, 0}, 12);  // 8 warps per block
    QVERIFY(v.waitForReport());
    QVERIFY(v.errorText().contains("--warp 12 is outside 0..7"));
    QCOMPARE(v.report().warp, 1);
    QCOMPARE(v.requestTable()->rowCount(), rows);
  }

  void aLargeTraceLeavesTheWindowResponsive() {
    // k-centers at N = 300,000, D = 64: the lens makes the points first (about 77 MB), which
    // takes long enough to see. The GUI thread keeps turning meanwhile, and of the selections
    // made while it computes only the last one is shown.
    AccessView v;
    RunRequest r;
    r.family = clustering::kKCenters;
    r.section<ClusteringProblem>().n = 300000;
    r.section<ClusteringProblem>().k = 8;
    r.section<ClusteringProblem>().d = 64;
    r.launch.threadsPerBlock = 256;
    int ticks = 0;
    QTimer timer;
    QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(5);
    QSignalSpy ready(&v, &AccessView::reportReady);
    v.setRequest(r);
    QVERIFY(v.busy());
    v.setSelection("global-coalesced", {3, 0}, 2);
    v.setSelection("shared-interleaved", {5, 0}, 4);
    QVERIFY(v.waitForReport());
    QCOMPARE(ready.count(), 1);  // the stale first selection was never shown
    QVERIFY(!v.busy());
    QVERIFY2(v.errorText().isEmpty(), qPrintable(v.errorText()));
    QCOMPARE(v.report().variant, std::string("shared-interleaved"));
    QCOMPARE(v.report().block.x, 5);
    QCOMPARE(v.report().warp, 4);
    QVERIFY2(ticks >= 2, qPrintable(QStringLiteral("the GUI timer ticked %1 times").arg(ticks)));
  }
};

QTEST_MAIN(TstAccessView)
#include "tst_access_view.moc"
