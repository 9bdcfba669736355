// SPDX-License-Identifier: MIT
// The pruned k-means (issue 15): Hamerly's bounds with proven rounding margins, shared by the
// CUDA engine (kmeans_pruned.cu) and the CPU implementation (kmeans_pruned_cpu.cpp), so both skip
// the same kind of point for the same reason.
//
// Every point keeps its label a, an upper bound u >= d(x, c_a) and a lower bound l <= d(x, c) for
// every other center c (distances, not squared). When the centers move, u grows by a's drift and l
// shrinks by the largest drift of the other centers; the point keeps its label without reading a
// coordinate when u < max(l, s_a), s_a being half the distance from c_a to its nearest other center
// (then d(x, c) >= d(c_a, c) - d(x, c_a) > 2 s_a - u > u for every c != a). The inequality is
// strict, so c_a is the unique nearest center in exact arithmetic: the label of plain Lloyd, which
// also decides in (nearly) exact arithmetic. A point that fails the test first re-computes u
// (its own center only: one distance); only if it still fails are all K distances computed.
//
// Those distances are floats (sum of (x_q - c_q)^2 with fused multiply-adds in any order): the
// exact squared distance e and the float one f satisfy |f - e| <= gamma e with gamma =
// (D + 2) 2^-24 / (1 - (D + 2) 2^-24) (one rounding of the difference, its square's and the sum's,
// at most D + 2 per term), plus an absolute D 2^-126 for underflow. From f the exact distance lies
// in [lowerDistance(f), upperDistance(f)]. The float arg-min b is the label when b's upper end is
// below every other center's lower end; otherwise the centers whose lower end reaches b's upper end
// are re-decided in double with the CPU reference's arithmetic (exactSquaredDistance), the lowest
// index at equal distance. The bounds of the result come from the same intervals, so they are
// proven whichever way the point was decided.
//
// The centers are floats (the means of double sums, rounded), as the best engine's; the drifts and
// half-distances are computed in double from those floats and rounded outwards to float.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

#include "kernellab/hd.h"

namespace kernellab::clustering {

// gamma for D dimensions, with a little room (1 %) for the double arithmetic that uses it.
KL_HD double prunedDistanceGamma(int d) {
  const double g = double(d + 2) * 5.9604644775390625e-8;  // 2^-24
  return 1.01 * g / (1.0 - g);
}

// Underflow room of a D-dimensional float distance: D times the smallest normal float.
KL_HD double prunedUnderflowSlack(int d) { return double(d) * 1.1754943508222875e-38; }

// The float nearest to v that is not below it (not above it): bounds stay bounds as floats.
KL_HD float floatUp(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) < v) f = nextafterf(f, INFINITY);
  return f;
}
KL_HD float floatDown(double v) {
  float f = static_cast<float>(v);
  if (static_cast<double>(f) > v) f = nextafterf(f, -INFINITY);
  return f;
}

// The exact distance (not squared) lies in [lowerDistance(f), upperDistance(f)] for a float
// squared distance f. Not finite f (an overflow, a NaN coordinate): [0, inf], which decides
// nothing and sends the point to the double re-decision.
KL_HD double lowerDistance(float f, double gamma, double slack) {
  if (!(f <= 3.4028234663852886e38f)) return 0.0;  // inf or NaN
  const double e = double(f) / (1.0 + gamma) - slack;
  return e > 0.0 ? sqrt(e) * (1.0 - 1e-15) : 0.0;
}
KL_HD double upperDistance(float f, double gamma, double slack) {
  if (!(f <= 3.4028234663852886e38f)) return INFINITY;
  return sqrt((double(f) + slack) / (1.0 - gamma)) * (1.0 + 1e-15);
}

// One step of the reference's sum, a + t * t with two roundings: nvcc would contract it into a
// fused multiply-add (one rounding), which the host build (x86-64 without FMA) does not, and the
// two sides must rank a tie decided by the last bit the same way.
KL_HD double addSquare(double a, double t) {
#ifdef __CUDA_ARCH__
  return __dadd_rn(a, __dmul_rn(t, t));
#else
  return a + t * t;
#endif
}

// The squared distance in double with the CPU reference's order (two accumulators over pairs of
// dimensions), so the re-decision ranks centers as the reference does. x and c: D floats each,
// x's dimensions `stride` floats apart (1: point-major; N: dimension-major).
KL_HD double exactSquaredDistance(const float* x, int64_t stride, const float* c, int d) {
  double a0 = 0, a1 = 0;
  int q = 0;
  for (; q + 2 <= d; q += 2) {
    a0 = addSquare(a0, double(c[q]) - double(x[q * stride]));
    a1 = addSquare(a1, double(c[q + 1]) - double(x[(q + 1) * stride]));
  }
  if (q < d) a0 = addSquare(a0, double(c[q]) - double(x[q * stride]));
  return a0 + a1;
}

// A point's state between iterations.
struct PrunedPointBounds {
  float upper;  // >= d(x, c_label)
  float lower;  // <= d(x, c) for every c != label
};

// What the centers' move gives every point of a cluster: the center's drift (rounded up), the
// largest drift among the other centers (rounded up) and half the distance to the nearest other
// center (rounded down).
struct PrunedCenterMove {
  float drift;
  float otherDrift;
  float half;
};

// Applies a move to a point's bounds; returns true when the point keeps its label unread.
KL_HD bool prunedBoundsHold(PrunedPointBounds& b, const PrunedCenterMove& m) {
  b.upper = floatUp(double(b.upper) + double(m.drift));
  b.lower = floatDown(double(b.lower) - double(m.otherDrift));
  const float z = b.lower > m.half ? b.lower : m.half;
  return b.upper < z;
}

// True when the tightened upper bound (the point's own center re-measured) decides it.
KL_HD bool prunedTightenedHolds(float upper, const PrunedPointBounds& b, const PrunedCenterMove& m) {
  const float z = b.lower > m.half ? b.lower : m.half;
  return upper < z;
}

// What one point cost an iteration of the pruned engine.
enum class PrunedOutcome : int {
  Skipped = 0,    // the bounds decided it: no coordinate read
  Tightened = 1,  // one distance (its own center) decided it
  Decided = 2,    // all K distances (and, near a tie, the double re-decision)
};

}  // namespace kernellab::clustering
