// SPDX-License-Identifier: MIT
// Experiment (issue 15, session 17), not part of the product: a lazy pruned k-centers, measured
// on the CPU. The farthest-first traversal needs, after each new center j, only the farthest
// point. A point's stored distance r(x) (to its center as of the last center it was brought up
// to date with) is an upper bound of its distance now, so a unit of 32 consecutive points whose
// largest stored r is below the new radius T_j cannot hold the farthest point and may stay stale.
// A stale unit is brought up to date later, against every center it missed (the same comparisons
// in the same order, so the same labels and distances bit for bit), reading each point's floats
// once for all those centers instead of its 8-bit sketch once per center. The last center brings
// every unit up to date.
// Counted per center (2..K), for several rules choosing the units a center's first pass touches
// (the oracle T_j, the least any such scheme must touch; the top 1 % by bound; each of 528 blocks
// its own top 1, 2 or 4, as the CUDA engine deals units): units touched, points whose floats were
// read, lane pairs (32 x the missed centers some point of a touched unit needs after the triangle
// test with its stale label: the distances a warp computes); passes (a second when the first left
// a stale unit at or above what it found); then a check that lazy and eager give the same bits.
// Build (after the project's build-gpu/): g++ -O3 -march=native -fopenmp -std=c++17 -Igpu/include
//   scripts/experiments/kcenters_lazy_tests.cpp build-gpu/gpu/libkernellab_gpu.a -llzma -o lazy
// Run: [LAZY_MODE=m] ./lazy [N] [D] [seed|blobs]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kcenters_experiment.h"
#include "kernellab/clustering.h"
#include "kernellab/clustering_pruning.h"

using namespace kernellab::clustering;
using experiment::dist2;

namespace {
constexpr int kUnit = 32;

struct Lazy {
  std::vector<float> dist;
  std::vector<int> label;
  std::vector<int> last;      // per unit: the last center it is up to date with
  std::vector<float> upper;   // per unit: its largest stored distance
  long long floatReads = 0, lanePairs = 0, pointPairs = 0, unitsTouched = 0;
};
}  // namespace

