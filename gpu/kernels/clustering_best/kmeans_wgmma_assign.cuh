// SPDX-License-Identifier: MIT
// The best k-means engine's fused assign on Hopper's asynchronous tensor cores (issue 10):
// wgmma.mma_async (sm_90a) instead of mma.sync. The products x.c' of 64 points by every center
// come from shared memory by descriptor, so a warpgroup issues one instruction per 8 dimensions
// (at K = 100, D = 200: 25 per 64 points, against 1,300 mma.sync, their fragment loads and the
// 52 registers of centers a warp held for them), and the tensor cores work while the warps copy
// the next dimensions and decide the previous unit's labels. The decision, the bound and the
// candidate masks are the mma.sync kernel's (kmeans_assign_decide.cuh): the same labels.
//
// Shape: a persistent grid, one block per SM of kWgGroups warpgroups; the block keeps every
// center (K padded to a multiple of 8, rounded to TF32 to nearest, in the K-major core-matrix
// layout wgmma reads: 8 centers x 4 dimensions per 128 bytes) in shared memory; each warpgroup
// streams its own units of 64 points x 32 dimensions through its own cp.async stages, with a
// barrier of its 128 threads only.
//
// Built only for sm_90a (a separate object in gpu/CMakeLists.txt); KERNELLAB_HAVE_WGMMA says
// whether it was built.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <optional>
#include <string>

#include "kernellab/result.h"

namespace kernellab::clustering::best {

// Two warpgroups per block (measured on the H200: 0.485 ms against 0.516 with three, whose
// 168-register cap spills).
constexpr int kWgGroups = 2;
constexpr int kWgRows = 64;         // points per unit (one wgmma's M)
constexpr int kWgStageDims = 32;    // dimensions per pipeline stage (4 k-steps of 8)

struct WgmmaAssignPlan {
  int nTiles = 0;   // 8-center tiles: K padded to 8 * nTiles (N of the wgmma)
  int kSteps = 0;   // 8-dimension k-steps: D padded to 8 * kSteps
  int stages = 0;   // pipeline depth per warpgroup
  int grid = 0;
  size_t smem = 0;  // dynamic shared memory per block
  bool swapOffsets = false;  // KERNELLAB_WGMMA_SWAP: the descriptors' two strides exchanged (a test)
  int threads() const { return 128 * kWgGroups; }
};

// The plan for K centers of D dimensions on the current device, or nothing with the reason:
// not built for sm_90a, a device other than compute capability 9.0, K above 128, D not a
// multiple of 4 (16-byte copies), or the centers and two stages not fitting in shared memory.
std::optional<WgmmaAssignPlan> planWgmmaAssign(int k, int d, std::string& why);

// As launchTf32Assign (kmeans_tf32_assign.cuh): labels of the points the bound decides, -1 and
// an entry in `unsure` with its candidate mask for the others.
void launchWgmmaAssign(const WgmmaAssignPlan& plan, const float* X, int64_t n, int d,
                       const float* Cc, const float* cn, const float* cabs, int k,
                       const float* xnorm, float kappa, int* labels, int* unsure,
                       int* unsureCount, uint32_t* masks, cudaStream_t stream);

ResourceUsage wgmmaAssignResources(const WgmmaAssignPlan& plan);

}  // namespace kernellab::clustering::best
