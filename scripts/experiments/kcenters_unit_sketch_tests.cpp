// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 16), not part of the product: a different sketch for the pruned
// k-centers' second test, measured next to the 8-bit one of clustering_pruning.h. Derived from
// kcenters_screen_tests.cpp (session 15): farthest-first traversal with the pruned variant's rules
// (first center 0, K = 100), the triangle test with the exact d^2(a, c), then on the points it
// leaves (screened) each sketch's test kcentersSketchSkips(d^2(c, x^), e(x), r, margin):
//  - 8-bit (pass8, visited8): the product's sketch, per dimension lo_q + step_q * code over the
//    data's range (sketchScale, sketchCode);
//  - unit-residual 4-bit (u4: passU4, visitedU4): points in units of 32 consecutive indices (the
//    last may be shorter); per unit u and dimension q the midpoint m_uq = float((lo_uq + hi_uq) / 2)
//    of the unit's range, per unit one step s_u = float(max_q (hi_uq - lo_uq)) / 15 (float); a
//    coordinate's code c in 0..15 is the nearest of m_uq + (c - 7.5) s_u (s_u = 0: code 0, value
//    m_uq);
//  - unit-residual 5-bit (u5: passU5, visitedU5): the same with codes 0..31, m_uq + (c - 15.5) s_u,
//    s_u = max range / 31.
// e(x) is the exact (double) norm of x - x^ for the float x^ the screen reads, times 1.000001 (as
// kcenters_screen_tests.cpp). visited = screened points a sketch does not rule out (their floats are
// read); changed = points that take the new center. Every screened point's exact distance is also
// measured, to count unsound skips (a sketch skipping a point that changes; expected 0).
// Bytes over the run (D dims): sketch8 = screened (13*16 + 4) at D = 200 (sketchWords(D) words of
// 16 bytes, and e(x)); u4 = screened (ceil(4D/128)*16 + 4) + units * 4D (the unit midpoints; units =
// units with a screened point, summed over centers); u5 = the same with ceil(5D/128) words; floats
// = visited * 4D (point-major).
// Build (after the project's build-gpu/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kcenters_unit_sketch_tests.cpp build-gpu/gpu/libkernellab_gpu.a
//   -llzma -o unit_tests   (the library's xz reader needs liblzma)
// Run: ./unit_tests [N] [D] [seed|blobs]   (blobs: generateBlobs with noise 0, makePoints' default;
// N = 1e6, D = 200: a minute or two and about 5 GB on two cores)
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

