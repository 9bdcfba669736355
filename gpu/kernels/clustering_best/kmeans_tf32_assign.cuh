// SPDX-License-Identifier: MIT
// The best k-means engine's assignment in one pass over the points (issue 10): the cross term
// x.c' of every point with every (mean-centred) center on the TF32 tensor cores (mma.sync
// m16n8k8: the centers rounded to nearest, the points' fp32 bits truncated by the tensor cores),
// a proven bound on its error, and the label decided in
// the same kernel, so the N x K product never goes to memory (with cuBLAS it is 400 MB written and
// read again at N = 1e6, K = 100). Points whose bound does not decide them are listed with a mask
// of their candidate centers for exactFixKernel.
//
// Shape: a persistent grid, one block of 8 warps per SM; the block keeps every center (K padded to
// a multiple of 8, rounded to TF32 and stored in the order of the mma's B fragments, so a lane
// reads its fragments of two k-steps with one 16-byte load) in shared memory. Each warp streams
// its own units of 32 points x 32 dimensions (ldmatrix, two 16-row mma tiles) through its own
// slice of the cp.async stages, with no block barrier after the centers are in: one warp's
// epilogue (kmeans_assign_decide.cuh) overlaps the other warps' copies and products. Measured on
// the H200 (N = 1e6, K = 100, D = 200): 0.42 ms, against a DRAM floor of 0.19 (800 MB);
// latency-bound at 8 warps per SM (255 registers: 104 accumulators and the epilogue).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "cuda/kernel_resources.h"
#include "kmeans_parts.cuh"

namespace kernellab::clustering::best {

constexpr int kTf32TilePoints = 256;                  // points per tile (8 warps x 32 or 16 x 16)
constexpr int kTf32StageDims = 32;                    // dimensions per pipeline stage
constexpr int kTf32StagePitch = kTf32StageDims + 4;   // floats per staged row: conflict-free reads
constexpr int kTf32MaxCenters = 32 * kMaskWords;      // 128: the candidate masks' width

struct Tf32AssignPlan {
  bool pruned = false;  // the pruned engine's kernel (launchTf32PrunedDecide)
  int nTiles = 0;   // accumulator tiles of 8 centers: K padded to 8 * nTiles
  int pairs = 0;    // pairs of 8-dimension k-steps: D padded to 32, over 16
  int stages = 0;   // pipeline depth
  bool vec = false; // D % 4 == 0: 16-byte copies of the rows
  int rowsPerWarp = 32;  // 8 warps of two 16-row mma tiles (the kernel's MT)
  int grid = 0;
  size_t smem = 0;  // dynamic shared memory per block
  int threads() const { return 32 * (kTf32TilePoints / rowsPerWarp); }
};

// The words of the centers' Tf32CenterFragments (kmeans_parts.cuh) for this plan.
inline size_t tf32FragmentWords(const Tf32AssignPlan& p) {
  return size_t(p.pairs) * p.nTiles * 32 * 4;
}

// The plan for K centers of D dimensions on the current device, or nothing (with the reason in
// `why`) when the fused assign cannot run: compute capability below 8.0 (no TF32 mma), K above
// kTf32MaxCenters, or the centers and two stages not fitting in a block's shared memory.
// pruned: the plan of the pruned k-means engine's kernel, the same products with its decision.
std::optional<Tf32AssignPlan> planTf32Assign(int k, int d, std::string& why, bool pruned = false);

// Labels of the points the bound decides, -1 and an entry in `unsure` (with its mask of
// candidate centers in masks[entry * kMaskWords ...]) for the others. fragments: the centers'
// Tf32CenterFragments words (tf32FragmentWords(plan) of them).
void launchTf32Assign(const Tf32AssignPlan& plan, const float* X, int64_t n, int d,
                      const uint32_t* fragments, const float* cn, const float* cabs, int k,
                      const float* xnorm, float kappa, int* labels, int* unsure, int* unsureCount,
                      uint32_t* masks, cudaStream_t stream);

// The pruned k-means engine's outputs (kmeans_assign_decide.cuh, decideSliceRowsPruned).
struct PrunedTf32Out {
  const int* list;        // list position -> point, or null: every point
  const int* listCount;   // the list's length on the device (with list)
  int* labels;            // the old label on entry, the new one for sure points
  float* gaps;            // N: d^2(second nearest) - d^2(nearest), a lower bound, per sure point
  float2* bounds;         // N (u, l), or null: not kept (the warm iterations)
  int* ties;              // the points the bound leaves open (their label untouched), with
  int* tieOld;            // their labels and
  uint32_t* masks;        // their candidate centers ([tie][kMaskWords]),
  int* tieBest;           // the TF32 best (a candidate; -1: none) and
  float* tieGapNc;        // d^2(any non-candidate) - d^2(tieBest), a lower bound (s units)
  int* tieCount;           // with changedCount one 8-byte-aligned word (ties first): both
  int2* changed;          // (point, old label) of a changed label, or null: not listed
  int* changedCount;      // lists' places are reserved by one 64-bit atomic
};

// The pruned engine's decision of `n` points (or of out.list, at most n entries): the same
// products as launchTf32Assign, decided by decideSliceRowsPruned. The plan must be pruned.
void launchTf32PrunedDecide(const Tf32AssignPlan& plan, const float* X, int64_t n, int d,
                            const uint32_t* fragments, const float* cn, const float* cabs, int k,
                            const float* xnorm, float kappa, const PrunedTf32Out& out,
                            cudaStream_t stream);

ResourceUsage tf32AssignResources(const Tf32AssignPlan& plan);

}  // namespace kernellab::clustering::best
