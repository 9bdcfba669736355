// SPDX-License-Identifier: MIT
// The KNN view on the offscreen platform: a click selects the pixel under the mouse, the drawn
// neighbours' pixels carry the highlight colour, the window is tinted, display modes change the
// picture, and the variant charts show the run's bars with units. With KLTEST_SCREENSHOT=<png>
// the view is saved there (docs/images/knn_view.png is made so, under xvfb-run).
#include <QComboBox>
#include <QSignalSpy>
#include <QtTest>
#include <qcustomplot.h>

#include "kernellab/experiment.h"
#include "kernellab/knn.h"
#include "knn_view.h"

using namespace kernellab;
using namespace kernellab::widgets;

namespace {

QColor colourAt(const QImage& shot, QPointF p) { return shot.pixelColor(p.toPoint()); }

}  // namespace

class TstKnnView : public QObject {
  Q_OBJECT

  knn::Image image_ = knn::makeImage(24, 36, 3, 11);
  knn::Geometry geometry_ = knn::windowGeometry({24, 36, 3}, 4, 6);
  knn::Lists lists_;

  KnnNeighbourSet referenceSet() {
    KnnNeighbourSet s;
    s.label = "reference";
    s.k = 6;
    s.indices = lists_.index;
    return s;
  }

 private slots:
  void initTestCase() { knn::referenceKnn(image_, geometry_, knn::WindowShape::PerPixel, lists_); }

