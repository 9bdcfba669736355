// SPDX-License-Identifier: MIT
// AccessView: its table and diagram show the model's sectors and banks for the chosen variant,
// block and warp; a bad selection is refused with a message and the last report stays.
#include <QTableWidget>
#include <QtTest>

#include "access_diagram.h"
#include "access_view.h"

using namespace kernellab;
using namespace kernellab::widgets;

class TstAccessView : public QObject {
  Q_OBJECT

  static RunRequest transpose2048() {
    RunRequest r;
    r.family = Family::Transpose;
    r.transpose.width = 2048;
    r.transpose.height = 2048;
    r.launch.tile = 32;
    r.launch.threadsPerBlock = 256;
    return r;
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
    v.setSelection("naive", {0, 0}, 0);
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
    v.setSelection("tiled", {1, 1}, 2);
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
    v.selectRequest(firstRow(v, access::Space::Shared, access::Kind::Load));
    for (int x : v.diagram()->bankHeights()) QCOMPARE(x, 1);
  }

  void halfWarpBankModel() {
    AccessView v;
    RunRequest r = transpose2048();
    r.launch.tile = 16;
    v.setRequest(r);
    v.setSelection("tiled", {0, 0}, 0);
    v.setComputeCapability(1);
    QCOMPARE(v.report().memory.banks, 16);
    v.selectRequest(firstRow(v, access::Space::Shared, access::Kind::Load));
    QCOMPARE(v.diagram()->bankHeights().size(), 16);
    QVERIFY(v.requestTable()->item(firstRow(v, access::Space::Shared, access::Kind::Load), 8)->text().contains("16-way"));
  }

  void badSelectionKeepsTheLastReport() {
    AccessView v;
    v.setRequest(transpose2048());
    v.setSelection("copy", {0, 0}, 1);
    QVERIFY(v.errorText().isEmpty());
    const int rows = v.requestTable()->rowCount();
    v.setSelection("copy", {0, 0}, 12);  // 8 warps per block
    QVERIFY(v.errorText().contains("--warp 12 is outside 0..7"));
    QCOMPARE(v.report().warp, 1);
    QCOMPARE(v.requestTable()->rowCount(), rows);
  }
};

QTEST_MAIN(TstAccessView)
#include "tst_access_view.moc"
