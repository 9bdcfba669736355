// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 23), not part of the product: how many of the points the triangle
// test leaves each sketch test rules out, on the seed generator's data (first center 0, the CLI's
// defaults), for the farthest-first traversal of the pruned k-centers:
//  - float: the sketch of sessions 15-22 (a step per dimension; the test against the new center's
//    float coordinates, d(x^, c) - e(x));
//  - code: the sketch tried in session 23 (one step for every dimension; the point's codes against
//    the center's own codes, step sqrt(S) - e(x) - e(c), S an exact integer).
// The code test loses e(c) and the finer steps of the narrower dimensions; it costs two dp4a per
// four dimensions on the GPU instead of about five float instructions per dimension. Measured on
// the H100 in session 23 (half the launches' instructions, 0.2 ms slower a run: the points it
// fails to rule out cost more than the instructions saved), so the product kept the float test;
// the code sketch's pieces are defined here.
// Build (after the project's build/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kcenters_code_sketch_tests.cpp build/gpu/libkernellab_gpu.a -llzma -o code_tests
// Run: ./code_tests [N] [D] [seed|blobs]   (N = 1e6, D = 200: a few minutes on two cores)
#include <cmath>
#include <cstdio>
#include <vector>

#include "kcenters_experiment.h"
#include "kernellab/clustering_pruning.h"

using namespace kernellab::clustering;
using experiment::dist2;

namespace {
// The code sketch's grid: each dimension's minimum, one step (the widest range over 255).
float codeStep(float widest) {
  const float step = widest / 255.0f;
  return std::isfinite(step) && step > 0.f ? step : 0.f;
}
// e(x) from the exact squared errors: rounded up by a relative 1e-6.
float codeError(double squaredError) { return float(std::sqrt(squaredError) * 1.000001); }
// The code test: step sqrt(S) - e(x) - e(c) against sqrt(r), with the float test's margins.
bool codeSkips(uint32_t codeDist, float step, float errX, float errC, float r, float margin) {
  const float lower = step * std::sqrt(float(codeDist)) * (1.0f - margin) - (errX + errC);
  return lower > 0.f && lower * lower > r * (1.0f + margin);
}
}  // namespace

int main(int argc, char** argv) {
  const auto set = experiment::dataFromArguments(argc, argv);
  if (!set) return 2;
  const int64_t n = set->n;
  const int d = set->d;
  const int k = 100;
  const float* X = set->values.data();  // point-major
  const float margin = kcentersSkipMargin(d);
  std::vector<float> x8;
  std::vector<float> e8;
  experiment::rebuild8(X, n, d, experiment::sketchScales(X, n, d), x8, e8);
  // The code sketch: one step, each dimension's minimum.
  std::vector<float> lo(d, INFINITY), hi(d, -INFINITY);
  for (int64_t i = 0; i < n; ++i)
    for (int q = 0; q < d; ++q) {
      lo[q] = std::min(lo[q], X[i * d + q]);
      hi[q] = std::max(hi[q], X[i * d + q]);
    }
  float widest = 0;
  for (int q = 0; q < d; ++q) widest = std::max(widest, hi[q] - lo[q]);
  const float step = codeStep(widest);
  std::vector<unsigned char> codes(size_t(n) * d);
  std::vector<float> ec(n);
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) {
    double e2 = 0;
    for (int q = 0; q < d; ++q) {
      SketchScale s;
      s.lo = lo[q];
      s.step = step;
      const unsigned c = sketchCode(X[i * d + q], s);
      codes[i * d + q] = static_cast<unsigned char>(c);
      e2 += sketchSquaredError(X[i * d + q], c, s);
    }
    ec[i] = codeError(e2);
  }
  std::vector<float> dist(n, INFINITY);
  std::vector<int> label(n, -1);
  int64_t c = 0;
  float rho2 = INFINITY;
  long long tScreened = 0, tFloat = 0, tCode = 0;
  std::printf("center screened pass-float pass-code\n");
  for (int j = 0; j < k; ++j) {
    const float* cr = X + c * d;
    const unsigned char* cc = &codes[c * d];
    long long screened = 0, pf = 0, pc = 0;
#pragma omp parallel for reduction(+ : screened, pf, pc)
    for (int64_t i = 0; i < n; ++i) {
      const float old = dist[i];
      bool read = j == 0 || !kcentersSkips(rho2, old, margin);
      if (read && j > 0) {
        ++screened;
        const bool f = kcentersSketchSkips(dist2(cr, &x8[i * d], d), e8[i], old, margin);
        uint32_t s = 0;
        for (int q = 0; q < d; ++q) {
          const int t = int(codes[i * d + q]) - int(cc[q]);
          s += uint32_t(t * t);
        }
        const bool g = codeSkips(s, step, ec[i], ec[c], old, margin);
        pf += f;
        pc += g;
        read = !(f || g);  // either test's skip is sound: the traversal stays exact
      }
      if (read) {
        const float sum = dist2(cr, X + i * d, d);
        if (j == 0 || sum < old) {
          dist[i] = sum;
          label[i] = j;
        }
      }
    }
    if (j > 0) std::printf("%d %lld %.4f %.4f\n", j + 1, screened, screened ? double(pf) / screened : 0.0,
                           screened ? double(pc) / screened : 0.0);
    tScreened += screened;
    tFloat += pf;
    tCode += pc;
    c = experiment::farthestPoint(dist, &rho2);
  }
  std::printf("total (centers 2..%d): screened %lld; the float sketch rules out %.4f, the code "
              "sketch %.4f (step %.6g)\n",
              k, tScreened, double(tFloat) / tScreened, double(tCode) / tScreened, double(step));
  return 0;
}
