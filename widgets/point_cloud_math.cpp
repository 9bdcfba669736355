// SPDX-License-Identifier: MIT
// Camera, PCA projection, picking and draw order for the point cloud.
#include "point_cloud_math.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <glm/gtc/matrix_transform.hpp>
#include <limits>
#include <numeric>

#include "kernellab/random.h"

namespace kernellab::widgets::cloud {
namespace {

constexpr float kMaxPitch = 1.55f;  // just under 90 degrees: lookAt degenerates at the pole

}  // namespace

float Bounds::radius() const {
  const float r = 0.5f * glm::length(hi - lo);
  return r > 1e-12f ? r : 1.0f;
}

Bounds computeBounds(const std::vector<float>& xyz) {
  Bounds b;
  const size_t n = xyz.size() / 3;
  for (size_t i = 0; i < n; ++i) {
    const glm::vec3 p(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    if (!std::isfinite(p.x) || !std::isfinite(p.y) || !std::isfinite(p.z)) continue;
    if (b.empty) {
      b.lo = b.hi = p;
      b.empty = false;
    } else {
      b.lo = glm::min(b.lo, p);
      b.hi = glm::max(b.hi, p);
    }
  }
  return b;
}

Camera fitCamera(const Bounds& bounds, bool twoD) {
  Camera c;
  c.twoD = twoD;
  c.sceneCenter = bounds.empty ? glm::vec3(0.f) : bounds.center();
  c.sceneRadius = bounds.empty ? 1.f : bounds.radius();
  c.target = c.sceneCenter;
  if (twoD) {
    c.yaw = 0.f;
    c.pitch = 0.f;
    // Half the visible height; the projected cloud lies in the x-y plane.
    const glm::vec3 half = bounds.empty ? glm::vec3(1.f) : (bounds.hi - bounds.lo) * 0.5f;
    c.distance = std::max({half.x, half.y, c.sceneRadius * 0.05f}) * 1.08f;
  } else {
    c.distance = c.sceneRadius / std::sin(c.fovY * 0.5f) * 1.02f;
  }
  return c;
}

glm::vec3 eyePosition(const Camera& c) {
  if (c.twoD) return c.target + glm::vec3(0.f, 0.f, 1.f) * (2.f * c.sceneRadius + 1.f);
  const float cp = std::cos(c.pitch);
  const glm::vec3 dir(cp * std::sin(c.yaw), std::sin(c.pitch), cp * std::cos(c.yaw));
  return c.target + dir * c.distance;
}

glm::mat4 viewMatrix(const Camera& c) {
  return glm::lookAt(eyePosition(c), c.target, glm::vec3(0.f, 1.f, 0.f));
}

glm::mat4 projectionMatrix(const Camera& c, float aspect) {
  aspect = aspect > 0 ? aspect : 1.f;
  const float reach = glm::length(c.target - c.sceneCenter) + 2.f * c.sceneRadius;
  if (c.twoD) {
    const float h = c.distance;
    const float depth = 4.f * c.sceneRadius + 2.f + reach;
    return glm::ortho(-h * aspect, h * aspect, -h, h, 0.f, 2.f * depth);
  }
  const float nearPlane = std::max(c.distance - reach, c.distance * 1e-3f);
  const float farPlane = c.distance + reach;
  return glm::perspective(c.fovY, aspect, nearPlane, farPlane);
}

glm::mat4 viewProjection(const Camera& c, int width, int height) {
  const float aspect = height > 0 ? float(width) / float(height) : 1.f;
  return projectionMatrix(c, aspect) * viewMatrix(c);
}

Camera orbit(Camera c, float dxPixels, float dyPixels) {
  if (c.twoD) return c;
  constexpr float kRadiansPerPixel = 0.008f;
  c.yaw -= dxPixels * kRadiansPerPixel;
  c.pitch = std::clamp(c.pitch + dyPixels * kRadiansPerPixel, -kMaxPitch, kMaxPitch);
  return c;
}

Camera pan(Camera c, float dxPixels, float dyPixels, int viewportHeight) {
  const float h = static_cast<float>(std::max(1, viewportHeight));
  // World units per pixel at the target's depth.
  const float perPixel = c.twoD ? 2.f * c.distance / h
                                : 2.f * c.distance * std::tan(c.fovY * 0.5f) / h;
  const glm::mat4 view = viewMatrix(c);
  const glm::vec3 right(view[0][0], view[1][0], view[2][0]);
  const glm::vec3 up(view[0][1], view[1][1], view[2][1]);
  c.target += (-dxPixels * right + dyPixels * up) * perPixel;
  return c;
}

Camera zoom(Camera c, float steps) {
  c.distance *= std::pow(0.85f, steps);
  c.distance = std::clamp(c.distance, c.sceneRadius * 1e-4f, c.sceneRadius * 100.f);
  return c;
}

ScreenPoint projectToScreen(const glm::mat4& mvp, const glm::vec3& p, int width, int height) {
  ScreenPoint s;
  const glm::vec4 clip = mvp * glm::vec4(p, 1.f);
  if (clip.w <= 0.f) return s;
  const glm::vec3 ndc = glm::vec3(clip) / clip.w;
  s.x = (ndc.x * 0.5f + 0.5f) * float(width);
  s.y = (1.f - (ndc.y * 0.5f + 0.5f)) * float(height);
  s.depth = ndc.z;
  s.visible = std::fabs(ndc.x) <= 1.f && std::fabs(ndc.y) <= 1.f && ndc.z >= -1.f && ndc.z <= 1.f;
  return s;
}

int64_t pickNearest(const std::vector<float>& xyz, const glm::mat4& mvp, int width, int height,
                    glm::vec2 cursor, float radiusPx) {
  const int64_t n = static_cast<int64_t>(xyz.size() / 3);
  int64_t best = -1;
  float bestDist = 0.f;
  float bestDepth = std::numeric_limits<float>::infinity();
  for (int64_t i = 0; i < n; ++i) {
    const ScreenPoint s =
        projectToScreen(mvp, glm::vec3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]), width, height);
    if (!s.visible) continue;
    const float dx = s.x - cursor.x, dy = s.y - cursor.y;
    const float d2 = dx * dx + dy * dy;
    if (d2 > radiusPx * radiusPx) continue;
    // The nearest on screen; among points within half a pixel of that, the front-most.
    if (best < 0 || d2 < bestDist - 0.25f || (std::fabs(d2 - bestDist) <= 0.25f && s.depth < bestDepth)) {
      best = i;
      bestDist = d2;
      bestDepth = s.depth;
    }
  }
  return best;
}

