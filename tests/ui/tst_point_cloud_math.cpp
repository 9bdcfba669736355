// SPDX-License-Identifier: MIT
// The point cloud's camera, PCA projection, picking and draw order, without an OpenGL context.
#include <QtTest>
#include <cmath>
#include <numeric>
#include <set>

#include "point_cloud_math.h"

using namespace kernellab::widgets::cloud;

namespace {

std::vector<float> cube() {
  std::vector<float> xyz;
  for (int i = 0; i < 8; ++i) {
    xyz.push_back(i & 1 ? 10.f : -2.f);
    xyz.push_back(i & 2 ? 5.f : -5.f);
    xyz.push_back(i & 4 ? 1.f : -7.f);
  }
  return xyz;
}

}  // namespace

class TstPointCloudMath : public QObject {
  Q_OBJECT
 private slots:
  void resetViewShowsEverything() {
    const auto xyz = cube();
    const Bounds b = computeBounds(xyz);
    QCOMPARE(b.lo.x, -2.f);
    QCOMPARE(b.hi.z, 1.f);
    for (bool twoD : {false, true}) {
      Camera c = fitCamera(b, twoD);
      for (c.yaw = -3.f; c.yaw < 3.f; c.yaw += 0.7f) {
        const glm::mat4 m = viewProjection(c, 800, 600);
        for (size_t i = 0; i < 8; ++i) {
          const ScreenPoint s = projectToScreen(m, {xyz[3 * i], xyz[3 * i + 1], twoD ? 0.f : xyz[3 * i + 2]}, 800, 600);
          QVERIFY2(s.visible, qPrintable(QStringLiteral("corner %1 out of view (2D %2)").arg(i).arg(twoD)));
        }
        if (twoD) break;
      }
    }
  }

  void orbitKeepsTheTargetInTheMiddle() {
    const Bounds b = computeBounds(cube());
    Camera c = fitCamera(b, false);
    for (int i = 0; i < 20; ++i) {
      c = orbit(c, 37.f, -11.f);
      const ScreenPoint s = projectToScreen(viewProjection(c, 640, 480), c.target, 640, 480);
      QVERIFY(s.visible);
      QVERIFY(std::fabs(s.x - 320.f) < 0.01f && std::fabs(s.y - 240.f) < 0.01f);
      QVERIFY(std::fabs(glm::length(eyePosition(c) - c.target) - c.distance) < 1e-3f * c.distance);
      QVERIFY(std::fabs(c.pitch) < 1.5708f);  // never over the pole
    }
    // Orbiting does nothing in 2D.
    const Camera flat = fitCamera(b, true);
    const Camera turned = orbit(flat, 50.f, 50.f);
    QCOMPARE(turned.yaw, flat.yaw);
    QCOMPARE(turned.pitch, flat.pitch);
  }

  void panFollowsTheCursor() {
    const Bounds b = computeBounds(cube());
    for (bool twoD : {false, true}) {
      const Camera c = fitCamera(b, twoD);
      const glm::vec3 p = c.target;  // a point at the target's depth moves exactly with the cursor
      const ScreenPoint before = projectToScreen(viewProjection(c, 800, 600), p, 800, 600);
      const Camera moved = pan(c, 40.f, -25.f, 600);
      const ScreenPoint after = projectToScreen(viewProjection(moved, 800, 600), p, 800, 600);
      QVERIFY2(std::fabs(after.x - before.x - 40.f) < 0.05f, qPrintable(QString::number(after.x - before.x)));
      QVERIFY2(std::fabs(after.y - before.y + 25.f) < 0.05f, qPrintable(QString::number(after.y - before.y)));
    }
  }

  void zoomMovesCloserAndStaysBounded() {
    const Camera c = fitCamera(computeBounds(cube()), false);
    QVERIFY(zoom(c, 1.f).distance < c.distance);
    QVERIFY(zoom(c, -1.f).distance > c.distance);
    QVERIFY(std::fabs(zoom(zoom(c, 3.f), -3.f).distance - c.distance) < 1e-4f * c.distance);
    Camera far = c;
    for (int i = 0; i < 500; ++i) far = zoom(far, -1.f);
    QVERIFY(std::isfinite(far.distance) && far.distance <= c.sceneRadius * 100.f);
  }

