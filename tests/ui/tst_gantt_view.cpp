// SPDX-License-Identifier: MIT
// GanttView: blocks are painted where their SM and times put them, in the chosen colours; the
// captions state concurrency and the measured recording overhead.
#include <QtTest>
#include <qcustomplot.h>

#include "gantt_view.h"
#include "kernellab/schedule_model.h"
#include "model_colors.h"
#include "view_style.h"

using namespace kernellab;
using namespace kernellab::widgets;

class TstGanttView : public QObject {
  Q_OBJECT

  static BlockRecord rec(int id, int sm, uint64_t t0, uint64_t t1, int tx, int ty) {
    BlockRecord r;
    r.blockId = id;
    r.smId = sm;
    r.startNs = t0;
    r.endNs = t1;
    r.tileX = tx;
    r.tileY = ty;
    return r;
  }

 private slots:
  void blocksArePaintedOnTheirLaneAndTime() {
    GanttView v;
    v.resize(900, 500);
    GanttRun run;
    run.title = "padded";
    run.gridX = 2;
    run.gridY = 1;
    // Times from an arbitrary %globaltimer origin: the view starts at the first block.
    run.records = {rec(0, 0, 5'000'000, 5'010'000, 0, 0), rec(1, 1, 5'010'000, 5'020'000, 1, 0)};
    v.setRuns({run});
    QCOMPARE(v.runCount(), 1);
    QCOMPARE(v.origin(0), uint64_t(5'000'000));
    QCustomPlot* plot = v.plot(0);
    plot->resize(600, 400);
    plot->replot();
    const QImage img = plot->toPixmap(600, 400, 1.0).toImage();
    auto at = [&](double us, double sm) {
      return img.pixelColor(int(plot->xAxis->coordToPixel(us)), int(plot->yAxis->coordToPixel(sm))).rgb();
    };
    QCOMPARE(at(5, 0), v.blockColor(0, run.records[0]).rgb());
    QCOMPARE(at(15, 1), v.blockColor(0, run.records[1]).rgb());
    QCOMPARE(at(15, 0), QColor(Qt::white).rgb());  // SM 0 idle in the second block's time
    QCOMPARE(v.blockColor(0, run.records[0]), tilePositionColor(0, 0, 2, 1));
    v.setColorBy(GanttView::ColorBy::Run);
    QCOMPARE(v.blockColor(0, run.records[1]), categoricalColor(0));
  }

  void twoRunsShareOneTimeScaleAndStateTheOverhead() {
    schedule::Config c;
    c.gridX = 16;
    c.gridY = 16;
    c.smCount = 8;
    c.blocksPerSM = 2;
    c.mapping = schedule::Mapping::Cartesian;
    const auto cart = schedule::simulate(c);
    c.mapping = schedule::Mapping::Diagonal;
    const auto diag = schedule::simulate(c);
    GanttRun a, b;
    a.title = "padded";
    a.records = schedule::simulatedRecords(cart, 2000);
    a.gridX = b.gridX = 16;
    a.gridY = b.gridY = 16;
    a.overheadKnown = true;
    a.overheadPct = 3.46;
    b.title = "diagonal";
    b.records = schedule::simulatedRecords(diag, 1000);  // twice as fast
    b.simulated = true;
    GanttView v;
    v.setRuns({a, b});
    QCOMPARE(v.runCount(), 2);
    QCOMPARE(v.plot(0)->xAxis->range().upper, v.plot(1)->xAxis->range().upper);
    QCOMPARE(v.plot(0)->xAxis->range().upper, 16.0 * 2.0);  // 16 waves of 2 us
    QVERIFY(v.caption(0).contains("Recording overhead: +3.5 %"));
    QVERIFY(v.caption(0).contains("at most 2 blocks at once on one SM, 16 on the GPU"));
    QVERIFY(v.caption(1).contains("schedule model, not a measurement"));
    QVERIFY(!v.caption(1).contains("overhead"));
  }

  void runFromVariantTakesScheduleGridAndOverhead() {
    VariantResult vr;
    vr.variant = "diagonal";
    KernelResult k;
    k.gridX = 4;
    k.gridY = 2;
    vr.kernels.push_back(k);
    vr.schedule = {rec(0, 3, 0, 100, 1, 1)};
    vr.scheduleOverheadPct = -0.8;
    const GanttRun r = GanttView::runFromVariant(vr);
    QCOMPARE(r.title, QString("diagonal"));
    QCOMPARE(r.gridX, 4);
    QCOMPARE(r.gridY, 2);
    QVERIFY(r.overheadKnown);
    GanttView v;
    v.setRuns({r});
    QVERIFY(v.caption(0).contains("-0.8 %"));
  }

  void resultPicksPaddedAndDiagonal() {
    RunResult run;
    run.device.name = "NVIDIA H200";
    for (const char* id : {"copy", "naive", "padded", "diagonal"}) {
      VariantResult v;
      v.variant = id;
      v.schedule = {rec(0, 0, 0, 100, 0, 0)};
      run.variants.push_back(v);
    }
    GanttView v;
    v.setResult(run);
    QCOMPARE(v.runCount(), 2);
    QVERIFY(v.caption(0).contains("padded on NVIDIA H200"));
    QVERIFY(v.caption(1).contains("diagonal on NVIDIA H200"));
    run.variants.erase(run.variants.begin() + 3);
    v.setResult(run);
    QVERIFY(v.caption(0).contains("copy"));
    QVERIFY(v.caption(1).contains("naive"));
  }

  void emptySaysHowToRecord() {
    GanttView v;
    v.setRuns({});
    QCOMPARE(v.runCount(), 0);
    QVERIFY(v.plot(0) == nullptr);
  }
};

QTEST_MAIN(TstGanttView)
#include "tst_gantt_view.moc"
