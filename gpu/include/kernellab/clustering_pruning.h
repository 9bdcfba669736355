// SPDX-License-Identifier: MIT
// The pruning tests of the pruned clustering variants (issue 15), shared by their CUDA kernels
// and their CPU implementations, so both skip exactly the same points.
//
// k-centers: a point x at squared distance r from its center a cannot move to a new center c when
// d(a, c) >= 2 d(x, a) (triangle inequality: d(x, c) >= d(a, c) - d(x, a) >= d(x, a)), i.e. when
// d^2(a, c) >= 4 r. Both r and d^2(a, c) are rounded floats, and the unpruned kernel compares
// rounded distances, so the test keeps a relative margin well above their rounding: with
// d^2(a, c) > 4 r (1 + margin), d(x, c) exceeds d(x, a) by a relative margin / 2 (about), far more
// than the (D + 2) 2^-24 relative error of a float distance of D dimensions; so the unpruned kernel
// would not have moved x either, and the pruned run's centers, labels and distances are the same
// bits as the unpruned one's.
//
// The 8-bit sketch (the second test): a point the triangle inequality cannot rule out is next
// tested on a copy of its coordinates rounded to 8 bits per dimension (per dimension q: lo_q +
// step_q * code, codes 0..255 over about the data's range: a point beyond it gets the end code),
// a quarter of the bytes. With e(x) >= the
// exact distance from x to its sketch x^ (kept per point, rounded up), d(x, c) >= d(x^, c) - e(x),
// so the point is skipped when d(x^, c) - e(x) > d(x, a) (1 + margin): again one the unpruned pass
// would not have moved. Only the points that survive both tests read their float coordinates.
// The triangle test rules out what is near its own center; the sketch rules out what is far from
// every center (a cluster still without one), where in many dimensions all distances are about
// equal and the triangle inequality, losing d(x, a) twice, cannot decide.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernellab/hd.h"

