// SPDX-License-Identifier: MIT
// kernellab-mma-rate: the tensor cores' mma.sync issue rate on this GPU (issue 10 asked for the
// 3xTF32 rate before designing a k-means engine around it). Every warp runs chains of independent
// m16n8k8 TF32 (and m16n8k16 BF16) mma.sync on registers, no memory traffic; the rate is FLOP over
// the kernel time (CUDA events, median of 5). 3xTF32 issues three TF32 mma per product, so its
// rate of useful FLOP is a third of the TF32 figure.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                                               \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      return 1;                                                                                \
    }                                                                                          \
  } while (0)

constexpr int kChains = 8;  // independent accumulators per warp: enough to cover mma latency

__global__ void tf32Kernel(int iters, float* out) {
  float acc[kChains][4] = {};
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(1.0f + threadIdx.x * 1e-3f + i);
  for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(0.5f + i);
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c)
      asm volatile(
          "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};\n"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.f) out[threadIdx.x] = s;  // keeps the work alive
}

__global__ void bf16Kernel(int iters, float* out) {
  float acc[kChains][4] = {};
  uint32_t a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = 0x3f803f80u + threadIdx.x;
  for (int i = 0; i < 2; ++i) b[i] = 0x3f003f00u;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int c = 0; c < kChains; ++c)
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
          "{%8,%9}, {%0,%1,%2,%3};\n"
          : "+f"(acc[c][0]), "+f"(acc[c][1]), "+f"(acc[c][2]), "+f"(acc[c][3])
          : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
  float s = 0;
  for (int c = 0; c < kChains; ++c) s += acc[c][0] + acc[c][1] + acc[c][2] + acc[c][3];
  if (s == 12345.f) out[threadIdx.x] = s;
}

template <class K>
int measure(const char* name, K kernel, double flopPerMma, int warpsPerBlock) {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float* out = nullptr;
  CHECK(cudaMalloc(&out, 1024 * sizeof(float)));
  const int blocks = sms * 2, threads = warpsPerBlock * 32, iters = 4096;
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  kernel<<<blocks, threads>>>(iters, out);
  CHECK(cudaGetLastError());
  CHECK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < 5; ++r) {
    CHECK(cudaEventRecord(a));
    kernel<<<blocks, threads>>>(iters, out);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float t = 0;
    CHECK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  const double mmas = double(blocks) * warpsPerBlock * iters * kChains;
  const double tflops = mmas * flopPerMma / (ms[2] * 1e-3) / 1e12;
  std::printf("%-28s %2d warps/block x %d blocks: %.3f ms, %.1f TFLOP/s dense", name, warpsPerBlock,
              blocks, ms[2], tflops);
  if (flopPerMma == 2.0 * 16 * 8 * 8)
    std::printf(" (3xTF32: %.1f TFLOP/s of fp32-accurate products)", tflops / 3.0);
  std::printf("\n");
  CHECK(cudaFree(out));
  return 0;
}

int main() {
  cudaDeviceProp p{};
  CHECK(cudaGetDeviceProperties(&p, 0));
  std::printf("mma.sync rates on %s (%d SMs), register operands, %d independent chains per warp\n",
              p.name, p.multiProcessorCount, kChains);
  for (int w : {4, 8, 16})
    if (measure("m16n8k8 TF32 (f32 accum)", tf32Kernel, 2.0 * 16 * 8 * 8, w)) return 1;
  for (int w : {4, 8})
    if (measure("m16n8k16 BF16 (f32 accum)", bf16Kernel, 2.0 * 16 * 8 * 16, w)) return 1;
  return 0;
}