Projection fitProjection(const float* values, int64_t n, int d, int outputDims, int64_t maxSample,
                         uint64_t seed) {
  Projection p;
  p.inputDims = d;
  p.outputDims = outputDims == 2 ? 2 : 3;
  p.identity = d <= p.outputDims;
  if (p.identity || n <= 0 || d <= 0) {
    p.identity = true;
    return p;
  }
  // Sample rows (all of them when n is small), then the covariance of the sample.
  std::vector<int64_t> rows;
  if (n <= maxSample) {
    rows.resize(static_cast<size_t>(n));
    std::iota(rows.begin(), rows.end(), 0);
  } else {
    SplitMixSequence draws(seed);
    rows.reserve(static_cast<size_t>(maxSample));
    for (int64_t i = 0; i < maxSample; ++i)
      rows.push_back(static_cast<int64_t>(draws.next() % static_cast<uint64_t>(n)));
  }
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(d);
  for (int64_t r : rows)
    for (int j = 0; j < d; ++j) mean[j] += values[r * d + j];
  mean /= double(rows.size());
  Eigen::MatrixXd cov = Eigen::MatrixXd::Zero(d, d);
  Eigen::VectorXd x(d);
  for (int64_t r : rows) {
    for (int j = 0; j < d; ++j) x[j] = values[r * d + j] - mean[j];
    cov.selfadjointView<Eigen::Lower>().rankUpdate(x);
  }
  cov = cov.selfadjointView<Eigen::Lower>();
  cov /= std::max<double>(1.0, double(rows.size()) - 1.0);

  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(cov);
  const Eigen::VectorXd& evals = solver.eigenvalues();  // ascending
  const Eigen::MatrixXd& evecs = solver.eigenvectors();
  const double total = std::max(1e-300, evals.sum());
  p.mean.assign(mean.data(), mean.data() + d);
  p.axes.assign(static_cast<size_t>(p.outputDims) * d, 0.0);
  for (int k = 0; k < p.outputDims; ++k) {
    const int col = d - 1 - k;  // largest first
    Eigen::VectorXd v = evecs.col(col);
    // Deterministic sign: the largest-magnitude entry is positive.
    Eigen::Index big = 0;
    v.cwiseAbs().maxCoeff(&big);
    if (v[big] < 0) v = -v;
    for (int j = 0; j < d; ++j) p.axes[static_cast<size_t>(k) * d + j] = v[j];
    p.explained.push_back(std::max(0.0, evals[col]) / total);
  }
  return p;
}

std::vector<float> applyProjection(const Projection& p, const float* values, int64_t n) {
  std::vector<float> xyz(static_cast<size_t>(n) * 3, 0.f);
  const int d = p.inputDims;
  if (p.identity) {
    for (int64_t i = 0; i < n; ++i)
      for (int j = 0; j < std::min(d, 3); ++j) xyz[3 * i + j] = values[i * d + j];
    return xyz;
  }
  for (int64_t i = 0; i < n; ++i) {
    const float* v = values + i * d;
    for (int k = 0; k < p.outputDims; ++k) {
      const double* axis = p.axes.data() + static_cast<size_t>(k) * d;
      double s = 0;
      for (int j = 0; j < d; ++j) s += (v[j] - p.mean[j]) * axis[j];
      xyz[3 * i + k] = static_cast<float>(s);
    }
  }
  return xyz;
}

std::vector<uint32_t> drawOrder(int64_t n, uint64_t seed) {
  std::vector<uint32_t> order(static_cast<size_t>(std::max<int64_t>(0, n)));
  std::iota(order.begin(), order.end(), 0u);
  SplitMixSequence draws(seed);
  for (int64_t i = n - 1; i > 0; --i) {
    const auto j = static_cast<int64_t>(draws.next() % static_cast<uint64_t>(i + 1));
    std::swap(order[static_cast<size_t>(i)], order[static_cast<size_t>(j)]);
  }
  return order;
}

std::shared_ptr<const CloudGeometry> makeCloudGeometry(
    std::shared_ptr<const std::vector<float>> values, int64_t n, int d, bool twoD, int64_t total,
    std::shared_ptr<const std::vector<int64_t>> sourceIndex) {
  auto g = std::make_shared<CloudGeometry>();
  g->n = n;
  g->d = d;
  g->total = std::max(total, n);
  g->sourceIndex = std::move(sourceIndex);
  g->values = std::move(values);
  const float* v = g->values ? g->values->data() : nullptr;
  if (!v || n <= 0 || d <= 0) {
    g->n = 0;
    return g;
  }
  g->projection = fitProjection(v, n, d, twoD ? 2 : 3);
  g->xyz = applyProjection(g->projection, v, n);
  g->order = drawOrder(n);
  g->bounds = computeBounds(g->xyz);
  return g;
}

}  // namespace kernellab::widgets::cloud
