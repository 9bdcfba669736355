// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 24), not part of the product: several centers per pass of the
// pruned k-centers, chosen ahead from the farthest points, counted on the CPU.
//
// The farthest-first traversal picks center j + 1 as the farthest point after center j. Given a
// set S of candidate points and T, the largest distance of any point outside S, the next centers
// can be found from S alone as long as the farthest candidate (its distance brought up to date with
// the centers chosen so far) is strictly farther than T: no point outside S can be farther, since
// distances only shrink. Each such center then needs its distances to S only (|S| x D), and the pass
// over all N points tests them against the whole batch at once: a point's sketch is read once for
// every center of the batch that its triangle test (against its label as updated by the batch's
// earlier centers, the sequential order) cannot decide, and its floats once.
//
// Two ways to list the candidates: the M farthest points (what a threshold from a histogram of the
// current distances gives, to a bin), or (lagged) the points above a threshold chosen from the
// previous pass's histogram, which would save the plan's scan of every distance: at N = 1e5 it
// took 34 passes against 17, as each batch takes most of the points the threshold was chosen for.
// The CUDA design tried in session 24 (docs/data/device-logs/2026-12-07-s24-several-centers-a-
// pass-verified-slower-then-reworked-not-run.patch; not in the product) lists the points above a
// threshold from the current pass's histogram, at most 4096, and takes at most 8 centers a pass.
// Counted per pass, for a candidate set of the M farthest points (M from the command line): the
// centers it chose, the points whose sketch it read (once) and the sketch distances computed (one
// per center and point), the points whose floats it read; then the totals against one center a
// pass (the product today). The centers are checked against the plain traversal's.
// Build (after the project's build/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kcenters_batch_tests.cpp build/gpu/libkernellab_gpu.a -llzma -o batch
// Run: ./batch [N] [D] [seed|blobs] [M] [most centers a pass] [lagged 0|1]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "kcenters_experiment.h"
#include "kernellab/clustering_pruning.h"

using namespace kernellab::clustering;
using experiment::dist2;

namespace {
uint32_t bitsOf(float x) {
  uint32_t b;
  std::memcpy(&b, &x, 4);
  return b;
}
float valueOf(uint32_t b) {
  float x;
  std::memcpy(&x, &b, 4);
  return x;
}
// The farthest of the candidates (lowest index on a tie); -1 when none.
int farthestCandidate(const std::vector<int64_t>& cand, const std::vector<float>& v) {
  int best = -1;
  for (size_t t = 0; t < cand.size(); ++t)
    if (best < 0 || v[t] > v[best] || (v[t] == v[best] && cand[t] < cand[best])) best = int(t);
  return best;
}
}  // namespace

