// SPDX-License-Identifier: MIT
// KL_HD and the plain coordinate structs shared by CUDA kernels, the CPU executor and the models.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define KL_HD __host__ __device__ __forceinline__
#else
#define KL_HD inline
#endif

// Full unrolling of a loop with a compile-time trip count in shared phase code
// (nvcc and clang honour it; GCC has its own spelling).
#if defined(__CUDACC__) || defined(__clang__)
#define KL_UNROLL _Pragma("unroll")
#elif defined(__GNUC__)
#define KL_UNROLL _Pragma("GCC unroll 16")
#else
#define KL_UNROLL
#endif

namespace kernellab {

// Plain structs rather than CUDA's int2/dim3: CPU-only builds have neither.
struct BlockCoord {
  int x = 0;
  int y = 0;
};

struct Dim2 {
  int x = 1;
  int y = 1;
};

KL_HD bool operator==(BlockCoord a, BlockCoord b) { return a.x == b.x && a.y == b.y; }

}  // namespace kernellab
