// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 14), not part of the product: on the seed generator's data, what
// Hamerly's two tests decide in the pruned k-means' pruned iterations, and what tracking each
// point's second-nearest center would add. Exact (double) distances of every point to every
// center in every iteration of Lloyd from first-K centers, the GPU engine's schedule replayed
// (warm iterations while more than 1 % of the labels change, then the start, then pruned ones):
//  - halfOnly: points the half-distance test (u <= half) decides that the lower bound l does not,
//    before and after tightening: 0-1 per iteration at N = 1e6 (so the pruned iterations may carry
//    a half bound over instead of measuring the K^2 center distances each time);
//  - hamerlyList: points still open after tightening (the list of the full decision);
//  - top2List: of those, the ones that would stay open with the second-nearest center b and a
//    lower bound l3 for every other center kept (d(x, b) measured too): about half the list.
// Build (after the project's build-gpu/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kmeans_bound_tests.cpp build-gpu/gpu/libkernellab_gpu.a -o bound_tests
// Run: ./bound_tests [N]   (N = 1e6: ~2.5 min and 1.6 GB on two cores)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kernellab/clustering.h"

using kernellab::clustering::generateSeedPoints;

int main(int argc, char** argv) {
  const int64_t n = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const int k = 100, d = 200;
  const auto s = generateSeedPoints(n, k, d, 1000.0, 1);  // the CLI's defaults: radius, seed
  const float* X = s.values.data();
  std::vector<double> C(size_t(k) * d);
  for (int c = 0; c < k; ++c)
    for (int j = 0; j < d; ++j) C[size_t(c) * d + j] = X[size_t(c) * d + j];  // first-K
  std::vector<int> label(n, -1), second(n, -1), next(n);
  std::vector<double> u(n), l(n), l3(n), drift(k, 0.0), dist(size_t(n) * k);
  std::vector<float> Cf(size_t(k) * d);
  enum { Warm, Start, Pruned } mode = Warm;
  for (int it = 1; it <= 300; ++it) {
    for (size_t i = 0; i < C.size(); ++i) Cf[i] = float(C[i]);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; ++i)
      for (int c = 0; c < k; ++c) {
        float part[8] = {};  // eight sums: vectorizes
        for (int j = 0; j < d; j += 8)
          for (int q = 0; q < 8; ++q) {
            const float t = X[size_t(i) * d + j + q] - Cf[size_t(c) * d + j + q];
            part[q] += t * t;
          }
        double sum = 0;
        for (float p : part) sum += p;
        dist[size_t(i) * k + c] = std::sqrt(sum);
      }
    // The moves: each center's drift, the largest of the others', the half distances.
    std::vector<int> byDrift(k);
    for (int c = 0; c < k; ++c) byDrift[c] = c;
    std::partial_sort(byDrift.begin(), byDrift.begin() + 3, byDrift.end(),
                      [&](int a, int b) { return drift[a] > drift[b]; });
    auto largestBut = [&](int a, int b) {
      for (int q = 0; q < 3; ++q)
        if (byDrift[q] != a && byDrift[q] != b) return drift[byDrift[q]];
      return 0.0;
    };
    std::vector<double> half(k, INFINITY);
    for (int a = 0; a < k; ++a)
      for (int c = 0; c < k; ++c)
        if (c != a) {
          double sq = 0;
          for (int j = 0; j < d; ++j) sq += (C[a * d + j] - C[c * d + j]) * (C[a * d + j] - C[c * d + j]);
          half[a] = std::min(half[a], 0.5 * std::sqrt(sq));
        }
    long changed = 0, halfOnly = 0, halfOnlyTightened = 0, hamerlyList = 0, top2List = 0;
    for (int64_t i = 0; i < n; ++i) {
      const double* di = &dist[size_t(i) * k];
      int b1 = 0;
      for (int c = 1; c < k; ++c)
        if (di[c] < di[b1]) b1 = c;
      int b2 = b1 == 0 ? 1 : 0;
      for (int c = 0; c < k; ++c)
        if (c != b1 && di[c] < di[b2]) b2 = c;
      double d3 = INFINITY;
      for (int c = 0; c < k; ++c)
        if (c != b1 && c != b2) d3 = std::min(d3, di[c]);
      next[i] = b1;
      changed += label[i] != b1;
      bool full = true;
      if (mode == Pruned) {
        const int a = label[i];
        double ui = u[i] + drift[a];
        const double li = l[i] - largestBut(a, -1), l3i = l3[i] - largestBut(a, second[i]);
        bool holds = ui <= std::max(li, half[a]);
        halfOnly += holds && !(ui <= li);
        if (!holds) {
          ui = di[a];  // tightened
          holds = ui <= std::max(li, half[a]);
          halfOnlyTightened += holds && !(ui <= li);
        }
        hamerlyList += !holds;
        const bool top2 = !holds && second[i] >= 0 && std::min(ui, di[second[i]]) <= l3i;
        top2List += !holds && !top2;
        full = !holds && !top2;
        if (holds) {
          u[i] = ui;
          l[i] = li;
          l3[i] = l3i;
        } else if (top2) {
          u[i] = di[b1];
          l[i] = std::min(di[b2], l3i);
          second[i] = b2;
          l3[i] = l3i;
        }
      }
      if (full) {
        u[i] = di[b1];
        l[i] = di[b2];
        second[i] = b2;
        l3[i] = d3;
      }
    }
    std::printf("iteration %3d %-6s changed %7ld  halfOnly %5ld  halfOnlyTightened %5ld  "
                "hamerlyList %7ld  top2List %7ld\n",
                it, mode == Warm ? "warm" : mode == Start ? "start" : "pruned", changed, halfOnly,
                halfOnlyTightened, hamerlyList, top2List);
    std::fflush(stdout);
    label = next;
    if (changed == 0) break;
    mode = mode == Warm ? (changed > 0.01 * n ? Warm : Start) : Pruned;
    std::vector<double> S(size_t(k) * d, 0.0);
    std::vector<int64_t> count(k, 0);
    for (int64_t i = 0; i < n; ++i) {
      ++count[label[i]];
      for (int j = 0; j < d; ++j) S[size_t(label[i]) * d + j] += X[size_t(i) * d + j];
    }
    for (int c = 0; c < k; ++c) {
      double sq = 0;
      for (int j = 0; j < d; ++j) {
        const double v = count[c] ? S[size_t(c) * d + j] / count[c] : C[size_t(c) * d + j];
        sq += (v - C[size_t(c) * d + j]) * (v - C[size_t(c) * d + j]);
        C[size_t(c) * d + j] = v;
      }
      drift[c] = std::sqrt(sq);
    }
  }
}
