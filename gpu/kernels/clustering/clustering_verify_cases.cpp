// SPDX-License-Identifier: MIT
// The clustering families' cases of `kernellab-cli verify`: the thesis's gold-file size, N a
// multiple of neither the block nor K, D above the block size, K = N and K = 1, at threads per
// block 64..1024 and odd ones.
#include "clustering_parts.h"
#include "kernellab/clustering.h"

namespace kernellab::clustering {

std::vector<VerifyCase> verifyCases(Family only, bool quick) {
  struct Size {
    int64_t n;
    int k, d;
    const char* shape;
  };
  // 10x2x2: the thesis's gold-file size. 1000x7x3 and 4099x10x17: N a multiple of neither the
  // block nor K. 517x3x70 and 3001x5x300: D above small blocks (the center is staged in several
  // chunks). 64x64x4: K = N. 777x1x1: one cluster, one dimension. 30011x16x40 blobs: a larger
  // random set with interleaved clusters. 5003x150x12 blobs: K above the 128 centers the best
  // k-means engine's tensor-core assign keeps on chip (its cuBLAS path).
  std::vector<Size> sizes = {{10, 2, 2, "seed"},
                             {1000, 7, 3, "seed"},
                             {517, 3, 70, "seed"},
                             {64, 64, 4, "seed"},
                             {777, 1, 1, "seed"}};
  if (!quick) {
    sizes.push_back({4099, 10, 17, "seed"});
    sizes.push_back({3001, 5, 300, "blobs"});
    sizes.push_back({30011, 16, 40, "blobs"});
    sizes.push_back({5003, 150, 12, "blobs"});
  }
  std::vector<int> tpbs =
      quick ? std::vector<int>{64, 96, 1000} : std::vector<int>{64, 96, 128, 256, 512, 1000, 1024};
  std::vector<VerifyCase> out;
  // Pruned k-centers (issue 15): every k-centers case above runs it ("all"), and the runner
  // requires its centers, radii, labels and distances to be its unpruned twin's bit for bit
  // (best on CUDA, the seed variants on the CPU). These sizes add data where the pruning test
  // actually skips points: the seed's clusters with one center each (most points skipped from
  // the second center on), one broad cloud (blobs, all but K points uniform noise: hardly any),
  // and D = 1500, where the test's margin grows with D (kcentersSkipMargin).
  struct PrunedSize {
    int64_t n;
    int k, d;
    const char* shape;
    double noise;
  };
  std::vector<PrunedSize> pruned = {{20000, 32, 8, "seed", 0.0}};
  if (!quick) {
    pruned.push_back({100003, 64, 20, "seed", 0.0});
    pruned.push_back({20011, 24, 16, "blobs", 0.99999});
    pruned.push_back({30011, 16, 40, "blobs", 0.05});
    pruned.push_back({4001, 12, 1500, "seed", 0.0});
  }
  for (Family f : {kKCenters, kKMeans}) {
    if (f != only) continue;
    for (const auto& s : sizes) {
      std::vector<int> list = tpbs;
      if (!quick && s.n <= 1000) {  // tiny blocks: one thread, and a partial warp
        list.push_back(1);
        list.push_back(33);
      }
      for (int tpb : list) {
        VerifyCase c;
        RunRequest& r = c.request;
        r.family = f;
        r.variants = {"all"};
        ClusteringProblem& p = r.section<ClusteringProblem>();
        p.n = s.n;
        p.k = s.k;
        p.d = s.d;
        p.shape = *shapeFromString(s.shape);
        p.maxIterations = 10;
        p.init = f == kKMeans && s.k > 2 ? InitMethod::KMeansPlusPlus : InitMethod::First;
        p.keepLabels = false;
        r.launch.threadsPerBlock = tpb;
        r.warmup = 0;
        r.repetitions = 1;
        r.measureCeilings = false;
        c.label = std::string(toString(f)) + " N=" + std::to_string(s.n) +
                  " K=" + std::to_string(s.k) + " D=" + std::to_string(s.d) + " " + s.shape +
                  " tpb " + std::to_string(tpb);
        out.push_back(std::move(c));
      }
    }
    if (f != kKCenters) continue;
    for (const auto& s : pruned) {
      VerifyCase c;
      RunRequest& r = c.request;
      r.family = f;
      r.variants = {"all"};  // pruned beside its twin, whichever backend runs the case
      ClusteringProblem& p = r.section<ClusteringProblem>();
      p.n = s.n;
      p.k = s.k;
      p.d = s.d;
      p.shape = *shapeFromString(s.shape);
      p.noiseFraction = s.noise;
      p.init = InitMethod::First;
      p.keepLabels = false;
      r.launch.threadsPerBlock = 256;  // the engines' own; the seed variants' at one size
      r.warmup = 0;
      r.repetitions = 1;
      r.measureCeilings = false;
      c.label = std::string("kcenters pruned vs unpruned N=") + std::to_string(s.n) +
                " K=" + std::to_string(s.k) + " D=" + std::to_string(s.d) + " " + s.shape +
                (s.noise > 0.5 ? " (one broad cloud)" : "") + " tpb 256";
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace kernellab::clustering
