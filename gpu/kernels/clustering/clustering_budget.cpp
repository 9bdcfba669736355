// SPDX-License-Identifier: MIT
// Memory estimate of a clustering run (clustering_budget.h) and the coordinate range check
// (clustering.h). The buffer list mirrors the allocations in clustering_cpu_backend.cpp,
// clustering.cu, the best engines, clustering_reference.cpp and clustering_verify.cpp; a new
// buffer there belongs here too.
#include "clustering_budget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "kernellab/errors.h"
#include "kernellab/parallel.h"
#include "kernellab/random.h"
#include "kernellab/text.h"
#include "kmeans_center_groups.h"

namespace kernellab::clustering {
namespace {

double sum(const std::vector<MemoryPart>& parts) {
  double s = 0;
  for (const auto& p : parts) s += p.bytes;
  return s;
}

// Of two alternatives that are never allocated together (two variants, one after the other),
// the larger one is the peak.
std::vector<MemoryPart> larger(std::vector<MemoryPart> a, std::vector<MemoryPart> b) {
  return sum(a) >= sum(b) ? a : b;
}

// Numbers in messages: three significant digits ("3.76e+18").
std::string sci(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

constexpr float kFloatMax = std::numeric_limits<float>::max();
constexpr float kFloatMin = std::numeric_limits<float>::min();  // smallest normal float

}  // namespace

double MemoryNeed::hostBytes() const { return sum(host); }
double MemoryNeed::deviceBytes() const { return sum(device); }

std::string describeParts(const std::vector<MemoryPart>& parts) {
  std::vector<MemoryPart> sorted = parts;
  std::sort(sorted.begin(), sorted.end(),
            [](const MemoryPart& a, const MemoryPart& b) { return a.bytes > b.bytes; });
  std::string out;
  for (size_t i = 0; i < sorted.size() && i < 4; ++i) {
    if (sorted[i].bytes <= 0) break;
    out += (i ? ", " : "") + sorted[i].name + " " + formatBytes(sorted[i].bytes);
  }
  return out;
}

MemoryNeed estimateMemory(const BudgetInput& in) {
  const double n = double(in.n), d = double(in.d), k = double(in.k), tpb = double(in.tpb);
  const double grid = std::ceil(n / std::max(1.0, tpb));
  const double points = 4.0 * n * d, centres = 4.0 * k * d;
  const bool kmeans = in.family == clustering::kKMeans;
  // The reference folds per-chunk partial sums (clustering_reference.cpp): at most 256 chunks,
  // never more chunks than points.
  const double chunks = std::min(256.0, std::max(1.0, n));
  MemoryNeed need;

  // ---- host: what lives for the whole run
  if (!in.pointsLoaded) need.host.push_back({"points", points + (in.generated ? 4.0 * n : 0.0)});
  if (kmeans) {
    need.host.push_back({"initial centers", centres});
    need.host.push_back({"reference sums", chunks * k * (8.0 * d + 8.0)});
    need.host.push_back({"reference centers and labels", 8.0 * k * d + 4.0 * n});
    // KMeansStepCheck (a replay after a tie): sums, centers and two label copies.
    need.host.push_back({"replay check", 8.0 * k * d + 3.0 * centres + 8.0 * n});
    // The fixed-point stop rule keeps this and the previous iteration's labels on the host.
    if (in.fixedPointStop) need.host.push_back({"stop check labels", 8.0 * n});
  } else {
    need.host.push_back({"reference distances and labels", 12.0 * n + 24.0 * k});
  }
  // Every variant's result keeps its labels and centers; one variant's downloads in flight.
  const double variants = double(std::max<size_t>(1, in.variants.size()));
  need.host.push_back({"results", variants * (4.0 * n + centres) + 4.0 * n});
  // The pruned k-centers variant and its unpruned twin keep their labels and distances for the
  // bit-for-bit comparison (clustering_family.cpp).
  const bool pruned = std::any_of(in.variants.begin(), in.variants.end(),
                                  [](const VariantInfo& v) { return v.engine == Engine::Pruned; });
  if (pruned && !kmeans) need.host.push_back({"pruned k-centers comparison", 2.0 * (8.0 * n)});

  // ---- per variant (one at a time): the arranged copy and the backend's buffers
  std::vector<MemoryPart> hostPeak, devicePeak;
  if (in.measureCeilings) {
    if (in.useCuda)
      devicePeak = {{"copy ceiling buffers", 2.0 * points}};
    else
      hostPeak = {{"copy ceiling buffer", points}};
  }
  for (const VariantInfo& v : in.variants) {
    const bool global = v.engine == Engine::Seed && v.memory == ScratchMemory::Global;
    const double scratch = global ? 16.0 * std::max(grid, k) * tpb : 0.0;
    const double perPoint = 4.0 * n + (kmeans ? 0.0 : 4.0 * n);  // labels (+ distances)
    const double small = 8.0 * grid + 8.0 * k + centres + 12.0 * k;
    // Both backends arrange the points in the variant's layout on the host first.
    std::vector<MemoryPart> host{{"layout copy", points}};
    if (!in.useCuda) {
      host.push_back({"backend buffers", perPoint + small + scratch});
      // The host engine's chosen centers, their exact distances (a triangle of up to 512 rows)
      // and each unit of 32 points' bound and last center.
      if (v.engine == Engine::Pruned && !kmeans)
        host.push_back({"pruned k-centers state",
                        4.0 * k * d + 2.0 * std::min(k, 512.0) * std::min(k, 512.0) +
                            8.0 * std::ceil(n / 32.0)});
      // The pruned k-means' state: |x|^2, labels, an upper bound and a lower bound per group of
      // centers per point (and the labels before the iteration, a byte per point for the bounds'
      // verdict, the list), the sums.
      if (v.engine == Engine::Pruned && kmeans)
        host.push_back({"pruned k-means state",
                        (29.0 + 4.0 * centerGroupCount(static_cast<int>(in.k))) * n +
                            8.0 * k * d + 24.0 * k});
      hostPeak = larger(hostPeak, host);
      continue;
    }
    hostPeak = larger(hostPeak, host);
    // The generated point-major copy is staged on the device while the GPU transpose arranges it
    // in the coalesced layout (clustering.cu), so the points are there twice then (and for the
    // whole run of the pruned k-centers, which keeps that copy for its scattered points);
    // point-major variants use the upload as it is.
    std::vector<MemoryPart> dev;
    if (v.layout == DataLayout::Coalesced)
      dev.push_back({"device points (and the transpose's staging copy)", 2.0 * points});
    else
      dev.push_back({"device points", points});
    dev.push_back({"device buffers", perPoint + small + scratch});
    // The k-means engines' shared state: |x| and |x|^2 per point, the centers, sums and the
    // update blocks' private K x D double sums (one block per SM: 256 bounds any GPU's count).
    const double engineState = 12.0 * n + 5.0 * centres + 24.0 * k +
                               256.0 * 8.0 * double(k) * d;
    // + the list of unsure points and their masks, and the N x K product of its default assign
    // path (cuBLAS TF32; only the fused fallback does without it).
    if (v.engine == Engine::Best && kmeans)
      dev.push_back({"best k-means state", engineState + 20.0 * n + 4.0 * n * k});
    if (v.engine == Engine::Best && !kmeans)
      dev.push_back({"best k-centers state", 8.0 * n + 8.0 * k + 8.0 * grid});
    // best's state, plus the chosen centers' rows, their distances, the visited and screened
    // counts, and the 8-bit sketch (16 codes per 16 bytes, an error bound per point, the ranges).
    // The pruned k-means: labels, bounds, |x|^2, the lists (points, changes), sums and centers.
    if (v.engine == Engine::Pruned && kmeans)
      dev.push_back({"pruned k-means state", engineState + 40.0 * n});
    if (v.engine == Engine::Pruned && !kmeans) {
      const double sketch = 16.0 * ((d + 15) / 16) * double(n) + 4.0 * n + 8.0 * 64.0 * d;
      dev.push_back({"pruned k-centers state and sketch",
                     8.0 * n + 8.0 * k + 8.0 * grid + centres + 20.0 * k + sketch});
    }
    if (v.engine == Engine::Cublas || v.engine == Engine::CublasTf32)
      dev.push_back({"cuBLAS distance matrix and engine state", 4.0 * n * k + engineState});
    devicePeak = larger(devicePeak, dev);
  }
  need.host.insert(need.host.end(), hostPeak.begin(), hostPeak.end());
  need.device = devicePeak;
  return need;
}

double maxCoordinate(int d) { return std::sqrt(double(kFloatMax) / (8.0 * std::max(1, d))); }

double minSpan() { return 4096.0 * std::sqrt(double(kFloatMin)); }

CoordinateRange coordinateRange(const float* values, int64_t n, int d) {
  CoordinateRange r;
  if (n <= 0 || d <= 0) return r;
  constexpr int64_t kChunks = 64;
  std::vector<double> maxAbs(kChunks, 0.0), spread(kChunks, 0.0);
  const float* first = values;  // differences from point 0 bound the span: S' <= S <= 2 S'
  parallelChunks(n, kChunks, [&](int64_t c, int64_t b, int64_t e) {
    double m = 0, s = 0;
    for (int64_t i = b; i < e; ++i) {
      const float* x = values + i * d;
      for (int j = 0; j < d; ++j) {
        m = std::max(m, double(std::fabs(x[j])));
        s = std::max(s, std::fabs(double(x[j]) - double(first[j])));
      }
    }
    maxAbs[static_cast<size_t>(c)] = m;
    spread[static_cast<size_t>(c)] = s;
  });
  for (int64_t c = 0; c < kChunks; ++c) {
    r.maxAbs = std::max(r.maxAbs, maxAbs[static_cast<size_t>(c)]);
    r.spanBound = std::max(r.spanBound, 2.0 * spread[static_cast<size_t>(c)]);
  }
  return r;
}

void checkCoordinateRange(const PointSet& s, const std::vector<float>& centers,
                          const std::string& what) {
  CoordinateRange r = coordinateRange(s.values.data(), s.n, s.d);
  const CoordinateRange c =
      coordinateRange(centers.data(), static_cast<int64_t>(centers.size()) / std::max(1, s.d), s.d);
  r.maxAbs = std::max(r.maxAbs, c.maxAbs);
  const double limit = maxCoordinate(s.d);
  if (r.maxAbs > limit)
    throw InputError(what + ": the largest coordinate |x| = " + sci(r.maxAbs) +
                     " is above the limit " + sci(limit) + " for D = " + std::to_string(s.d) +
                     " (squared distances, up to D (2|x|)^2, would overflow float32); scale the "
                     "data down, e.g. divide it by " +
                     sci(std::exp2(std::ceil(std::log2(r.maxAbs / limit)))));
  if (r.spanBound > 0 && r.spanBound < minSpan())
    throw InputError(what + ": the points span at most " + sci(r.spanBound) +
                     " in every coordinate, below the limit " + sci(minSpan()) +
                     " (their squared differences would be subnormal float32 numbers and lose "
                     "precision); scale the data up, e.g. multiply it by " +
                     sci(std::exp2(std::ceil(std::log2(minSpan() / r.spanBound)))));
}

}  // namespace kernellab::clustering
