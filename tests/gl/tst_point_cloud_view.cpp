// SPDX-License-Identifier: MIT
// Pixels of the OpenGL point cloud (run under Xvfb; skips without OpenGL): clusters drawn in
// their colours where the camera math puts them, centers marked, the moving subset, picking.
#include <QElapsedTimer>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QtTest>
#include <cmath>

#include "point_cloud_view.h"
#include "view_style.h"

using namespace kernellab::widgets;

namespace {

// Two tight clusters of 3,000 points each at x = -1 and x = +1.
std::shared_ptr<const cloud::CloudGeometry> twoClusters(std::vector<int32_t>& labels, bool twoD = false) {
  auto values = std::make_shared<std::vector<float>>();
  for (int i = 0; i < 6000; ++i) {
    const float cx = i < 3000 ? -1.f : 1.f;
    const float a = 0.0021f * i, r = 0.02f * ((i * 37) % 100) / 100.f;
    values->insert(values->end(), {cx + r * std::cos(a), r * std::sin(a), 0.01f * ((i % 7) - 3)});
    labels.push_back(i < 3000 ? 0 : 1);
  }
  return cloud::makeCloudGeometry(values, 6000, 3, twoD);
}

bool near(QRgb a, const QColor& b, int tolerance = 40) {
  return std::abs(qRed(a) - b.red()) + std::abs(qGreen(a) - b.green()) + std::abs(qBlue(a) - b.blue()) <= tolerance;
}

// True when some pixel within `radius` of (x, y) has the colour.
bool colourNear(const QImage& img, QPointF at, const QColor& c, int radius = 4) {
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const int x = int(std::lround(at.x())) + dx, y = int(std::lround(at.y())) + dy;
      if (x >= 0 && y >= 0 && x < img.width() && y < img.height() && near(img.pixel(x, y), c)) return true;
    }
  return false;
}

QPointF screenOf(const PointCloudView& v, glm::vec3 p) {
  const cloud::ScreenPoint s = cloud::projectToScreen(v.viewProjectionMatrix(), p, v.width(), v.height());
  return {s.x, s.y};
}

}  // namespace

class TstPointCloudView : public QObject {
  Q_OBJECT
 private slots:
  void initTestCase() {
    QOpenGLContext ctx;
    if (!ctx.create()) QSKIP("no OpenGL context here (run the gl suites under xvfb-run)");
    QOffscreenSurface surface;
    surface.create();
    if (!ctx.makeCurrent(&surface)) QSKIP("an OpenGL context exists but cannot be made current");
  }

  void clustersAppearInTheirColours() {
    PointCloudView view;
    view.resize(480, 360);
    std::vector<int32_t> labels;
    view.setCloud(twoClusters(labels), true);
    view.setLabels(labels);
    view.setPointSize(5.f);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    QVERIFY(view.glReady());
    QCOMPARE(img.size(), view.size() * view.devicePixelRatio());
    const QPointF left = screenOf(view, {-1, 0, 0}), right = screenOf(view, {1, 0, 0});
    QVERIFY2(colourNear(img, left, categoricalColor(0)), "cluster 0 is not blue where it should be");
    QVERIFY2(colourNear(img, right, categoricalColor(1)), "cluster 1 is not orange where it should be");
    QVERIFY(!colourNear(img, left, categoricalColor(1), 1));
    // Far from both clusters: the background.
    QVERIFY(near(img.pixel(5, 5), QColor(250, 250, 250), 6));
    QVERIFY(near(img.pixel(int((left.x() + right.x()) / 2), int(left.y()) - 60), QColor(250, 250, 250), 6));
    QCOMPARE(view.lastDrawnCount(), int64_t(6000));
  }

  void aLabelNeverSizesTheColourTable() {
    // Issue 16: a label of 2147483646 once made an 8.5 GB colour table on the GUI thread. The
    // table is bounded; such a point still gets its colour, the others theirs.
    PointCloudView view;
    view.resize(480, 360);
    std::vector<int32_t> labels;
    view.setCloud(twoClusters(labels), true);
    for (int i = 3000; i < 6000; ++i) labels[static_cast<size_t>(i)] = 2147483646;
    view.setLabels(labels);
    view.setPointSize(5.f);
    view.show();
    QElapsedTimer t;
    t.start();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    QVERIFY2(t.elapsed() < 5000, qPrintable(QString::number(t.elapsed())));
    QVERIFY(colourNear(img, screenOf(view, {-1, 0, 0}), categoricalColor(0)));
    QVERIFY(colourNear(img, screenOf(view, {1, 0, 0}), categoricalColor(2147483646)));
  }

