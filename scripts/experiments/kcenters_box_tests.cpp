// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 16), not part of the product: a third test for the pruned
// k-centers, between the triangle and the 8-bit sketch, measured on the CPU. Each unit of 32
// consecutive points (a warp's points in a launch) keeps its bounding box, per dimension the
// lowest and highest coordinate of its points. Every point x of the unit lies in the box, so the
// box's distance to the new center c,
//   b(u, c)^2 = sum_q max(0, lo_uq - c_q, c_q - hi_uq)^2,
// is a lower bound of d(x, c) for all of them: a point the triangle keeps is skipped when
// kcentersSketchSkips(b^2, 0, r(x), margin) holds, the sketch test with no error (b^2 rounded
// down to a float here). One box per 32 points: 2 D floats (50 bytes per point at D = 200, 1,600
// per unit), or on the 8-bit sketch's grid, lo rounded down and hi up (2 D bytes per unit), against
// 13 x 16 + 4 = 212 bytes of sketch per screened point. Farthest-first traversal as the pruned
// variant (first center 0, K = 100), the triangle test with the exact d^2(a, c) (the product uses
// max(exact, rho2) or rho2, which leaves the same points at D = 200: kcenters_screen_tests.cpp).
// Counted over centers 2..K: screened (the triangle keeps them), boxed (the box skips them; with
// the float box and the 8-bit box), then the 8-bit sketch on the rest and the points left to read
// in float; the units with a screened point (each reads its box once); unsound skips (a box skip
// of a point that does change; expected 0). Beside the box, two balls: the unit's centroid m_u
// and radius rho_u = max ||x - m_u|| (d(x, c) >= ||m_u - c|| - rho_u, one bound per unit), and the
// same centroid with each point's own ||x - m_u|| (4 bytes per point more, one bound per point).
// Build (after the project's build-gpu/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kcenters_box_tests.cpp build-gpu/gpu/libkernellab_gpu.a -llzma -o box_tests
// Run: ./box_tests [N] [D] [seed|blobs]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kernellab/clustering.h"
#include "kcenters_experiment.h"
#include "kernellab/clustering_pruning.h"

using namespace kernellab::clustering;
using experiment::dist2;

namespace {
constexpr int kUnit = 32;

// The box's squared distance to c, in double, rounded down to a float (a lower bound).
float boxDistance(const float* lo, const float* hi, const float* c, int d) {
  double s = 0;
  for (int q = 0; q < d; ++q) {
    const double g = std::max({0.0, double(lo[q]) - c[q], double(c[q]) - hi[q]});
    s += g * g;
  }
  const float f = float(s);
  return double(f) > s ? std::nextafter(f, 0.f) : f;
}
}  // namespace