// A unit-residual sketch with `levels` codes (16: u4, 32: u5): the rebuilt points (float) and e(x).
void unitSketch(const float* X, int64_t n, int d, int levels, std::vector<float>& xr,
                std::vector<float>& err) {
  xr.assign(size_t(n) * d, 0.f);
  err.assign(n, 0.f);
  const int64_t units = (n + kUnit - 1) / kUnit;
  const double half = (levels - 1) / 2.0;  // 7.5 or 15.5
#pragma omp parallel for schedule(static)
  for (int64_t u = 0; u < units; ++u) {
    const int64_t b = u * kUnit, e = std::min(n, b + kUnit);
    std::vector<float> mid(d);
    double range = 0;
    for (int q = 0; q < d; ++q) {
      float lo = INFINITY, hi = -INFINITY;
      for (int64_t i = b; i < e; ++i) {
        lo = std::min(lo, X[i * d + q]);
        hi = std::max(hi, X[i * d + q]);
      }
      mid[q] = float((double(lo) + double(hi)) / 2.0);
      range = std::max(range, double(hi) - double(lo));
    }
    const float step = float(range) / float(levels - 1);
    for (int64_t i = b; i < e; ++i) {
      double s = 0;
      for (int q = 0; q < d; ++q) {
        const double x = X[i * d + q];
        float r = mid[q];
        if (step > 0.f) {
          const double t = (x - double(mid[q])) / double(step) + half;
          const int c = std::clamp(int(std::lround(t)), 0, levels - 1);
          r = float(double(mid[q]) + (c - half) * double(step));
        }
        xr[i * d + q] = r;
        s += (x - double(r)) * (x - double(r));
      }
      err[i] = float(std::sqrt(s) * 1.000001);
    }
  }
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
  // The 8-bit rebuilt points and their errors, as kcenters_screen_tests.cpp.
  std::vector<float> x8, e8;
  experiment::rebuild8(X, n, d, sc, x8, e8);
  std::vector<float> xu4, eu4, xu5, eu5;
  unitSketch(X, n, d, 16, xu4, eu4);
  unitSketch(X, n, d, 32, xu5, eu5);
  {
    double m8 = 0, m4 = 0, m5 = 0;
    for (int64_t i = 0; i < n; ++i) {
      m8 += e8[i];
      m4 += eu4[i];
      m5 += eu5[i];
    }
    std::printf("# mean e(x): 8-bit %.3f, u4 %.3f, u5 %.3f\n", m8 / n, m4 / n, m5 / n);
  }
  const int64_t nUnits = (n + kUnit - 1) / kUnit;
  std::vector<float> dist(n, INFINITY);
  std::vector<int> label(n, -1);
  std::vector<int64_t> centers;
  int64_t c = 0;
  long long tScreened = 0, tPass8 = 0, tPass4 = 0, tPass5 = 0, tV8 = 0, tV4 = 0, tV5 = 0,
            tChanged = 0, tUnits = 0, tBad8 = 0, tBad4 = 0, tBad5 = 0;
  std::printf("center screened pass8 passU4 passU5 visited8 visitedU4 visitedU5 changed\n");
  for (int j = 0; j < k; ++j) {
    const float* cr = X + c * d;
    const std::vector<float> cd = experiment::centerDistances(X, d, cr, centers);
    centers.push_back(c);
    long long exactLeft = 0, pass8 = 0, pass4 = 0, pass5 = 0, changed = 0, bad8 = 0, bad4 = 0,
              bad5 = 0;
    std::vector<char> unitHit(nUnits, 0);
#pragma omp parallel for reduction(+ : exactLeft, pass8, pass4, pass5, changed, bad8, bad4, bad5)
    for (int64_t i = 0; i < n; ++i) {
      const float old = dist[i];
      const int a = label[i];
      const bool leftExact = j == 0 || !kcentersSkips(cd[a], old, margin);
      exactLeft += leftExact;
      if (!leftExact) continue;
      bool p8 = false, p4 = false, p5 = false;
      if (j > 0) {
        unitHit[i / kUnit] = 1;
        p8 = kcentersSketchSkips(dist2(cr, &x8[i * d], d), e8[i], old, margin);
        p4 = kcentersSketchSkips(dist2(cr, &xu4[i * d], d), eu4[i], old, margin);
        p5 = kcentersSketchSkips(dist2(cr, &xu5[i * d], d), eu5[i], old, margin);
        pass8 += p8;
        pass4 += p4;
        pass5 += p5;
      }
      // Every screened point's exact distance (the unpruned pass's update; sound skips change
      // nothing), to count unsound skips.
      const float s = dist2(cr, X + i * d, d);
      if (j == 0 || s < old) {
        dist[i] = s;
        label[i] = j;
        ++changed;
        bad8 += p8;
        bad4 += p4;
        bad5 += p5;
      }
    }
    long long units = 0;
    for (int64_t u = 0; u < nUnits; ++u) units += unitHit[u];
    const long long screened = j > 0 ? exactLeft : 0;
    auto share = [&](long long p) { return screened ? double(p) / screened : 0.0; };
    std::printf("%d %lld %.4f %.4f %.4f %lld %lld %lld %lld\n", j + 1, screened, share(pass8),
                share(pass4), share(pass5), screened - pass8, screened - pass4, screened - pass5,
                changed);
    tScreened += screened;
    tPass8 += pass8;
    tPass4 += pass4;
    tPass5 += pass5;
    tV8 += screened - pass8;
    tV4 += screened - pass4;
    tV5 += screened - pass5;
    tChanged += j > 0 ? changed : 0;
    tUnits += units;
    tBad8 += bad8;
    tBad4 += bad4;
    tBad5 += bad5;
    float farthest = 0.f;
    c = experiment::farthestPoint(dist, &farthest);
  }
  const double words8 = sketchWords(d), words4 = std::ceil(d * 4 / 128.0),
               words5 = std::ceil(d * 5 / 128.0);
  const double b8 = double(tScreened) * (words8 * 16 + 4);
  const double b4 = double(tScreened) * (words4 * 16 + 4) + double(tUnits) * 4.0 * d;
  const double b5 = double(tScreened) * (words5 * 16 + 4) + double(tUnits) * 4.0 * d;
  const double f8 = double(tV8) * 4.0 * d, f4 = double(tV4) * 4.0 * d, f5 = double(tV5) * 4.0 * d;
  std::printf("total (centers 2..%d): screened %lld: pass8 %.4f, passU4 %.4f, passU5 %.4f; "
              "visited %lld (8-bit), %lld (u4), %lld (u5); changed %lld; units with a screened "
              "point %lld; unsound skips %lld/%lld/%lld; bytes: 8-bit sketch %.2f GB + floats "
              "%.2f GB = %.2f GB; u4 sketch %.2f GB + floats %.2f GB = %.2f GB; u5 sketch %.2f GB "
              "+ floats %.2f GB = %.2f GB\n",
              k, tScreened, double(tPass8) / tScreened, double(tPass4) / tScreened,
              double(tPass5) / tScreened, tV8, tV4, tV5, tChanged, tUnits, tBad8, tBad4, tBad5,
              b8 / 1e9, f8 / 1e9, (b8 + f8) / 1e9, b4 / 1e9, f4 / 1e9, (b4 + f4) / 1e9, b5 / 1e9,
              f5 / 1e9, (b5 + f5) / 1e9);
}
