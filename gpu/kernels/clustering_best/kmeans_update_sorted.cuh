// SPDX-License-Identifier: MIT
// The k-means engines' centroid update by label (issue 10): a counting sort of the points by
// label, then the sums of each label's points, read in that order.
//
// Why: a block-private K x D table of double sums in shared memory (160 KB at K = 100, D = 200)
// leaves one block of a few warps per SM, and each coordinate then waits on a read-modify-write
// of its cluster's entry; with the labels changing from point to point (the first iterations of
// a run) that ran at 1 to 2.6 ms at N = 1e6 on the H200, a quarter of the copy rate or less.
// Sorted, every label's points are one contiguous segment: a block sums a chunk of a segment in
// registers (a thread per four dimensions, several points at once, no label checks), adds its
// partial sums across the block and then once per dimension into the global sums. Little shared
// memory, full occupancy; each point's row is still read whole (D floats, contiguous).
//
// Kernels: labelHistogramKernel (per block and label counts), labelScanKernel (one block: the
// segments, every block's place in them, and the chunk list), labelScatterKernel (the order),
// segmentSumsKernel (the sums, |x|^2 sums and counts).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/cuda_check.h"
#include "kernellab/result.h"

namespace kernellab::clustering::best {

// Device buffers and launch shape of the sorted update for N points, K labels, D dimensions.
class SortedUpdate {
 public:
  SortedUpdate() = default;
  void allocate(int64_t n, int k, int d, int sms);
  // Sums (K x D), sumsq and counts (K) must be zero on entry (finalize leaves them so); labels
  // outside 0..K-1 are left out (the verification's count check reports them).
  void launch(const float* X, const int* labels, const double* xsq, double* sums, double* sumsq,
              int* counts, cudaStream_t stream);
  int sumsGrid() const { return sumsGrid_; }
  ResourceUsage resources() const;  // of segmentSumsKernel, the pass over the points
  static constexpr int kThreads = 256;
  // The label counters live in shared memory (K ints) and a thread covers four dimensions of a
  // block of 256: K <= 12288, D <= 1024.
  static bool fits(int k, int d) { return k <= 12288 && d <= 4 * kThreads; }

 private:
  int64_t n_ = 0;
  int k_ = 0, d_ = 0;
  int blocks_ = 1;        // histogram / scatter blocks (each a contiguous range of points)
  int64_t perBlock_ = 1;
  int chunk_ = 1;          // points per work item of the sums (at most)
  size_t scanBytes_ = 0;   // shared memory of the label-count scan (0: scanned in global)
  int64_t maxChunks_ = 1;  // chunk-list capacity: N / chunk_ + K
  int sumsGrid_ = 1;
  cuda::DeviceBuffer<int> hist_;    // K x blocks (label-major), scanned in place
  cuda::DeviceBuffer<int> order_;   // N: point indices sorted by label
  cuda::DeviceBuffer<int> chunks_;  // (label, first, end) per chunk, then the count
};

}  // namespace kernellab::clustering::best