int main(int argc, char** argv) {
  const std::optional<PointSet> data = experiment::dataFromArguments(argc, argv);
  if (!data) return 2;
  const int64_t n = data->n;
  const int d = data->d;
  const int k = 100;
  const float* X = data->values.data();
  const float margin = kcentersSkipMargin(d);
  const std::vector<SketchScale> sc = experiment::sketchScales(X, n, d);
  std::vector<float> x8, e8;
  experiment::rebuild8(X, n, d, sc, x8, e8);
  const int64_t units = (n + kUnit - 1) / kUnit;

  // The eager traversal (the product's order of work): every point against every new center.
  std::vector<float> dist(n, INFINITY);
  std::vector<int> label(n, -1);
  std::vector<int64_t> centers;
  std::vector<float> radius;  // T_j after center j
  std::vector<std::vector<double>> cdist;  // exact d^2 between centers
  long long eagerScreened = 0;
  int64_t c = 0;
  for (int j = 0; j < k; ++j) {
    const float* cr = X + c * d;
    std::vector<double> row(j + 1, 0.0);
    for (int a = 0; a < j; ++a) {
      double s = 0;
      for (int q = 0; q < d; ++q) {
        const double u = double(cr[q]) - X[centers[a] * d + q];
        s += u * u;
      }
      row[a] = s;
      cdist[a].push_back(s);
    }
    cdist.push_back(row);
    centers.push_back(c);
    long long screened = 0;
#pragma omp parallel for reduction(+ : screened)
    for (int64_t i = 0; i < n; ++i) {
      const float old = dist[i];
      const int a = label[i];
      bool read = j == 0 || !kcentersSkips(float(cdist[j][a]), old, margin);
      if (read && j > 0) {
        ++screened;
        read = !kcentersSketchSkips(dist2(cr, &x8[i * d], d), e8[i], old, margin);
      }
      if (read) {
        const float s = dist2(cr, X + i * d, d);
        if (j == 0 || s < old) {
          dist[i] = s;
          label[i] = j;
        }
      }
    }
    eagerScreened += screened;
    float t;
    c = experiment::farthestPoint(dist, &t);
    radius.push_back(t);
  }

  // Brings unit u up to date with centers last+1..j as the GPU would: each point's triangle test
  // against every missed center with its stale label and distance (order-free: a center it rules
  // out is at least as far as the stale distance, so it never wins), the unit's list of centers
  // some point needs, then every point's distance to each listed center (32 lanes each) from its
  // floats (the unit's 32 x D floats read once), the strict minimum in center order.
  const auto catchUp = [&](Lazy& z, int64_t u, int j) {
    const int from = z.last[u] + 1;
    const int64_t i0 = u * kUnit, i1 = std::min(n, (u + 1) * kUnit);
    std::vector<int> list;
    for (int m = from; m <= j; ++m) {
      bool any = false;
      for (int64_t i = i0; i < i1 && !any; ++i)
        any = !kcentersSkips(float(cdist[m][z.label[i]]), z.dist[i], margin);
      if (any) list.push_back(m);
    }
    float top = -1.f;
    long long needy = 0;
    for (int64_t i = i0; i < i1; ++i) {
      float best = z.dist[i];
      int lab = z.label[i];
      bool needs = false;
      for (const int m : list) {
        if (kcentersSkips(float(cdist[m][z.label[i]]), z.dist[i], margin)) continue;
        needs = true;
        const float s2 = dist2(X + centers[m] * d, X + i * d, d);
        if (s2 < best) {
          best = s2;
          lab = m;
        }
      }
      needy += needs;
      z.dist[i] = best;
      z.label[i] = lab;
      top = std::max(top, best);
    }
    z.last[u] = j;
    z.upper[u] = top;
#pragma omp atomic
    z.pointPairs += needy;
#pragma omp atomic
    z.lanePairs += static_cast<long long>(list.size()) * kUnit;
#pragma omp atomic
    z.floatReads += list.empty() ? 0 : (i1 - i0);
#pragma omp atomic
    z.unitsTouched += 1;
  };
  const auto fresh = [&]() {
    Lazy z;
    z.dist.assign(n, INFINITY);
    z.label.assign(n, -1);
    z.last.assign(units, 0);
    z.upper.assign(units, 0.f);
    const float* c0 = X + centers[0] * d;
    for (int64_t i = 0; i < n; ++i) {
      z.dist[i] = dist2(c0, X + i * d, d);
      z.label[i] = 0;
      z.upper[i / kUnit] = std::max(z.upper[i / kUnit], z.dist[i]);
    }
    return z;
  };
  // Which stale units the first pass of a center brings up to date: mode 0 those at or above the
  // oracle T_j (the least any such scheme must touch); mode 1 the top 1 % by stale bound; modes
  // 2-4 each of kBlocks blocks (unit u belongs to block u % kBlocks, as a grid-strided loop deals
  // them) its own top 1, 2 or 4. Each next pass takes the stale units at or above the largest
  // distance found so far (so at most one more pass: after it, every stale unit is below that).
  constexpr int64_t kBlocks = 528;
  // The serial depth of a pass (session 20): a block brings its listed units up to date one after
  // the other, so a pass lasts about as long as its busiest block's share; "b/w" is that share in
  // units for a whole block per unit, then for a warp per unit (8 warps a block).
  const auto depth = [&](const std::vector<int64_t>& todo) {
    std::vector<int> per(kBlocks, 0);
    for (int64_t u : todo) ++per[u % kBlocks];
    const int most = *std::max_element(per.begin(), per.end());
    return std::to_string(most) + "/" + std::to_string((most + 7) / 8);
  };
  const char* modes[] = {"oracle", "top 1 %", "per-block top 1", "per-block top 2",
                         "per-block top 4"};
  const char* onlyMode = std::getenv("LAZY_MODE");  // one mode alone (0..4), for a quicker run
  for (int mode = 0; mode < 5; ++mode) {
    if (onlyMode && std::atoi(onlyMode) != mode) continue;
    Lazy z = fresh();
    long long passes = 0;
    std::printf("\n# %s\ncenter units-touched float-reads lane-pairs depth-per-pass(block/warp)\n", modes[mode]);
    for (int j = 1; j < k; ++j) {
      const long long u0 = z.unitsTouched, f0 = z.floatReads, l0 = z.lanePairs;
      std::vector<int64_t> todo;
      if (mode == 0) {
        for (int64_t u = 0; u < units; ++u)
          if (z.upper[u] >= radius[j]) todo.push_back(u);
      } else if (mode == 1) {
        const int64_t p = std::max<int64_t>(1, units / 100);
        std::vector<float> top(z.upper);
        std::nth_element(top.begin(), top.begin() + (p - 1), top.end(), std::greater<float>());
        for (int64_t u = 0; u < units; ++u)
          if (z.upper[u] >= top[p - 1]) todo.push_back(u);
      } else {
        const int per = mode == 2 ? 1 : mode == 3 ? 2 : 4;
        for (int64_t b = 0; b < std::min(kBlocks, units); ++b) {
          std::vector<std::pair<float, int64_t>> mine;
          for (int64_t u = b; u < units; u += kBlocks) mine.push_back({z.upper[u], u});
          const size_t take = std::min<size_t>(per, mine.size());
          std::partial_sort(mine.begin(), mine.begin() + take, mine.end(),
                            [](auto& x, auto& y) { return x.first > y.first; });
          for (size_t t = 0; t < take; ++t) todo.push_back(mine[t].second);
        }
      }
      float found = -1.f;
      std::string depthText;
      for (int pass = 0;; ++pass) {
        ++passes;
        depthText += " " + depth(todo);
#pragma omp parallel for
        for (size_t t = 0; t < todo.size(); ++t) catchUp(z, todo[t], j);
        for (int64_t u : todo) found = std::max(found, z.upper[u]);
        float staleTop = -1.f;
        for (int64_t u = 0; u < units; ++u)
          if (z.last[u] < j) staleTop = std::max(staleTop, z.upper[u]);
        if (staleTop < found) break;
        if (pass == 1) {
          std::printf("center %d: a third pass\n", j + 1);
          return 1;
        }
        todo.clear();
        for (int64_t u = 0; u < units; ++u)
          if (z.last[u] < j && z.upper[u] >= found) todo.push_back(u);
      }
      if (found != radius[j]) {
        std::printf("center %d: lazy maximum %.9g, eager %.9g\n", j + 1, found, radius[j]);
        return 1;
      }
      std::printf("%d %lld %lld %lld%s\n", j + 1, z.unitsTouched - u0, z.floatReads - f0,
                  z.lanePairs - l0, depthText.c_str());
    }
    {
      std::vector<int64_t> rest;
      for (int64_t u = 0; u < units; ++u)
        if (z.last[u] < k - 1) rest.push_back(u);
      std::printf("final catch-up depth %s\n", depth(rest).c_str());
    }
    const long long u0 = z.unitsTouched, f0 = z.floatReads, l0 = z.lanePairs;
#pragma omp parallel for
    for (int64_t u = 0; u < units; ++u)
      if (z.last[u] < k - 1) catchUp(z, u, k - 1);
    std::printf("final catch-up: %lld units, %lld float reads, %lld lane pairs\n",
                z.unitsTouched - u0, z.floatReads - f0, z.lanePairs - l0);
    long long wrong = 0;
    for (int64_t i = 0; i < n; ++i) wrong += z.dist[i] != dist[i] || z.label[i] != label[i];
    std::printf("total (%s): units touched %lld, float reads %lld points (%.2f GB), lane pairs "
                "%lld (%.2f G dimension FMAs; eager screened %lld point pairs), points needing "
                "a distance %lld, passes %lld; points differing from eager %lld\n",
                modes[mode], z.unitsTouched, z.floatReads, z.floatReads * 4.0 * d / 1e9,
                z.lanePairs, z.lanePairs * double(d) / 1e9, eagerScreened, z.pointPairs, passes,
                wrong);
  }
}