  void clickSelectsThePixelAndDrawsItsNeighbours() {
    KnnView view;
    view.resize(1000, 640);
    view.setImage(image_);
    view.setSearch(4, 6);
    view.setNeighbourSets({referenceSet()});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QSignalSpy spy(&view, &KnnView::pixelSelected);

    const int row = 11, col = 20;
    const QPointF centre = view.canvas()->pixelRect(row, col).center();
    QTest::mouseClick(view.canvas(), Qt::LeftButton, {}, centre.toPoint());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), row);
    QCOMPARE(spy.at(0).at(1).toInt(), col);
    QCOMPARE(view.selectedRow(), row);

    const QImage shot = view.canvas()->grab().toImage();
    const int64_t p = int64_t(row) * 36 + col;
    for (int j = 0; j < 6; ++j) {
      const int32_t q = lists_.index[size_t(p * 6 + j)];
      const QPointF c = view.canvas()->pixelRect(q / 36, q % 36).center();
      QCOMPARE(colourAt(shot, c), KnnImageCanvas::neighbourColour());
    }
    QCOMPARE(colourAt(shot, centre), KnnImageCanvas::selectedColour());
    // The overlay says the same: six neighbours, the window spans rows 9..13 (W = 4, partial ends).
    QCOMPARE(view.canvas()->overlay().neighbours.size(), 6);
    QCOMPARE(view.canvas()->overlay().window.front().row, 9);
    QCOMPARE(view.canvas()->overlay().window.front().c0, 20);
    QCOMPARE(view.canvas()->overlay().window.back().row, 13);
    QCOMPARE(view.canvas()->overlay().window.back().c1, 20);
  }

  void windowIsTintedAndOutsideIsNot() {
    KnnView view;
    view.resize(900, 600);
    view.setImage(image_);
    view.setSearch(4, 6);
    view.setNeighbourSets({referenceSet()});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage before = view.canvas()->grab().toImage();
    view.selectPixel(12, 5);
    const QImage after = view.canvas()->grab().toImage();
    auto isNeighbour = [&](int r, int c) {
      for (int j = 0; j < 6; ++j)
        if (lists_.index[size_t((12 * 36 + 5) * 6 + j)] == r * 36 + c) return true;
      return false;
    };
    // Row 12 pixel 30 lies inside the window (10..14 rows' span): tinted, so its colour changed.
    if (!isNeighbour(12, 30)) {
      const QPointF in = view.canvas()->pixelRect(12, 30).center();
      QVERIFY(colourAt(before, in) != colourAt(after, in));
    }
    // Row 2 is far outside the window: untouched.
    const QPointF out = view.canvas()->pixelRect(2, 30).center();
    QCOMPARE(colourAt(before, out), colourAt(after, out));
  }

  void referenceIsComputedOnClickWithoutLists() {
    KnnView view;
    view.resize(800, 600);
    view.setImage(image_);
    view.setSearch(4, 6);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.selectPixel(3, 7);
    const auto& drawn = view.canvas()->overlay().neighbours;
    QCOMPARE(drawn.size(), 6);
    for (int j = 0; j < 6; ++j) {
      const int32_t q = lists_.index[size_t((3 * 36 + 7) * 6 + j)];
      QCOMPARE(drawn[j], QPoint(q % 36, q / 36));
    }
  }

  void displayModesChangeThePicture() {
    KnnView view;
    view.resize(700, 500);
    view.setImage(image_);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPointF c = view.canvas()->pixelRect(5, 5).center();
    const QColor grey = colourAt(view.canvas()->grab().toImage(), c);
    QCOMPARE(grey.red(), grey.green());
    QCOMPARE(grey.green(), grey.blue());
    view.setFalseColour(0, 1, 2);
    const QImage colour = view.canvas()->grab().toImage();
    bool anyColoured = false;
    for (int r = 0; r < 24 && !anyColoured; ++r)
      for (int col = 0; col < 36 && !anyColoured; ++col) {
        const QColor q = colourAt(colour, view.canvas()->pixelRect(r, col).center());
        anyColoured = q.red() != q.green() || q.green() != q.blue();
      }
    QVERIFY(anyColoured);
  }

  void chartsShowEveryVariantWithUnits() {
    RunRequest r;
    r.family = knn::kFamily;
    r.section<KnnProblem>().rows = 24;
    r.section<KnnProblem>().cols = 36;
    r.section<KnnProblem>().components = 3;
    r.section<KnnProblem>().window = 4;
    r.section<KnnProblem>().k = 6;
    r.section<KnnProblem>().keepNeighbours = true;
    r.backend = BackendChoice::Cpu;
    r.warmup = 0;
    r.repetitions = 2;
    const RunResult run = runExperiment(r);
    QVERIFY(run.ok);
    KnnView view;
    view.resize(1000, 640);
    view.showRun(run, knn::imageFor(run.request));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCustomPlot* time = view.charts()->timePlot();
    QCustomPlot* occ = view.charts()->occupancyPlot();
    int bars = 0;
    for (int i = 0; i < time->plottableCount(); ++i)
      if (qobject_cast<QCPBars*>(time->plottable(i))) ++bars;
    QCOMPARE(bars, 4);
    QVERIFY(time->yAxis->label().contains("ms"));
    QVERIFY(occ->yAxis->label().contains("per SM"));  // "(CUDA only)" on the CPU
    QVERIFY(occ->yAxis2->label().contains("KiB"));
    // Shared memory per block, right axis: global 0, the rest above 0.
    auto* shared = qobject_cast<QCPBars*>(occ->plottable(1));
    QVERIFY(shared);
    QCOMPARE(shared->data()->size(), 4);
    QCOMPARE(shared->data()->at(0)->value, 0.0);
    QVERIFY(shared->data()->at(1)->value > shared->data()->at(2)->value);  // window > one row
    // The run kept its lists: each variant is a choice, and the view draws from the chosen one.
    auto* box = view.findChildren<QComboBox*>().at(1);
    QCOMPARE(box->count(), 4 + 2);
    view.selectPixel(10, 10);
    QCOMPARE(view.canvas()->overlay().neighbours.size(), 6);
  }

  // docs/images/knn_view.png: KLTEST_SCREENSHOT=<png> xvfb-run tests/tst_knn_view screenshot
  void screenshot() {
    const QByteArray shotPath = qgetenv("KLTEST_SCREENSHOT");
    if (shotPath.isEmpty()) QSKIP("set KLTEST_SCREENSHOT=<file.png> to save the view");
    RunRequest r;
    r.family = knn::kFamily;
    r.section<KnnProblem>().rows = 120;
    r.section<KnnProblem>().cols = 160;
    r.section<KnnProblem>().components = 3;
    r.section<KnnProblem>().window = 14;
    r.section<KnnProblem>().k = 8;
    r.section<KnnProblem>().keepNeighbours = true;
    r.backend = BackendChoice::Cpu;
    r.warmup = 0;
    r.repetitions = 3;
    const RunResult run = runExperiment(r);
    QVERIFY(run.ok);
    KnnView view;
    view.resize(1280, 720);
    view.showRun(run, knn::imageFor(run.request));
    view.setFalseColour(0, 1, 2);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.selectPixel(60, 70);
    QVERIFY(view.grab().save(QString::fromLocal8Bit(shotPath)));
  }
};

QTEST_MAIN(TstKnnView)
#include "tst_knn_view.moc"
