// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 15), not part of the product: what the pruned k-centers' tests
// decide on the seed generator's data (first center 0, the CLI's defaults), to choose what to
// change in the GPU launch. Farthest-first traversal with the pruned variant's rules
// (clustering_pruning.h), every point's distance also measured in full to count:
//  - bound: points the triangle test leaves with the exact d^2(a, c) against the lower bound
//    rho2 = the squared distance that chose c, for every earlier center a (rho2 is free; the
//    exact distances cost the GPU's last block up to 13 L2 round trips per center);
//  - sketch: of the points the triangle test leaves (screened), the share the 8-bit sketch rules
//    out (pass8), the share a 4-bit sketch would (the codes' high nibbles: pass4), and the points
//    left to read in floats with the 8-bit sketch (visited8), with a 16-bit refinement of it
//    (visited16) and the points that do change cluster (changed); the floats of the read points
//    are counted in 32-byte sectors of the dimension-major layout (the GPU's DRAM traffic).
// Build (after the project's build-gpu/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kcenters_screen_tests.cpp build-gpu/gpu/libkernellab_gpu.a -llzma -o screen_tests
// Run: ./screen_tests [N] [D]   (N = 1e6, D = 200: about a minute and 4 GB on two cores)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernellab/clustering.h"
#include "kcenters_experiment.h"
#include "kernellab/clustering_pruning.h"

using namespace kernellab::clustering;
using experiment::dist2;

namespace {
// A coordinate rebuilt from its 8-bit code's high nibble (the middle of its 16 codes).
double coarse(SketchScale s, unsigned code) {
  return double(s.lo) + double(s.step) * ((code & 0xF0u) + 7.5);
}
}  // namespace

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const int d = argc > 2 ? std::atoi(argv[2]) : 200;
  const int k = 100;
  const auto set = generateSeedPoints(n, k, d, 1000.0, 1);
  const float* X = set.values.data();  // point-major
  const float margin = kcentersSkipMargin(d);
  const std::vector<SketchScale> sc = experiment::sketchScales(X, n, d);
  // Rebuilt points (8-bit, 4-bit, 16-bit: the 8-bit one plus a signed byte of step / 256) and
  // their exact errors (the slack of clustering_pruning.h is far below them at this scale).
  std::vector<float> x8(size_t(n) * d), x4(size_t(n) * d), x16(size_t(n) * d);
  std::vector<float> e8(n), e4(n), e16(n);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    double s8 = 0, s4 = 0, s16 = 0;
    for (int q = 0; q < d; ++q) {
      const float x = X[i * d + q];
      const unsigned c = sketchCode(x, sc[q]);
      const double r8 = double(sc[q].lo) + double(sc[q].step) * c, r4 = coarse(sc[q], c);
      const double sub = double(sc[q].step) / 256.0;
      const double r16 = r8 + sub * std::clamp(int(std::lround((x - r8) / sub)), -128, 127);
      x8[i * d + q] = float(r8);
      x4[i * d + q] = float(r4);
      x16[i * d + q] = float(r16);
      s8 += (x - r8) * (x - r8);
      s4 += (x - r4) * (x - r4);
      s16 += (x - r16) * (x - r16);
    }
    e8[i] = float(std::sqrt(s8) * 1.000001);
    e4[i] = float(std::sqrt(s4) * 1.000001);
    e16[i] = float(std::sqrt(s16) * 1.000001) + 1e-3f;
  }
  std::vector<float> dist(n, INFINITY);
  std::vector<int> label(n, -1);
  std::vector<int64_t> centers;
  int64_t c = 0;
  float rho2 = INFINITY;
  long long tExact = 0, tRho = 0, tScreened = 0, tPass8 = 0, tPass4 = 0, tV8 = 0, tV16 = 0,
            tChanged = 0;
  double tSectors8 = 0, tSectors16 = 0;
  std::printf("center screened(exact) screened(rho2) pass8 pass4 visited8 visited16 changed "
              "float-sectors8(MB) float-sectors16(MB)\n");
  for (int j = 0; j < k; ++j) {
    const float* cr = X + c * d;
    const std::vector<float> cd = experiment::centerDistances(X, d, cr, centers);
    centers.push_back(c);
    long long exactLeft = 0, rhoLeft = 0, pass8 = 0, pass4 = 0, v8 = 0, v16 = 0, changed = 0;
    std::vector<char> sec8(n / 8 + 1, 0), sec16(n / 8 + 1, 0);
#pragma omp parallel for reduction(+ : exactLeft, rhoLeft, pass8, pass4, v8, v16, changed)
    for (int64_t i = 0; i < n; ++i) {
      const float old = dist[i];
      const int a = label[i];
      const bool leftExact = j == 0 || !kcentersSkips(cd[a], old, margin);
      rhoLeft += j == 0 || !kcentersSkips(rho2, old, margin);
      exactLeft += leftExact;
      bool read = leftExact;
      if (leftExact && j > 0) {
        const bool p8 = kcentersSketchSkips(dist2(cr, &x8[i * d], d), e8[i], old, margin);
        pass8 += p8;
        pass4 += kcentersSketchSkips(dist2(cr, &x4[i * d], d), e4[i], old, margin);
        if (!p8) {
          ++v8;
          sec8[i >> 3] = 1;
          if (!kcentersSketchSkips(dist2(cr, &x16[i * d], d), e16[i], old, margin)) {
            ++v16;
            sec16[i >> 3] = 1;
          }
        }
        read = !p8;
      }
      if (read) {
        const float s = dist2(cr, X + i * d, d);
        if (j == 0 || s < old) {
          dist[i] = s;
          label[i] = j;
          ++changed;
        }
      }
    }
    double s8 = 0, s16 = 0;
    for (size_t z = 0; z < sec8.size(); ++z) {
      s8 += sec8[z];
      s16 += sec16[z];
    }
    s8 *= 32.0 * d / 1e6;
    s16 *= 32.0 * d / 1e6;
    const long long screened = j > 0 ? exactLeft : 0;
    std::printf("%d %lld %lld %.4f %.4f %lld %lld %lld %.1f %.1f\n", j + 1, screened, rhoLeft,
                screened ? double(pass8) / screened : 0.0, screened ? double(pass4) / screened : 0.0,
                v8, v16, changed, s8, s16);
    tExact += exactLeft;
    tRho += rhoLeft;
    tScreened += screened;
    tPass8 += pass8;
    tPass4 += pass4;
    tV8 += v8;
    tV16 += v16;
    tChanged += j > 0 ? changed : 0;
    tSectors8 += s8;
    tSectors16 += s16;
    c = experiment::farthestPoint(dist, &rho2);
  }
  std::printf("total (centers 2..%d): left by the triangle test %lld (exact d^2(a, c)) / %lld "
              "(rho2 only); screened %lld: pass8 %.4f, pass4 %.4f; visited %lld (8-bit), %lld "
              "(16-bit refinement), changed %lld; float sectors %.2f GB (8-bit), %.2f GB (16-bit)\n",
              k, tExact - n, tRho - n, tScreened, double(tPass8) / tScreened,
              double(tPass4) / tScreened, tV8, tV16, tChanged, tSectors8 / 1e3, tSectors16 / 1e3);
}
