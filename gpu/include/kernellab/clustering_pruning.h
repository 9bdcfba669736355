// SPDX-License-Identifier: MIT
// The pruning tests of the pruned clustering variants (issue 15), shared by their CUDA kernels
// and their CPU implementations, so both skip exactly the same points.
//
// k-centers: a point x at squared distance r from its center a cannot move to a new center c when
// d(a, c) >= 2 d(x, a) (triangle inequality: d(x, c) >= d(a, c) - d(x, a) >= d(x, a)), i.e. when
// d^2(a, c) >= 4 r. Both r and d^2(a, c) are rounded floats, and the unpruned kernel compares
// rounded distances, so the test keeps a relative margin well above their rounding: with
// d^2(a, c) > 4 r (1 + margin), d(x, c) exceeds d(x, a) by a relative margin / 2 (about), far more
// than the (D + 2) 2^-24 relative error of a float distance of D dimensions; so the unpruned kernel
// would not have moved x either, and the pruned run's centers, labels and distances are the same
// bits as the unpruned one's.
#pragma once

#include <algorithm>

#include "kernellab/hd.h"

namespace kernellab::clustering {

// The k-centers skip margin for D dimensions: 1e-3, or 16 times the float distance's relative
// error bound when that is larger (D above about 1000).
inline float kcentersSkipMargin(int d) {
  return std::max(1e-3f, 16.0f * static_cast<float>(d + 2) / 16777216.0f);
}

// True when the new center (at squared distance centerDist from the point's center) cannot take
// the point (at squared distance r from its center). NaN never skips.
KL_HD bool kcentersSkips(float centerDist, float r, float margin) {
  return centerDist > 4.0f * r * (1.0f + margin);
}

}  // namespace kernellab::clustering