int main(int argc, char** argv) {
  const std::optional<PointSet> data = experiment::dataFromArguments(argc, argv);
  if (!data) return 2;
  const int64_t n = data->n;
  const int d = data->d;
  const int k = 100;
  const float* X = data->values.data();  // point-major
  const float margin = kcentersSkipMargin(d);
  const std::vector<SketchScale> sc = experiment::sketchScales(X, n, d);
  std::vector<float> x8, e8;
  experiment::rebuild8(X, n, d, sc, x8, e8);
  // The units' boxes: float, and on the 8-bit grid (lo down, hi up to a grid value).
  const int64_t units = (n + kUnit - 1) / kUnit;
  std::vector<float> lo(size_t(units) * d), hi(size_t(units) * d);
  std::vector<float> lo8(size_t(units) * d), hi8(size_t(units) * d);
#pragma omp parallel for
  for (int64_t u = 0; u < units; ++u) {
    const int64_t b = u * kUnit, e = std::min(n, b + kUnit);
    for (int q = 0; q < d; ++q) {
      float l = INFINITY, h = -INFINITY;
      for (int64_t i = b; i < e; ++i) {
        l = std::min(l, X[i * d + q]);
        h = std::max(h, X[i * d + q]);
      }
      lo[u * d + q] = l;
      hi[u * d + q] = h;
      const double step = sc[q].step;
      double gl = sc[q].lo, gh = sc[q].lo;
      if (step > 0) {
        gl = sc[q].lo + step * std::floor((double(l) - sc[q].lo) / step);
        gh = sc[q].lo + step * std::ceil((double(h) - sc[q].lo) / step);
      }
      // Rounded outwards to floats so the grid box still holds the float box.
      float fl = float(gl), fh = float(gh);
      if (double(fl) > gl || fl > l) fl = std::min(std::nextafter(fl, -INFINITY), l);
      if (double(fh) < gh || fh < h) fh = std::max(std::nextafter(fh, INFINITY), h);
      lo8[u * d + q] = fl;
      hi8[u * d + q] = fh;
    }
  }
  // The units' centroids (double, stored as float), radii and the points' offsets from them,
  // rounded up by a relative 1e-6 (the float centroid's rounding is far below that).
  std::vector<float> mid(size_t(units) * d), rho(units), off(n);
#pragma omp parallel for
  for (int64_t u = 0; u < units; ++u) {
    const int64_t b = u * kUnit, e = std::min(n, b + kUnit);
    for (int q = 0; q < d; ++q) {
      double m = 0;
      for (int64_t i = b; i < e; ++i) m += X[i * d + q];
      mid[u * d + q] = float(m / double(e - b));
    }
    double worst = 0;
    for (int64_t i = b; i < e; ++i) {
      double s = 0;
      for (int q = 0; q < d; ++q) {
        const double t = double(X[i * d + q]) - mid[u * d + q];
        s += t * t;
      }
      off[i] = float(std::sqrt(s) * (1 + 1e-6));
      worst = std::max(worst, double(off[i]));
    }
    rho[u] = float(worst);
  }
  long long tBallUnit = 0, tBallPoint = 0, tBadBall = 0;
  std::vector<float> dist(n, INFINITY);
  std::vector<int> label(n, -1);
  std::vector<int64_t> centers;
  int64_t c = 0;
  long long tScreened = 0, tBox = 0, tBox8 = 0, tSketchAfterBox = 0, tSketch = 0, tVisited = 0,
            tVisitedBox = 0, tVisitedBoxF = 0, tUnits = 0, tBad = 0, tBad8 = 0;
  std::printf("center screened boxFloat box8 sketchAlone visitedAlone visitedWithBox units\n");
  for (int j = 0; j < k; ++j) {
    const float* cr = X + c * d;
    const std::vector<float> cd = experiment::centerDistances(X, d, cr, centers);
    centers.push_back(c);
    long long ballUnit = 0, ballPoint = 0, badBall = 0;
    long long screened = 0, box = 0, box8 = 0, sketch = 0, sketchAfter = 0, visited = 0,
              visitedBox = 0, visitedBoxF = 0, unitCount = 0, bad = 0, bad8 = 0;
#pragma omp parallel for schedule(dynamic, 64) \
    reduction(+ : screened, box, box8, sketch, sketchAfter, visited, visitedBox, visitedBoxF, unitCount, \
                 bad, bad8, ballUnit, ballPoint, badBall)
    for (int64_t u = 0; u < units; ++u) {
      const int64_t b = u * kUnit, e = std::min(n, b + kUnit);
      bool any = false;
      float bf = 0.f, b8 = 0.f;
      double toMid = 0;  // ||m_u - c|| * (1 - 1e-6)
      for (int64_t i = b; i < e; ++i) {
        const float old = dist[i];
        const int a = label[i];
        const bool kept = j == 0 || !kcentersSkips(cd[a], old, margin);
        const float s = dist2(cr, X + i * d, d);
        const bool changes = j == 0 || s < old;
        if (kept && j > 0) {
          if (!any) {  // the unit's box, read once
            any = true;
            bf = boxDistance(&lo[u * d], &hi[u * d], cr, d);
            b8 = boxDistance(&lo8[u * d], &hi8[u * d], cr, d);
            double s2 = 0;
            for (int q = 0; q < d; ++q) {
              const double t = double(mid[u * d + q]) - cr[q];
              s2 += t * t;
            }
            toMid = std::sqrt(s2) * (1 - 1e-6);
          }
          ++screened;
          const bool pb = kcentersSketchSkips(bf, 0.f, old, margin);
          const bool pb8 = kcentersSketchSkips(b8, 0.f, old, margin);
          const bool ps = kcentersSketchSkips(dist2(cr, &x8[i * d], d), e8[i], old, margin);
          box += pb;
          box8 += pb8;
          sketch += ps;
          sketchAfter += !pb8 && ps;
          visited += !ps;
          visitedBox += !pb8 && !ps;
          visitedBoxF += !pb && !ps;
          bad += pb && changes;
          bad8 += pb8 && changes;
          // The balls: a lower bound L of d(x, c) skips when L^2 > r (1 + margin), as the sketch.
          const double lu = toMid - rho[u], lp = toMid - off[i];
          const bool bu = lu > 0 && lu * lu > double(old) * (1.0 + margin);
          const bool bp = lp > 0 && lp * lp > double(old) * (1.0 + margin);
          ballUnit += bu;
          ballPoint += bp;
          badBall += (bu || bp) && changes;
        }
        if (changes) {
          dist[i] = s;
          label[i] = j;
        }
      }
      unitCount += any;
    }
    std::printf("%d %lld %lld %lld %lld %lld %lld %lld\n", j + 1, screened, box, box8, sketch,
                visited, visitedBox, unitCount);
    tScreened += screened;
    tBox += box;
    tBox8 += box8;
    tSketch += sketch;
    tSketchAfterBox += sketchAfter;
    tVisited += visited;
    tVisitedBox += visitedBox;
    tVisitedBoxF += visitedBoxF;
    tUnits += unitCount;
    tBad += bad;
    tBad8 += bad8;
    tBallUnit += ballUnit;
    tBallPoint += ballPoint;
    tBadBall += badBall;
    float farthest = 0.f;
    c = experiment::farthestPoint(dist, &farthest);
  }
  std::printf("balls: the unit's ball skips %.4f of the screened points, the point's offset from "
              "the unit's centroid %.4f; unsound ball skips %lld\n",
              double(tBallUnit) / tScreened, double(tBallPoint) / tScreened, tBadBall);
  const double sketchBytes = sketchWords(d) * 16.0 + 4.0;
  const double floats = 4.0 * d;
  const double now = tScreened * sketchBytes + tVisited * floats;
  const double withBoxF = tUnits * 8.0 * d + (tScreened - tBox) * sketchBytes + tVisitedBoxF * floats;
  const double withBox8 = tUnits * 2.0 * d + (tScreened - tBox8) * sketchBytes + tVisitedBox * floats;
  std::printf("total (centers 2..%d): screened %lld; the float box skips %.4f of them, the 8-bit "
              "box %.4f; the sketch alone %.4f; visited %lld (sketch alone), %lld (8-bit box, "
              "then sketch); units read %lld; unsound box skips %lld (float) %lld (8-bit)\n",
              k, tScreened, double(tBox) / tScreened, double(tBox8) / tScreened,
              double(tSketch) / tScreened, tVisited, tVisitedBox, tUnits, tBad, tBad8);
  std::printf("bytes (sketch + floats + boxes): now %.2f GB; with the float box %.2f GB; with the "
              "8-bit box %.2f GB\n",
              now / 1e9, withBoxF / 1e9, withBox8 / 1e9);
}
