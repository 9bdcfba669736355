// SPDX-License-Identifier: MIT
// The fp32 FMA peak, measured: every thread runs 8 independent FMA chains (enough to cover the
// FMA latency with 4 warps per scheduler), the grid fills every SM several times.
#include <cuda_runtime.h>

#include <vector>

#include "cuda/cuda_check.h"
#include "kernellab/ceilings.h"

namespace kernellab {
namespace {

constexpr int kChains = 8;
constexpr int kIterations = 4096;
constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) fp32PeakKernel(float seed, float* sink) {
  float a[kChains];
#pragma unroll
  for (int c = 0; c < kChains; ++c) a[c] = seed + threadIdx.x * 1e-7f + c;
  const float b = 0.999999f, k = 1e-7f;
  for (int i = 0; i < kIterations; ++i) {
#pragma unroll
    for (int c = 0; c < kChains; ++c) a[c] = fmaf(a[c], b, k);
  }
  float s = 0.f;
#pragma unroll
  for (int c = 0; c < kChains; ++c) s += a[c];
  if (s == 12345.678f) *sink = s;  // never true: keeps the chains alive without a store
}

}  // namespace

std::optional<Ceiling> measureFp32Peak(int warmup, int reps) {
  int device = 0, sms = 0, perSM = 0;
  if (cudaGetDevice(&device) != cudaSuccess) {
    cudaGetLastError();
    return std::nullopt;
  }
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  KL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSM, fp32PeakKernel, kThreads, 0));
  const int grid = sms * perSM * 8;
  cuda::DeviceBuffer<float> sink(1);
  cuda::EventPair ev;
  std::vector<double> samples;
  for (int i = 0; i < warmup + reps; ++i) {
    ev.start(nullptr);
    fp32PeakKernel<<<grid, kThreads>>>(1.0f, sink.get());
    KL_CUDA_CHECK_LAUNCH(nullptr);
    ev.stop(nullptr);
    const double ms = ev.elapsedMs();
    if (i >= warmup) samples.push_back(ms);
  }
  Ceiling c;
  c.name = "fp32 FMA peak";
  c.timing = summarize(samples, "cuda-events");
  const double flops = 2.0 * kChains * double(kIterations) * double(grid) * kThreads;
  c.gflops = c.timing.medianMs > 0 ? flops / (c.timing.medianMs * 1e-3) / 1e9 : 0.0;
  return c;
}

}  // namespace kernellab