  void centersAreMarkedAndNumbered() {
    PointCloudView view;
    view.resize(480, 360);
    std::vector<int32_t> labels;
    view.setCloud(twoClusters(labels), true);
    view.setLabels(labels);
    // A third center away from every point, numbered: its fill is cluster 2's green.
    view.setCenters({{{-1, 0, 0}, 0, 0}, {{1, 0, 0}, 1, 1}, {{0, 0.6f, 0}, 2, 2}});
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    const QPointF c = screenOf(view, {0, 0.6f, 0});
    QVERIFY2(colourNear(img, c, categoricalColor(2), 2), "the center's fill is missing");
    bool ring = false;  // the dark ring 7 px around it
    for (int a = 0; a < 360 && !ring; a += 15)
      ring = colourNear(img, c + QPointF(7 * std::cos(a * M_PI / 180), 7 * std::sin(a * M_PI / 180)), QColor(20, 20, 20), 1);
    QVERIFY2(ring, "the center's ring is missing");
  }

  void twoDModeLaysThePointsFlat() {
    PointCloudView view;
    view.resize(400, 400);
    std::vector<int32_t> labels;
    view.setCloud(twoClusters(labels, true), true);
    view.setLabels(labels);
    view.setPointSize(4.f);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.camera().twoD);
    const QImage img = view.grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    // PCA's first component is the x axis here: the clusters sit left and right of the middle.
    const auto& xyz = view.cloudGeometry()->xyz;
    const QPointF a = screenOf(view, {xyz[0], xyz[1], 0}), b = screenOf(view, {xyz[3 * 5999], xyz[3 * 5999 + 1], 0});
    QVERIFY(std::fabs(a.y() - b.y()) < 10);
    QVERIFY(std::fabs(a.x() - b.x()) > 150);
    QVERIFY(colourNear(img, a, categoricalColor(0)));
    QVERIFY(colourNear(img, b, categoricalColor(1)));
  }

  void aSubsetWhileMovingAllWhenStill() {
    PointCloudView view;
    view.resize(300, 300);
    std::vector<int32_t> labels;
    view.setCloud(twoClusters(labels), true);
    view.setMovingSubset(1000);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setForceMoving(true);
    view.grabFramebuffer();
    QCOMPARE(view.lastDrawnCount(), int64_t(1000));
    view.setForceMoving(false);
    view.grabFramebuffer();
    QCOMPARE(view.lastDrawnCount(), int64_t(6000));
    // A drag starts the moving state; it ends by itself once the mouse rests.
    QTest::mousePress(&view, Qt::LeftButton, {}, QPoint(150, 150));
    QTest::mouseMove(&view, QPoint(190, 160));
    QTest::mouseMove(&view, QPoint(230, 170));
    QTest::mouseRelease(&view, Qt::LeftButton, {}, QPoint(230, 170));
    QTRY_VERIFY_WITH_TIMEOUT(!view.isMoving(), 3000);
  }

  void pickingNamesThePointUnderTheCursor() {
    PointCloudView view;
    view.resize(480, 360);
    std::vector<int32_t> labels;
    view.setCloud(twoClusters(labels), true);
    view.setLabels(labels);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QPointF right = screenOf(view, {1, 0, 0});
    const int64_t i = view.pickAt(right.toPoint());
    QVERIFY(i >= 3000);  // a point of the right cluster
    QSignalSpy clicked(&view, &PointCloudView::clicked);
    QTest::mouseClick(&view, Qt::LeftButton, {}, right.toPoint());
    QCOMPARE(clicked.count(), 1);
    QVERIFY(clicked.first().at(0).toLongLong() >= 3000);
    QCOMPARE(view.pickAt(QPoint(3, 3)), int64_t(-1));
  }
};

QTEST_MAIN(TstPointCloudView)
#include "tst_point_cloud_view.moc"
