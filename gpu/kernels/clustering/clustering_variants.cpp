// SPDX-License-Identifier: MIT
// The clustering variant table, kernel names, the seed's speed-up and gain formulas and the
// thesis's published figure-19 numbers.
#include <algorithm>

#include "kernellab/clustering.h"
#include "kernellab/errors.h"
#include "kernellab/text.h"

namespace kernellab::clustering {

const std::vector<VariantInfo>& variants() {
  static const std::vector<VariantInfo> table = {
      {"shared-coalesced", ScratchMemory::Shared, DataLayout::Coalesced, "Coalesced + shared",
       "Points stored dimension-major (a warp reads 32 consecutive floats); reductions and the "
       "centroid stage in shared memory. The seed's fastest variant."},
      {"global-coalesced", ScratchMemory::Global, DataLayout::Coalesced, "Coalesced + global",
       "Coalesced points; the reductions' scratch in a per-block slice of global memory and the "
       "k-means centroids read straight from global memory."},
      {"shared-interleaved", ScratchMemory::Shared, DataLayout::Interleaved, "Interleaved + shared",
       "Points stored point-major (a warp's 32 reads are D floats apart: 32 sectors per request); "
       "scratch in shared memory."},
      {"global-interleaved", ScratchMemory::Global, DataLayout::Interleaved, "Interleaved + global",
       "Point-major points and global-memory scratch: neither optimization. The seed's slowest "
       "variant."},
  };
  return table;
}

namespace {

// The k-centers engine reads dimension-major points; the k-means engines point-major ones (each
// point one contiguous row: what their update and re-decisions walk; their products take either).
VariantInfo bestVariant(Family f) {
  return {"best",
          ScratchMemory::Shared,
          f == clustering::kKCenters ? DataLayout::Coalesced : DataLayout::Interleaved,
          f == clustering::kKCenters ? "Best (fused)" : "Best (exact TF32)",
          f == clustering::kKCenters
              ? "One fused pass per center (16-byte loads, farthest point picked on the GPU by the "
                "last block), the K launches one CUDA graph: bandwidth-bound, no host round trips."
              : "Distances on the TF32 tensor cores in one fused pass that never stores the "
                "N x K product (cuBLAS's GEMM where that pass cannot run) with a proven error "
                "bound; points near a tie re-decided in double: exact labels. Point-major rows, "
                "sorted by label for the centroid sums; the exact score from the sums.",
          Engine::Best};
}

// k-centers (issue 15): the best engine's pass on CUDA, skipping the points whose center the new
// one provably cannot take (clustering_pruning.h); the lazy traversal on the CPU backend
// (kcenters_pruned_cpu.cpp). Dimension-major like best.
VariantInfo prunedKCentersVariant() {
  return {"pruned",
          ScratchMemory::Shared,
          DataLayout::Coalesced,
          "Pruned (proven skips)",
          "On a GPU, the fused pass per center reads a point's coordinates only when neither the "
          "triangle inequality (8 bytes per point) nor the point's 8-bit sketch with its proven "
          "error bound (D bytes more) can rule the new center out; on the CPU, a lazy traversal "
          "reads a unit of 32 points only when it could hold the next center, once for every "
          "center it missed. The same centers and distances as the unpruned pass.",
          Engine::Pruned};
}

// k-means (issue 15): Hamerly's bounds (kmeans_pruning.h; on the CPU backend one lower bound per
// group of about ten centers, Yinyang's). Point-major like best: the points it reads are read
// whole, one contiguous row each.
VariantInfo prunedKMeansVariant() {
  return {"pruned",
          ScratchMemory::Shared,
          DataLayout::Interleaved,
          "Pruned (Hamerly bounds)",
          "Per point an upper bound on the distance to its center and a lower bound on every other "
          "center's, moved by the centers' drifts: a point reads its coordinates only when the "
          "bounds overlap, and computes other distances only when re-measuring its own center "
          "does not settle it (on the GPU all K, by the tensor cores; on the CPU a lower bound per "
          "group of about ten centers leaves out the groups it proves too far). The sums move by "
          "the points that changed cluster. Exact labels (proven rounding margins, near ties in "
          "double): plain Lloyd's at every iteration.",
          Engine::Pruned};
}

VariantInfo cublasVariant(bool tf32) {
  return {tf32 ? "cublas-tf32" : "cublas",
          ScratchMemory::Shared,
          DataLayout::Interleaved,
          tf32 ? "cuBLAS peer (TF32)" : "cuBLAS peer",
          std::string("How common libraries do it: -2 X C^T by cuBLAS (") +
              (tf32 ? "TF32 tensor cores" : "fp32 SGEMM") +
              "), the arg-min of |c|^2 - 2 x.c (approximate labels: float cancellation near "
              "ties), then the block-private centroid update.",
          tf32 ? Engine::CublasTf32 : Engine::Cublas};
}

}  // namespace

const std::vector<VariantInfo>& variants(Family family) {
  static const std::vector<VariantInfo> kmeans = [] {
    auto t = variants();
    t.push_back(bestVariant(clustering::kKMeans));
    t.push_back(cublasVariant(false));
    t.push_back(cublasVariant(true));
    t.push_back(prunedKMeansVariant());
    return t;
  }();
  static const std::vector<VariantInfo> kcenters = [] {
    auto t = variants();
    t.push_back(bestVariant(clustering::kKCenters));
    t.push_back(prunedKCentersVariant());
    return t;
  }();
  return family == clustering::kKCenters ? kcenters : kmeans;
}

std::optional<VariantInfo> variantFromString(const std::string& id) {
  const std::string lower = toLower(id);
  for (Family f : {clustering::kKMeans, clustering::kKCenters})
    for (const auto& v : variants(f))
      if (v.id == lower) return v;
  return std::nullopt;
}

std::vector<VariantInfo> parseVariants(const std::vector<std::string>& ids, Family family,
                                       bool cuda, const std::string& whyNoCuda) {
  std::vector<VariantInfo> out;
  auto addUnique = [&](const VariantInfo& v) {
    if (std::none_of(out.begin(), out.end(), [&](const VariantInfo& o) { return o.id == v.id; }))
      out.push_back(v);
  };
  const std::vector<VariantInfo>& table = variants(family);
  for (const auto& id : ids) {
    if (toLower(id) == "all") {
      for (const auto& v : table)
        if (cuda || runsOnCpu(v.engine)) addUnique(v);
      continue;
    }
    const std::string lower = toLower(id);
    auto it = std::find_if(table.begin(), table.end(), [&](const VariantInfo& v) { return v.id == lower; });
    if (it == table.end()) {
      std::string known;
      for (const auto& k : table) known += (known.empty() ? "" : ", ") + k.id;
      throw InputError("--variant " + id + ": unknown " + toString(family) + " variant (known: " +
                       known + ", all; or --memory shared|global --layout coalesced|interleaved)");
    }
    if (!cuda && !runsOnCpu(it->engine))
      throw InputError("--variant " + id + " runs only on the CUDA backend" +
                       (whyNoCuda.empty() ? std::string() : " (" + whyNoCuda + ")"));
    addUnique(*it);
  }
  if (out.empty())
    for (const auto& v : table)
      if (cuda || runsOnCpu(v.engine)) out.push_back(v);
  return out;
}

const std::vector<std::string>& kernelNames(Family family, const VariantInfo& v) {
  static const std::vector<std::string> kcentersBest = {"kcentersFusedKernel"};
  static const std::vector<std::string> kcentersPruned = {"kcentersPrunedKernel"};
  // In each engine's kernelNames() order (gpu/kernels/clustering_best).
  // (The best k-means engine names its own first kernel where it takes the cuBLAS path:
  // Backend::engineKernelNames.)
  static const std::vector<std::string> kmeansBest = {"kmeansTf32AssignKernel", "exactFixKernel",
                                                      "segmentSumsKernel (points sorted by label)",
                                                      "finalizeFromSumsKernel"};
  static const std::vector<std::string> kmeansPruned = {
      "prunedMoveKernel", "prunedBoundsKernel", "prunedDecideKernel", "prunedSumsKernel",
      "prunedScoreKernel"};
  static const std::vector<std::string> kmeansCublas = {
      "cublasSgemm", "argminKernel", "segmentSumsKernel (points sorted by label)",
      "finalizeFromSumsKernel"};
  static const std::vector<std::string> kmeansCublasTf32 = {
      "cublasGemmEx TF32", "argminKernel", "segmentSumsKernel (points sorted by label)",
      "finalizeFromSumsKernel"};
  if (v.engine == Engine::Best) return family == clustering::kKCenters ? kcentersBest : kmeansBest;
  if (v.engine == Engine::Pruned)
    return family == clustering::kKCenters ? kcentersPruned : kmeansPruned;
  if (v.engine == Engine::Cublas) return kmeansCublas;
  if (v.engine == Engine::CublasTf32) return kmeansCublasTf32;
  return kernelNames(family);
}

const std::vector<std::string>& kernelNames(Family family) {
  static const std::vector<std::string> kcenters = {"kcentersDistanceKernel",
                                                    "kcentersSelectKernel"};
  static const std::vector<std::string> kmeans = {"calcCentroidsKernel", "assignToClustersKernel",
                                                  "calcScoreKernel"};
  return family == clustering::kKCenters ? kcenters : kmeans;
}

double speedup(double tOld, double tNew) { return tNew > 0 ? tOld / tNew : 0.0; }

double gainPercent(double tOld, double tNew) {
  return tOld > 0 ? (tOld - tNew) / tOld * 100.0 : 0.0;
}

std::optional<Comparison> compareVariants(const RunResult& run, const std::string& oldVariant,
                                          const std::string& newVariant) {
  const VariantResult* a = nullptr;
  const VariantResult* b = nullptr;
  for (const auto& v : run.variants) {
    if (v.variant == oldVariant && v.ok) a = &v;
    if (v.variant == newVariant && v.ok) b = &v;
  }
  if (!a || !b || a->total.medianMs <= 0 || b->total.medianMs <= 0) return std::nullopt;
  Comparison c;
  c.oldVariant = oldVariant;
  c.newVariant = newVariant;
  c.oldMs = a->total.medianMs;
  c.newMs = b->total.medianMs;
  c.speedup = speedup(c.oldMs, c.newMs);
  c.gainPercent = gainPercent(c.oldMs, c.newMs);
  return c;
}

const std::vector<int>& publishedTpb() {
  static const std::vector<int> tpb = {64, 128, 256, 512, 1024};
  return tpb;
}

const std::vector<PublishedSeries>& publishedFigure19() {
  static const std::vector<PublishedSeries> series = {
      {"shared-coalesced", "Coalesced + Shared Mem.", {73.51, 143.59, 283.28, 286.42, 298.23}},
      {"global-coalesced", "Coalesced + No Shared Mem.", {81.74, 157.27, 304.44, 328.09, 370.39}},
      {"shared-interleaved",
       "Non Coalesced + Shared Mem.",
       {550.866, 1042.09, 2198.39, 2316.33, 2515.69}},
      {"global-interleaved",
       "Non Coalesced + No Shared Mem.",
       {569, 1126.41, 2398.14, 2435.27, 2707.95}},
  };
  return series;
}

}  // namespace kernellab::clustering
