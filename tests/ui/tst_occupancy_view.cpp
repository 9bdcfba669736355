// SPDX-License-Identifier: MIT
// OccupancyView: the limits table highlights the binding limit, the suggestion and charts follow
// the calculator, inputs stay within the architecture, and a CUDA run's kernels are compared.
#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>
#include <qcustomplot.h>

#include "occupancy_view.h"

using namespace kernellab;
using namespace kernellab::widgets;

class TstOccupancyView : public QObject {
  Q_OBJECT

  static bool highlighted(QTableWidget* t, int row) {
    return t->item(row, 0)->font().bold() && t->item(row, 0)->background().color() != QColor(Qt::white) &&
           t->item(row, 0)->background().style() != Qt::NoBrush;
  }

  static DeviceInfo h200() {
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
    return d;
  }

 private slots:
  void limitsTableShowsTheBindingLimit() {
    OccupancyView v;
    v.setArch("gt200");
    v.setInputs(256, 9, 0);
    QTableWidget* t = v.limitsTable();
    QCOMPARE(t->rowCount(), 4);
    QVERIFY(highlighted(t, 0));          // threads bind
    QVERIFY(!highlighted(t, 1));
    QVERIFY(!highlighted(t, 2));
    QCOMPARE(t->item(0, 1)->text(), QString("4"));
    QCOMPARE(t->item(2, 1)->text(), QString("6"));   // registers, 512-register units
    QCOMPARE(t->item(2, 2)->text(), QString("7"));   // the seed's plain division
    QCOMPARE(t->item(3, 1)->text(), QString("no limit"));
    QVERIFY(v.summaryText().startsWith("4 blocks per SM: 32 of 32 warps"));
    QVERIFY(v.suggestionText().contains("Full occupancy"));

    v.setArch("ampere");
    v.setInputs(1024, 64, 0);
    QVERIFY(highlighted(t, 2));
    QVERIFY(!highlighted(t, 0));
    QVERIFY(v.suggestionText().contains("64 -> 32"));
  }

  void chartsFollowTheCalculator() {
    OccupancyView v;
    v.setArch("hopper");
    v.setInputs(256, 32, 4224);
    QCPGraph* g = v.chart(OccupancyView::ByThreads)->graph(0);
    QCOMPARE(g->dataCount(), 1024 / 32);
    QCPGraph* marker = v.chart(OccupancyView::ByThreads)->graph(1);
    QCOMPARE(marker->dataCount(), 1);
    QCOMPARE(marker->data()->at(0)->key, 256.0);
    QCOMPARE(marker->data()->at(0)->value, 100.0 * v.result().occupancy);
    QCOMPARE(v.chart(OccupancyView::ByRegisters)->graph(0)->dataCount(), 256);
    QCOMPARE(v.chart(OccupancyView::BySharedMemory)->graph(0)->dataCount(), 232448 / 128 + 1);
  }

  void inputsStayWithinTheArchitecture() {
    OccupancyView v;
    QSignalSpy spy(&v, &OccupancyView::inputsChanged);
    v.setArch("hopper");
    v.setInputs(1024, 200, 100000);
    v.setArch("g80");  // 512 threads, 124 registers, 16 KB at most
    QCOMPARE(v.result().input.threadsPerBlock, 512);
    QCOMPARE(v.result().input.registersPerThread, 124);
    QCOMPARE(v.result().input.sharedBytesPerBlock, 16384);
    QVERIFY(spy.count() > 0);
    QCOMPARE(spy.last().at(0).toString(), QString("g80"));
  }

  void deviceRunIsComparedKernelByKernel() {
    RunResult run;
    run.device = h200();
    run.backend = "cuda";
    auto variant = [](const char* id, const char* kernel, int regs, int smem, int blocks) {
      VariantResult v;
      v.variant = id;
      KernelResult k;
      k.name = kernel;
      ResourceUsage u;
      u.registersPerThread = regs;
      u.staticSharedBytes = smem;
      u.threadsPerBlock = 256;
      u.maxActiveBlocksPerSM = blocks;
      k.resources = u;
      v.kernels.push_back(k);
      return v;
    };
    run.variants = {variant("naive", "transposeNaiveKernel", 16, 0, 8),
                    variant("padded", "transposePaddedKernel", 18, 4224, 8),
                    variant("broken", "madeUpKernel", 18, 4224, 5)};
    OccupancyView v;
    v.setResult(run);
    QCOMPARE(v.arch(), QString("device"));
    QTableWidget* t = v.deviceTable();
    QCOMPARE(t->rowCount(), 3);
    QCOMPARE(t->item(0, 7)->text(), QString("yes"));
    QCOMPARE(t->item(1, 6)->text(), QString("8"));
    QCOMPARE(t->item(2, 7)->text(), QString("NO"));
    // The first kernel's numbers are loaded into the calculator on the device preset.
    QCOMPARE(v.result().arch.smCount, 132);
    QCOMPARE(v.result().input.registersPerThread, 16);
    // A CPU run removes the device preset again.
    RunResult cpu;
    cpu.device.backend = "cpu";
    v.setResult(cpu);
    QCOMPARE(v.deviceTable()->rowCount(), 0);
    QVERIFY(v.arch() != QString("device"));
  }
};

QTEST_MAIN(TstOccupancyView)
#include "tst_occupancy_view.moc"
