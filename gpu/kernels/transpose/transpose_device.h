// SPDX-License-Identifier: MIT
// The best transpose on device memory, for other families' layout changes (the clustering
// family turns the generated point-major points into the dimension-major layout with it).
#pragma once

#include <cstdint>
#include <string>

struct CUstream_st;

namespace kernellab::transpose {

// Whether the best transpose moves a matrix of this shape in one launch (the grid limits).
bool fitsOneLaunch(int64_t width, int64_t height);

// out (width rows of height floats) = the transpose of in (height rows of width floats), both
// device pointers, enqueued on `stream` with the best variant's strategy for this shape. Returns
// the strategy's id ("staged-rows", ...). Throws CudaError on a failed launch.
std::string transposeOnDevice(const float* in, float* out, int64_t width, int64_t height,
                              CUstream_st* stream);

}  // namespace kernellab::transpose
