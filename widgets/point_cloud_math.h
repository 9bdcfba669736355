// SPDX-License-Identifier: MIT
// The point cloud's math as free functions, testable without an OpenGL context: the orbit
// camera (GLM), projection of D-dimensional points to 3D or 2D (PCA with Eigen), picking the
// point under the cursor, and the draw order whose every prefix is a uniform sample.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <memory>
#include <vector>

namespace kernellab::widgets::cloud {

struct Bounds {
  glm::vec3 lo{0.f};
  glm::vec3 hi{0.f};
  bool empty = true;
  glm::vec3 center() const { return (lo + hi) * 0.5f; }
  float radius() const;  // half the diagonal, never 0
};
// xyz holds n points x 3 floats.
Bounds computeBounds(const std::vector<float>& xyz);

// An orbit camera around `target`, y up. In 2D mode it looks down -z with an orthographic
// projection, and orbiting is off.
struct Camera {
  glm::vec3 target{0.f};
  float distance = 3.f;   // 3D: eye to target; 2D: half the visible height
  float yaw = 0.6f;       // radians around the y axis
  float pitch = 0.35f;    // radians above the x-z plane, kept inside +-89 degrees
  float fovY = 0.6981317f;  // 40 degrees
  bool twoD = false;
  glm::vec3 sceneCenter{0.f};
  float sceneRadius = 1.f;
};

Camera fitCamera(const Bounds& bounds, bool twoD);  // the reset view: everything in sight
glm::vec3 eyePosition(const Camera& c);
glm::mat4 viewMatrix(const Camera& c);
glm::mat4 projectionMatrix(const Camera& c, float aspect);
glm::mat4 viewProjection(const Camera& c, int width, int height);

Camera orbit(Camera c, float dxPixels, float dyPixels);
// The scene follows the cursor: dragging right moves the points right on screen.
Camera pan(Camera c, float dxPixels, float dyPixels, int viewportHeight);
// steps > 0 zooms in (one wheel notch = 1 step, 15% closer).
Camera zoom(Camera c, float steps);

struct ScreenPoint {
  float x = 0, y = 0;  // pixels, origin top-left (Qt's widget coordinates)
  float depth = 0;     // normalised device depth, -1 near .. 1 far
  bool visible = false;
};
ScreenPoint projectToScreen(const glm::mat4& mvp, const glm::vec3& p, int width, int height);

// Index of the visible point nearest to `cursor` within radiusPx (nearest in depth on ties),
// or -1. Brute force over all points: about 5 ms per million on one core.
int64_t pickNearest(const std::vector<float>& xyz, const glm::mat4& mvp, int width, int height,
                    glm::vec2 cursor, float radiusPx);

// How D-dimensional points become 3D (or 2D) positions.
struct Projection {
  int inputDims = 0;
  int outputDims = 3;          // 3, or 2 in 2D mode (z = 0)
  bool identity = true;        // the first coordinates as they are (D <= outputDims)
  std::vector<double> mean;    // D
  std::vector<double> axes;    // outputDims x D, row-major: principal directions, largest first
  std::vector<double> explained;  // share of the total variance per output component
};

// D <= outputDims keeps the coordinates (D = 3 in 3D mode, D <= 2 in 2D mode); otherwise PCA
// on at most `maxSample` points (a seeded sample: the covariance of 50,000 points is as good as
// that of a million for three components, at 1/20 of the cost).
Projection fitProjection(const float* values, int64_t n, int d, int outputDims,
                         int64_t maxSample = 50000, uint64_t seed = 1);
// n points (point-major, D values each) -> n x 3 floats.
std::vector<float> applyProjection(const Projection& p, const float* values, int64_t n);

// A seeded random permutation of 0..n-1: any prefix is a uniform sample of the points, so the
// "while moving" subset is a prefix of one vertex buffer.
std::vector<uint32_t> drawOrder(int64_t n, uint64_t seed = 0x5eedULL);

// Everything the view draws for one data set, built off the GUI thread (PCA of a million
// points in 200 dimensions takes about a second).
struct CloudGeometry {
  int64_t n = 0;
  int d = 0;
  std::shared_ptr<const std::vector<float>> values;  // the original coordinates, n x d, for hover
  Projection projection;
  std::vector<float> xyz;        // projected positions, n x 3
  std::vector<uint32_t> order;   // draw order (see drawOrder)
  Bounds bounds;
  // A sample of a larger data set: its size, and each point's index in it (empty: the points are
  // the whole set, in order).
  int64_t total = 0;
  std::shared_ptr<const std::vector<int64_t>> sourceIndex;
  bool twoD() const { return projection.outputDims == 2; }
  int64_t dataSetIndex(int64_t i) const {
    return sourceIndex && i >= 0 && static_cast<size_t>(i) < sourceIndex->size()
               ? (*sourceIndex)[static_cast<size_t>(i)]
               : i;
  }
};
// `total` and `sourceIndex` describe a sample (see CloudGeometry); by default the points are all.
std::shared_ptr<const CloudGeometry> makeCloudGeometry(
    std::shared_ptr<const std::vector<float>> values, int64_t n, int d, bool twoD,
    int64_t total = 0, std::shared_ptr<const std::vector<int64_t>> sourceIndex = {});

}  // namespace kernellab::widgets::cloud