  void pickingFindsTheNearestFrontPoint() {
    // Two points on the line of sight through the screen centre, and one off to the side.
    std::vector<float> xyz = {0, 0, 0, /* front: */ 0, 0, 0, /* side: */ 3, 0, 0};
    Camera c = fitCamera(computeBounds({-4, -4, -4, 4, 4, 4}), false);
    c.yaw = 0;
    c.pitch = 0;  // looking down -z: larger z is nearer
    xyz[5] = 1.f;
    const glm::mat4 m = viewProjection(c, 500, 500);
    QCOMPARE(pickNearest(xyz, m, 500, 500, {250.f, 250.f}, 6.f), int64_t(1));
    const ScreenPoint side = projectToScreen(m, {3, 0, 0}, 500, 500);
    QCOMPARE(pickNearest(xyz, m, 500, 500, {side.x + 2.f, side.y - 1.f}, 6.f), int64_t(2));
    QCOMPARE(pickNearest(xyz, m, 500, 500, {10.f, 10.f}, 6.f), int64_t(-1));
  }

  void pcaFindsTheMainDirection() {
    // 2000 points along (1, 2, 0, -1, 3)/sqrt(15) plus a little noise, in D = 5.
    const int d = 5;
    const double dir[d] = {1, 2, 0, -1, 3};
    const double norm = std::sqrt(15.0);
    std::vector<float> values;
    for (int i = 0; i < 2000; ++i) {
      const double t = (i - 1000) * 0.01;
      for (int j = 0; j < d; ++j) values.push_back(static_cast<float>(t * dir[j] / norm + 0.001 * ((i * 7 + j * 13) % 11 - 5)));
    }
    const Projection p = fitProjection(values.data(), 2000, d, 3);
    QVERIFY(!p.identity);
    QCOMPARE(p.outputDims, 3);
    double dot = 0;
    for (int j = 0; j < d; ++j) dot += p.axes[j] * dir[j] / norm;
    QVERIFY2(std::fabs(std::fabs(dot) - 1.0) < 1e-4, qPrintable(QString::number(dot)));
    QVERIFY(p.explained[0] > 0.999);
    // Projected first coordinates are the positions along the line.
    const auto xyz = applyProjection(p, values.data(), 2000);
    QVERIFY(std::fabs(std::fabs(xyz[3 * 1500] - xyz[3 * 500]) - 10.0) < 0.01);
    // 2D mode projects to two components and leaves z at 0.
    const Projection flat = fitProjection(values.data(), 2000, d, 2);
    QCOMPARE(flat.outputDims, 2);
    const auto xy = applyProjection(flat, values.data(), 2000);
    for (int i = 0; i < 2000; ++i) QCOMPARE(xy[3 * i + 2], 0.f);
  }

  void smallDimensionsStayAsTheyAre() {
    const std::vector<float> v = {1, 2, 3, 4, 5, 6};
    const Projection p3 = fitProjection(v.data(), 2, 3, 3);
    QVERIFY(p3.identity);
    QCOMPARE(applyProjection(p3, v.data(), 2), v);
    const Projection p2 = fitProjection(v.data(), 3, 2, 3);
    QVERIFY(p2.identity);
    QCOMPARE(applyProjection(p2, v.data(), 3), (std::vector<float>{1, 2, 0, 3, 4, 0, 5, 6, 0}));
  }

  void drawOrderIsASeededPermutation() {
    const auto a = drawOrder(100000, 7), b = drawOrder(100000, 7), c = drawOrder(100000, 8);
    QCOMPARE(a, b);
    QVERIFY(a != c);
    std::vector<uint32_t> sorted = a;
    std::sort(sorted.begin(), sorted.end());
    std::vector<uint32_t> expected(100000);
    std::iota(expected.begin(), expected.end(), 0u);
    QCOMPARE(sorted, expected);
    // A prefix is a uniform sample: about a tenth of the first 10,000 fall in each tenth of the range.
    std::vector<int> bins(10, 0);
    for (int i = 0; i < 10000; ++i) ++bins[a[static_cast<size_t>(i)] / 10000];
    for (int n : bins) QVERIFY2(n > 850 && n < 1150, qPrintable(QString::number(n)));
  }
};

QTEST_MAIN(TstPointCloudMath)
#include "tst_point_cloud_math.moc"