int main(int argc, char** argv) {
  const auto set = experiment::dataFromArguments(argc, argv);
  if (!set) return 2;
  const int64_t n = set->n;
  const int d = set->d;
  const int k = 100;
  const int64_t m = argc > 4 ? std::atoll(argv[4]) : 4096;
  const int most = argc > 5 ? std::atoi(argv[5]) : 8;
  const bool lagged = argc > 6 && std::atoi(argv[6]) != 0;
  float tau = INFINITY, bound = 0;
  const float* X = set->values.data();
  const float margin = kcentersSkipMargin(d);
  std::vector<float> x8, e8;
  experiment::rebuild8(X, n, d, experiment::sketchScales(X, n, d), x8, e8);

  // The plain traversal's centers, for the check.
  std::vector<int64_t> plain;
  {
    std::vector<float> dist(n, INFINITY);
    int64_t c = 0;
    float rho2 = 0;
    for (int j = 0; j < k; ++j) {
      plain.push_back(c);
      const float* cr = X + c * d;
#pragma omp parallel for
      for (int64_t i = 0; i < n; ++i) dist[i] = std::min(dist[i], dist2(cr, X + i * d, d));
      c = experiment::farthestPoint(dist, &rho2);
    }
  }

  std::vector<float> dist(n, INFINITY);
  std::vector<int64_t> centers;
  // Center 0 alone (every point reads its floats).
#pragma omp parallel for
  for (int64_t i = 0; i < n; ++i) dist[i] = dist2(X, X + i * d, d);
  centers.push_back(0);
  for (int64_t i = 0; i < n; ++i) bound = std::max(bound, dist[i]);
  long long passes = 1, sketchPoints = 0, sketchPairs = 0, floatPoints = 0, floatPairs = 0;
  std::printf("# M = %lld, at most %d centers a pass\n", (long long)m, most);
  std::printf("pass first-center centers sketch-points sketch-pairs float-points\n");
  while (int(centers.size()) < k) {
    // The candidates: the M farthest points (lowest index first on ties), T the next one's value;
    // or (lagged) every point above a threshold chosen from the previous pass's histogram, none
    // (a batch of one) when more than M are above it.
    std::vector<int64_t> cand;
    float T = INFINITY;
    if (!lagged) {
      std::vector<int64_t> order(n);
      for (int64_t i = 0; i < n; ++i) order[i] = i;
      const auto farther = [&](int64_t a, int64_t b) {
        return dist[a] > dist[b] || (dist[a] == dist[b] && a < b);
      };
      const int64_t mm = std::min<int64_t>(m, n - 1);
      std::nth_element(order.begin(), order.begin() + mm, order.end(), farther);
      T = dist[order[mm]];
      cand.assign(order.begin(), order.begin() + mm);
    } else {
      for (int64_t i = 0; i < n; ++i)
        if (dist[i] > tau) cand.push_back(i);
      if (int64_t(cand.size()) > m) cand.clear();  // overflow: the global farthest alone
      else T = tau;
      // The next threshold from this state's histogram: 256 bins of 1/64 octave below the bound.
      const uint32_t top = bitsOf(bound);
      std::vector<long long> hist(256, 0);
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t b = bitsOf(dist[i]);
        const uint32_t key = b >= top ? 0u : top - b;
        if ((key >> 17) < 256) ++hist[key >> 17];
      }
      long long sum = 0;
      int last = -1;
      for (int b = 0; b < 256; ++b) {
        if (sum + hist[b] > m / 2) break;
        sum += hist[b];
        last = b;
      }
      tau = last < 0 ? INFINITY : valueOf(top - ((uint32_t(last) + 1u) << 17));
    }
    const int64_t mm = int64_t(cand.size());
    if (mm == 0) {  // the global farthest alone
      float rho2 = 0;
      cand.push_back(experiment::farthestPoint(dist, &rho2));
    }
    std::vector<float> v(cand.size());
    for (size_t t = 0; t < cand.size(); ++t) v[t] = dist[cand[t]];
    // The batch: the first is the global farthest; then each next one while it is provably so.
    std::vector<int64_t> batch;
    std::vector<float> batchRho;
    while (int(batch.size()) < most && int(centers.size() + batch.size()) < k) {
      const int b = farthestCandidate(cand, v);
      if (b < 0) break;
      if (!batch.empty() && !(v[b] > T)) break;
      batch.push_back(cand[b]);
      batchRho.push_back(v[b]);
      const float* cr = X + cand[b] * d;
      for (size_t t = 0; t < cand.size(); ++t) v[t] = std::min(v[t], dist2(cr, X + cand[t] * d, d));
    }
    // The pass: every point against the batch in order, the product's two tests per center.
    const int j0 = int(centers.size());
    long long sp = 0, spairs = 0, fp = 0, fpairs = 0;
#pragma omp parallel for reduction(+ : sp, spairs, fp, fpairs)
    for (int64_t i = 0; i < n; ++i) {
      bool readSketch = false, readFloat = false;
      for (size_t u = 0; u < batch.size(); ++u) {
        const float old = dist[i];
        // The triangle test with rho2 alone (the product's bound for K x D beyond its budget).
        if (kcentersSkips(batchRho[u], old, margin)) continue;
        readSketch = true;
        ++spairs;
        const float* cr = X + batch[u] * d;
        if (kcentersSketchSkips(dist2(cr, &x8[i * d], d), e8[i], old, margin)) continue;
        readFloat = true;
        ++fpairs;
        const float s = dist2(cr, X + i * d, d);
        if (s < old) dist[i] = s;
      }
      sp += readSketch;
      fp += readFloat;
    }
    std::printf("%lld %d %zu %lld %lld %lld\n", passes, j0 + 1, batch.size(), sp, spairs, fp);
    sketchPoints += sp;
    sketchPairs += spairs;
    floatPoints += fp;
    floatPairs += fpairs;
    ++passes;
    centers.insert(centers.end(), batch.begin(), batch.end());
  }
  int same = 0;
  for (int j = 0; j < k; ++j) same += centers[j] == plain[j];
  std::printf("total: %lld passes for %d centers; sketches read %lld (distances %lld), floats "
              "read %lld (distances %lld); centers equal to the plain traversal's: %d of %d\n",
              passes, k, sketchPoints, sketchPairs, floatPoints, floatPairs, same, k);
  return 0;
}