namespace kernellab::clustering {

// The k-centers skip margin for D dimensions: 1e-3, or 16 times the float distance's relative
// error bound when that is larger (D above about 1000).
inline float kcentersSkipMargin(int d) {
  return std::max(1e-3f, 16.0f * static_cast<float>(d + 2) / 16777216.0f);
}

// True when the new center (at squared distance centerDist from the point's center) cannot take
// the point (at squared distance r from its center). NaN never skips.
KL_HD bool kcentersSkips(float centerDist, float r, float margin) {
  return centerDist > 4.0f * r * (1.0f + margin);
}

// The center distance the triangle test compares with, for a new center c chosen as the farthest
// point at squared distance rho2 from its own nearest center: no earlier center a is nearer to c
// than that one, so d^2(a, c) >= rho2 for every a (rho2 is a rounded float distance like r, and
// the margin above covers it). The exact d^2(a, c) can only be larger, and is worth its cost
// where centers are far apart compared with the radius, as in few dimensions (seed generator, K =
// 100, N = 1e6, centers 2-100: D = 2, 7.5 M points left for the sketch with the exact distances,
// 40.6 M with rho2 alone; D = 50 and D = 200, the same 49.5 M with either: in many dimensions the
// distances between clusters are about equal; counts in
// docs/data/cpu-kcenters-screen-tests-2026-12-06-s15.txt). So the exact distances are measured
// only while the K x D values they need stay small: the pruned engines' last step before a center
// (the GPU's last block) does it serially while every other SM waits, up to 13 L2 round trips per
// center at K = 100, D = 200.
constexpr int64_t kKCentersExactBudget = 8192;  // centers x dimensions, 32 KB of floats

// True when the test for the center that follows `centers` chosen ones uses the exact distances.
KL_HD bool kcentersExactCenterDistances(int centers, int d) {
  return static_cast<int64_t>(centers) * d <= kKCentersExactBudget;
}

// The test's d^2(a, c): the exact one where measured, never below rho2. NaN in either gives NaN
// (never skips).
KL_HD float kcentersCenterBound(float exact, bool measured, float rho2) {
  if (!measured) return rho2;
  if (!(exact == exact) || !(rho2 == rho2)) return exact + rho2;
  return exact > rho2 ? exact : rho2;
}

// The sketch's grid comes from the ranges of every kSketchRangeSample-th run of points (on CUDA a
// run is 128 points): about the data's range at an eighth of the reads; a point beyond it gets the
// end code and an e(x) that says so.
constexpr int kSketchRangeSample = 8;

// Codes are packed 16 dimensions per 16 bytes (a uint4 on the GPU): dimension q of point i is byte
// q % 16 of word (q / 16) * n + i, so a warp's 32 points read 512 contiguous bytes per word.
constexpr int kSketchDims = 16;
KL_HD int sketchWords(int d) { return (d + kSketchDims - 1) / kSketchDims; }

// One dimension's sketch grid: lo + step * code. step = 0 (one value, or no finite value) codes
// every point 0.
struct SketchScale {
  float lo = 0.f;
  float step = 0.f;
};

// x - x is 0 exactly when x is finite (NaN and infinities give NaN): no <cmath> needed on either side.
KL_HD bool sketchFinite(float x) { return x - x == 0.f; }

// The grid over a dimension's finite range [lo, hi] (lo > hi: no finite value).
KL_HD SketchScale sketchScale(float lo, float hi) {
  SketchScale s;
  if (!(lo <= hi)) return s;
  s.lo = lo;
  const float step = (hi - lo) / 255.0f;
  s.step = sketchFinite(step) ? step : 0.f;  // a range beyond float: no sketch for it
  return s;
}

// The nearest code of x (0 for NaN; the ends for values beyond the range).
KL_HD unsigned sketchCode(float x, SketchScale s) {
  if (!(s.step > 0.f)) return 0u;
  const float t = (x - s.lo) / s.step;
  if (!(t > 0.f)) return 0u;  // NaN included
  if (t >= 255.f) return 255u;
  return static_cast<unsigned>(t + 0.5f);
}

// The per-point slack added to every sketch error, from the sum of the grid's squared ranges
// (255 step)^2: the screen computes each difference as fl(fl(c - lo) - step * code) (fused or
// not), off the exact c - x^ by at most 2^-24 (|c - lo| + |c - x^|) <= 2^-24 (2 |c - x^| + range):
// a part relative to the difference itself, which the margin covers, and at most 8 ulps of the
// grid's range, which this covers, wherever the center lies (the grid may come from a sample of
// the points, so a center may lie beyond it; a center with a non-finite coordinate gives a NaN or
// infinite screen distance, and an infinite one is right to skip: the unpruned distance is
// infinite too). A tiny absolute term over D dimensions.
KL_HD double sketchArithmeticSlack(double squaredRanges) {
  return 8.0 * sqrt(squaredRanges) / 16777216.0;
}

// The error bound e(x) from the exact squared coordinate errors (summed in double) and the slack:
// rounded up to a float; infinite when x has a non-finite coordinate (its sketch rules out
// nothing).
KL_HD float sketchErrorBound(double squaredError, double slack, bool finite) {
  if (!finite || !(squaredError - squaredError == 0.0)) return INFINITY;
  const double e = (sqrt(squaredError) + slack) * (1.0 + 1e-6) + 1e-30;
  const float f = static_cast<float>(e);
  return static_cast<double>(f) >= e ? f : nextafterf(f, INFINITY);
}

// The exact squared error of one coordinate against its code (double: lo + step * code has at
// most 24 + 8 significant bits, so the product is exact).
KL_HD double sketchSquaredError(float x, unsigned code, SketchScale s) {
  const double e = double(x) - (double(s.lo) + double(s.step) * double(code));
  return e * e;
}

// True when the sketch proves the new center cannot take the point: screenDist is the float sum
// of squared differences between the center and the point's sketch (relative error at most
// (D + 2) 2^-24, below the margin), err the point's e(x), r its squared distance to its center.
// NaN never skips.
KL_HD bool kcentersSketchSkips(float screenDist, float err, float r, float margin) {
  const float lower = sqrtf(screenDist) * (1.0f - margin) - err;  // <= d(x, c), with room
  return lower > 0.f && lower * lower > r * (1.0f + margin);
}

}  // namespace kernellab::clustering
